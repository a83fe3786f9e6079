import Foundation
import GatehouseStore
import Synchronization

/// Purges expired rows (sessions, codes, flow states, one-time tokens, refresh tokens, revoked
/// access-token rows, rate-limit counters, processed provider events, retired signing keys) in the
/// background, then runs the shared ``MaintenanceJob``s (provider-token revocations).
///
/// Every process runs the loop, but only the one holding the `maintenance` lease purges, so
/// several processes on one database do not all scan the same tables. Each purge deletes at most
/// `batchSize` rows in its own short statement (fewer when a batch held the writer longer than
/// ``WriterHoldPacing/holdTarget``), rests as long as the batch took, and a run stops after
/// `batchSize × maxBatchesPerTable` rows per table, so no lock is held for long and a backlog
/// drains over several runs instead of in one big transaction. The lease outlives a few intervals:
/// if its holder dies, another process takes over once it expires.
public final class MaintenanceService: Sendable {
    /// How often and how much.
    public struct Settings: Sendable, Equatable {
        /// Seconds between runs (config `maintenance.interval_seconds`).
        public var interval: TimeInterval
        /// Rows deleted per statement at most (pacing makes it fewer on a slow table).
        public var batchSize: Int
        /// A run's rows per table are at most `batchSize` times this, so one run stays short even with a large backlog.
        public var maxBatchesPerTable: Int

        public init(interval: TimeInterval = 60, batchSize: Int = 500, maxBatchesPerTable: Int = 20) {
            self.interval = interval; self.batchSize = batchSize; self.maxBatchesPerTable = maxBatchesPerTable
        }

        /// Long enough that a holder renews it several times before it can lapse, short enough
        /// that another process takes over soon after the holder dies.
        public var leaseTTL: TimeInterval { max(interval * 3, 10) }
    }

    /// What one run removed, by table; `skipped` when another process holds the lease.
    public struct Report: Sendable, Equatable {
        public var purged: [(table: String, rows: Int)]
        /// What each ``MaintenanceJob`` completed in this run.
        public var jobs: [(name: String, done: Int)] = []
        public var skipped: Bool

        public init(purged: [(table: String, rows: Int)], jobs: [(name: String, done: Int)] = [], skipped: Bool) {
            self.purged = purged; self.jobs = jobs; self.skipped = skipped
        }

        public var total: Int { purged.reduce(0) { $0 + $1.rows } }

        public static func == (lhs: Report, rhs: Report) -> Bool {
            lhs.skipped == rhs.skipped && lhs.purged.map(\.table) == rhs.purged.map(\.table)
                && lhs.purged.map(\.rows) == rhs.purged.map(\.rows)
                && lhs.jobs.map(\.name) == rhs.jobs.map(\.name) && lhs.jobs.map(\.done) == rhs.jobs.map(\.done)
        }
    }

    /// The lease name in the `leases` table.
    public static let leaseName = "maintenance"

    public let settings: Settings
    /// This process's identity in the lease table (random per service instance).
    public let holder: String
    let database: Stores
    let clock: IdentityClock
    let onReport: @Sendable (Report) -> Void
    let onError: @Sendable (any Error) -> Void
    /// Shared work run after the purges, by the lease holder only.
    let jobs: [MaintenanceJob]
    private let loop = Mutex<Task<Void, Never>?>(nil)
    /// Each table's batch size as ``WriterHoldPacing`` last left it, so the next run starts there.
    private let pacedSizes = Mutex<[String: Int]>([:])

    /// - Parameters:
    ///   - onReport: called after every run that held the lease (for logs and metrics).
    ///   - onError: called when a run fails (e.g. the database is down); the loop goes on.
    public init(stores: Stores, settings: Settings = Settings(), clock: IdentityClock = .system,
                holder: String = "process-\(UUID().uuidString.lowercased())", jobs: [MaintenanceJob] = [],
                onReport: @escaping @Sendable (Report) -> Void = { _ in },
                onError: @escaping @Sendable (any Error) -> Void = { _ in }) {
        self.database = stores; self.settings = settings; self.clock = clock; self.holder = holder
        self.onReport = onReport; self.onError = onError; self.jobs = jobs
    }

