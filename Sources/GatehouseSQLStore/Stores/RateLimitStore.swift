import Foundation
import GatehouseStore

/// Fixed-window counters shared by every process, on either backend.
struct SQLRateLimitStore<Database: SQLDatabase>: RateLimitStore {
    let database: Database

    func hit(bucket: String, key: String, window: TimeInterval, limit: Int, now: Date) async throws
        -> RateLimitDecision {
        let nowMs = now.millisecondsSinceEpoch
        let windowMs = max(Int64((window * 1000).rounded()), 1)
        // One upsert counts the hit and restarts an ended window atomically: concurrent hits on
        // the same counter serialise on its row (SQLite: on the single writer), and a first hit
        // racing another first hit becomes an update rather than a unique violation.
        let counted = try await database.write { db in
            try db.queryOne("""
                INSERT INTO rate_limits (bucket, limit_key, window_start, window_end, hits) VALUES (?, ?, ?, ?, 1)
                ON CONFLICT (bucket, limit_key) DO UPDATE SET
                    hits = CASE WHEN rate_limits.window_end <= excluded.window_start
                                THEN 1 ELSE rate_limits.hits + 1 END,
                    window_start = CASE WHEN rate_limits.window_end <= excluded.window_start
                                        THEN excluded.window_start ELSE rate_limits.window_start END,
                    window_end = CASE WHEN rate_limits.window_end <= excluded.window_start
                                      THEN excluded.window_end ELSE rate_limits.window_end END
                RETURNING hits, window_end
                """, [bucket, key, nowMs, nowMs + windowMs]) { row in (hits: row.int(0), windowEnd: row.int64(1)) }
        }
        guard let counted else { throw StoreError.failure(detail: "rate limit upsert returned no row") }
        let allowed = counted.hits <= limit
        let retryAfter = allowed ? 0 : max(0, Double(counted.windowEnd - nowMs) / 1000)
        return RateLimitDecision(allowed: allowed, count: counted.hits, retryAfter: retryAfter)
    }

    func peek(bucket: String, key: String, now: Date) async throws -> RateLimitWindow? {
        let nowMs = now.millisecondsSinceEpoch
        let window = try await database.read { db in
            try db.queryOne("""
                SELECT hits, window_end FROM rate_limits WHERE bucket = ? AND limit_key = ? AND window_end > ?
                """, [bucket, key, nowMs]) { row in (hits: row.int(0), end: row.int64(1)) }
        }
        return window.map { RateLimitWindow(hits: $0.hits, end: Date(timeIntervalSince1970: Double($0.end) / 1000)) }
    }

    func reset(bucket: String, key: String) async throws {
        _ = try await database.write { db in
            try db.run("DELETE FROM rate_limits WHERE bucket = ? AND limit_key = ?", [bucket, key])
        }
    }

    func purgeExpired(now: Date, limit: Int) async throws -> Int {
        try await rateLimitPurge.run(on: database, cutoff: now, limit: limit)
    }
}

private let rateLimitPurge = SQLBatchPurge(table: "rate_limits", key: "(bucket, limit_key)", condition: "window_end <= ?")
