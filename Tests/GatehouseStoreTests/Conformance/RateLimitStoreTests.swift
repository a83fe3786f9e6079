import Foundation
import GatehouseStore
import Testing

@Suite("RateLimitStore conformance")
struct RateLimitStoreTests {
    @Test(arguments: StoreBackends.all)
    func allowsExactlyLimitThenReportsRetryAfter(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let limits = db.rateLimits
            for index in 1...5 {
                let decision = try await limits.hit(bucket: "login", key: "1.2.3.4", window: 60, limit: 5,
                                                    now: TestTime.at(Double(index)))
                #expect(decision == RateLimitDecision(allowed: true, count: index, retryAfter: 0))
            }
            let denied = try await limits.hit(bucket: "login", key: "1.2.3.4", window: 60, limit: 5, now: TestTime.at(10))
            #expect(denied == RateLimitDecision(allowed: false, count: 6, retryAfter: 51))  // window 1…61
            let stillDenied = try await limits.hit(bucket: "login", key: "1.2.3.4", window: 60, limit: 5,
                                                   now: TestTime.at(60.5))
            #expect(stillDenied.allowed == false)
            #expect(stillDenied.retryAfter == 0.5)

            // The window ends at 61: a fresh window starts with count 1.
            let fresh = try await limits.hit(bucket: "login", key: "1.2.3.4", window: 60, limit: 5, now: TestTime.at(61))
            #expect(fresh == RateLimitDecision(allowed: true, count: 1, retryAfter: 0))
        }
    }

    @Test(arguments: StoreBackends.all)
    func countersAreIndependentPerBucketAndKey(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let limits = db.rateLimits
            _ = try await limits.hit(bucket: "login", key: "a", window: 60, limit: 1, now: TestTime.at(0))
            #expect(try await limits.hit(bucket: "login", key: "a", window: 60, limit: 1, now: TestTime.at(0)).allowed == false)
            #expect(try await limits.hit(bucket: "login", key: "b", window: 60, limit: 1, now: TestTime.at(0)).allowed)
            #expect(try await limits.hit(bucket: "reset", key: "a", window: 60, limit: 1, now: TestTime.at(0)).allowed)
        }
    }

    @Test(arguments: StoreBackends.all)
    func resetForgetsTheCounter(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let limits = db.rateLimits
            for _ in 0..<3 { _ = try await limits.hit(bucket: "login", key: "a", window: 60, limit: 2, now: TestTime.at(0)) }
            try await limits.reset(bucket: "login", key: "a")
            try await limits.reset(bucket: "login", key: "never-hit")
            #expect(try await limits.hit(bucket: "login", key: "a", window: 60, limit: 2, now: TestTime.at(1)).count == 1)
        }
    }

    @Test(arguments: StoreBackends.all)
    func concurrentHitsAllowExactlyLimit(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let limits = db.rateLimits
            let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<40 {
                    group.addTask {
                        try await limits.hit(bucket: "token", key: "client", window: 60, limit: 7, now: TestTime.at(0)).allowed
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(allowed == 7)
        }
    }

    @Test(arguments: StoreBackends.all)
    func purgeExpiredCounters(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let limits = db.rateLimits
            _ = try await limits.hit(bucket: "b", key: "old", window: 10, limit: 1, now: TestTime.at(0))
            _ = try await limits.hit(bucket: "b", key: "new", window: 10, limit: 1, now: TestTime.at(5))
            #expect(try await limits.purgeExpired(now: TestTime.at(10), limit: 100) == 1)
            #expect(try await limits.hit(bucket: "b", key: "new", window: 10, limit: 1, now: TestTime.at(10)).allowed == false)
        }
    }
}

@Suite("RateLimitStore peek conformance")
struct RateLimitPeekTests {
    @Test(arguments: StoreBackends.all)
    func peekReadsTheLiveWindowWithoutCounting(_ backend: StoreBackend) async throws {
        try await withDatabase(backend) { db in
            let limits = db.rateLimits
            #expect(try await limits.peek(bucket: "login", key: "a", now: TestTime.at(0)) == nil)
            for _ in 0..<3 { _ = try await limits.hit(bucket: "login", key: "a", window: 60, limit: 5, now: TestTime.at(1)) }
            let window = try await limits.peek(bucket: "login", key: "a", now: TestTime.at(2))
            #expect(window == RateLimitWindow(hits: 3, end: TestTime.at(61)))
            #expect(try await limits.peek(bucket: "login", key: "a", now: TestTime.at(30))?.hits == 3, "peeking counts nothing")
            #expect(try await limits.peek(bucket: "login", key: "a", now: TestTime.at(61)) == nil, "the window has ended")
            #expect(try await limits.peek(bucket: "other", key: "a", now: TestTime.at(2)) == nil)
        }
    }
}