    /// One run: takes (or renews) the lease, then purges every table in batches.
    @discardableResult
    public func runOnce() async throws -> Report {
        guard try await database.leases.acquire(name: Self.leaseName, holder: holder, ttl: settings.leaseTTL,
                                                now: clock.now()) else {
            return Report(purged: [], skipped: true)
        }
        var report = Report(purged: [], skipped: false)
        // The lease is taken once per run: a run that outlasted half of it could overlap the next holder's.
        let deadline = ContinuousClock.now.advanced(by: .seconds(settings.leaseTTL / 2))
        let pacing = WriterHoldPacing(largest: settings.batchSize)
        let budget = settings.batchSize * max(settings.maxBatchesPerTable, 1)
        for (table, purge) in purges() {
            let start = pacedSizes.withLock { $0[table] } ?? settings.batchSize
            let (rows, next) = try await pacing.run(startingAt: start, budget: budget, until: deadline) { [clock] limit in
                try await purge(clock.now(), limit)
            }
            pacedSizes.withLock { $0[table] = next }
            report.purged.append((table, rows))
        }
        for job in jobs {
            try Task.checkCancellation()
            // One failing job (an upstream outage) must not stop the others or the next run.
            do { report.jobs.append((job.name, try await job.run(clock.now()))) } catch is CancellationError {
                throw CancellationError()
            } catch {
                onError(error)
                report.jobs.append((job.name, 0))
            }
        }
        return report
    }

    /// Starts the background loop (first run after one interval); a second call does nothing.
    public func start() {
        loop.withLock { task in
            guard task == nil else { return }
            task = Task { [self] in
                while !Task.isCancelled {
                    do {
                        try await Task.sleep(for: .seconds(settings.interval))
                    } catch { return }
                    do {
                        let report = try await runOnce()
                        if !report.skipped { onReport(report) }
                    } catch is CancellationError {
                        return
                    } catch {
                        onError(error)
                    }
                }
            }
        }
    }

    /// Stops the loop, waits for a run in progress to finish its current batch, and gives the
    /// lease up so another process can take over without waiting for it to expire.
    public func stop() async {
        guard let task = loop.withLock({ task -> Task<Void, Never>? in defer { task = nil }; return task }) else { return }
        task.cancel()
        await task.value
        try? await database.leases.release(name: Self.leaseName, holder: holder)
    }

    /// What a run touches: the lease, and every table it purges (most of the database, named one by one).
    public struct Stores: Sendable {
        let leases: any LeaseStore
        let sessions: any SessionStore
        let authorizationCodes: any AuthorizationCodeStore
        let flowStates: any FlowStateStore
        let webAuthnChallenges: any WebAuthnChallengeStore
        let oneTimeTokens: any OneTimeTokenStore
        let refreshTokens: any RefreshTokenStore
        let revokedAccessTokens: any RevokedAccessTokenStore
        let rateLimits: any RateLimitStore
        let providerEvents: any ProviderEventStore
        let signingKeys: any SigningKeyStore

        /// The lease and the purged tables of `database`.
        public init(database: any GatehouseDatabase) {
            leases = database.leases; sessions = database.sessions; authorizationCodes = database.authorizationCodes
            flowStates = database.flowStates; webAuthnChallenges = database.webAuthnChallenges; oneTimeTokens = database.oneTimeTokens
            refreshTokens = database.refreshTokens; revokedAccessTokens = database.revokedAccessTokens; rateLimits = database.rateLimits
            providerEvents = database.providerEvents; signingKeys = database.signingKeys
        }
    }

    /// The tables a run purges, in its order (what `Report.purged` lists; metrics show each from start).
    public static let purgedTables = ["sessions", "authorization_codes", "flow_states", "webauthn_challenges", "one_time_tokens", "refresh_tokens",
                                      "revoked_access_tokens", "rate_limits", "provider_events", "signing_keys"]

    /// Each table's batched purge, in a fixed order (children before what they might refer to).
    private func purges() -> [(String, @Sendable (Date, Int) async throws -> Int)] {
        let db = database
        return [
            ("sessions", { try await db.sessions.purgeExpired(now: $0, limit: $1) }),
            ("authorization_codes", { try await db.authorizationCodes.purgeExpired(now: $0, limit: $1) }),
            ("flow_states", { try await db.flowStates.purgeExpired(now: $0, limit: $1) }),
            ("webauthn_challenges", { try await db.webAuthnChallenges.purgeExpired(now: $0, limit: $1) }),
            ("one_time_tokens", { try await db.oneTimeTokens.purgeExpired(now: $0, limit: $1) }),
            ("refresh_tokens", { try await db.refreshTokens.purgeExpired(now: $0, limit: $1) }),
            ("revoked_access_tokens", { try await db.revokedAccessTokens.purgeExpired(now: $0, limit: $1) }),
            ("rate_limits", { try await db.rateLimits.purgeExpired(now: $0, limit: $1) }),
            // Processed provider notifications: kept 30 days (Apple's retries and replays come within one).
            ("provider_events", { try await db.providerEvents.purge(receivedBefore: $0.addingTimeInterval(-30 * 86_400), limit: $1) }),
            // A handful of rows at most: one statement, no batching needed.
            ("signing_keys", { now, _ in try await db.signingKeys.deleteExpired(now: now) }),
        ]
    }
}
