import Foundation
import GatehousePostgres
import GatehouseStore
import Testing

@Suite("PostgreSQL connections", .enabled(if: PostgresTestCluster.isEnabled))
struct PostgresConnectionTests {
    /// `pg_terminate_backend` on every pooled connection (what a server restart does to them):
    /// nothing crashes, any failure is `.unavailable`, and the pool reconnects by itself.
    @Test func reconnectsAfterConnectionsAreTerminated() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url())
            _ = try await db.migrate()
            for round in 0..<3 {
                // Warm several connections so more than one is dead afterwards.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 { group.addTask { _ = try await db.users.count() } }
                    try await group.waitForAll()
                }
                #expect(try await schema.terminateConnections() >= 1)
                for attempt in 0..<8 {
                    do {
                        try await db.users.create(.fixture("r\(round)-\(attempt)"))
                    } catch let error as StoreError {
                        #expect(error.kind == .unavailable, "\(error.detail)")
                    }
                }
                try await db.ping()
                try await db.users.create(.fixture("after\(round)"))
                #expect(try await db.users.find(id: "after\(round)") != nil)
            }
            await db.close()
        }
    }

    /// A real outage for this schema's role: its connections are killed and new ones refused
    /// until the role may log in again, standing in for a stopped server without disturbing the
    /// tests that share the cluster.
    @Test func outageIsUnavailableThenRecovers() async throws {
        try await withPostgresSchema(ownRole: true) { schema in
            let role = try #require(schema.role)
            let db = try await PostgresDatabase.open(url: schema.url())
            _ = try await db.migrate()
            try await db.users.create(.fixture("before"))

            try await RawPostgres.execute(url: schema.baseURL, "ALTER ROLE \(role) NOLOGIN")
            try await schema.terminateConnections()
            await expectStoreError(.unavailable) { try await db.ping() }
            await expectStoreError(.unavailable) { try await db.users.create(.fixture("during")) }
            await expectStoreError(.unavailable) { _ = try await db.users.find(id: "before") }

            try await RawPostgres.execute(url: schema.baseURL, "ALTER ROLE \(role) LOGIN")
            try await db.ping()
            #expect(try await db.users.find(id: "before") != nil)
            try await db.users.create(.fixture("after"))
            #expect(try await db.users.count() == 2)
            await db.close()
        }
    }

    /// `statement_timeout` is set on every connection: a statement stuck behind another
    /// session's row lock is cancelled (57014) and reported as `.unavailable`.
    @Test func statementTimeoutApplies() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url(extra: "&statement_timeout_ms=200"))
            _ = try await db.migrate()
            try await db.users.create(.fixture("u1"))
            try await db.oneTimeTokens.create(OneTimeTokenStoreTests.token("locked"))

            let other = try RawPostgresConnection(url: schema.baseURL)
            try other.execute("BEGIN; SELECT 1 FROM \(schema.name).one_time_tokens FOR UPDATE")
            let started = ContinuousClock.now
            await expectStoreError(.unavailable) {
                _ = try await db.oneTimeTokens.consume(hash: testHash("locked"), purpose: .passwordReset, now: TestTime.at(1))
            }
            // Without the timeout the statement waits until the ROLLBACK below, i.e. forever: any bound proves it, and
            // a generous one survives a loaded machine (6.8 s was seen for the 200 ms timeout).
            #expect(ContinuousClock.now - started < .seconds(30))
            try other.execute("ROLLBACK")
            // The cancelled statement burned nothing, and the connection is still good.
            #expect(try await db.oneTimeTokens.consume(hash: testHash("locked"), purpose: .passwordReset,
                                                       now: TestTime.at(1)) != nil)
            await db.close()
        }
    }

    @Test func closedDatabaseIsUnavailable() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url())
            try await db.ping()
            await db.close()
            await db.close()  // idempotent
            await expectStoreError(.unavailable) { try await db.ping() }
            await expectStoreError(.unavailable) { _ = try await db.users.count() }
        }
    }

    @Test func unreachableServerIsUnavailable() async throws {
        _ = try PostgresTestCluster.requireURL()
        // Port 1 on loopback: refused at once.
        await expectStoreError(.unavailable) {
            _ = try await PostgresDatabase.open(url: "postgres://postgres@127.0.0.1:1/postgres?connect_timeout=2")
        }
    }

    @Test func errorsDoNotLeakPostgresText() async throws {
        try await withPostgresSchema { schema in
            let db = try await PostgresDatabase.open(url: schema.url())
            _ = try await db.migrate()
            try await db.signingKeys.insert(SigningKeyStoreTests.key("dup"))
            do {
                try await db.signingKeys.insert(SigningKeyStoreTests.key("dup"))
                Issue.record("expected conflict")
            } catch let error as StoreError {
                #expect(error.kind == .conflict)
                #expect(!"\(error)".localizedCaseInsensitiveContains("postgres"))
                #expect(!"\(error)".contains("duplicate key"))
                #expect(error.detail.contains("23505"))  // kept for logs
                #expect(error.detail.contains("duplicate key"))
            }
            // Text PostgreSQL cannot store is the caller's error, not a crash or a truncation.
            await expectStoreError(.invalidArgument) { try await db.users.create(.fixture("nul", email: "a\u{0}b@example.test")) }
            await db.close()
        }
    }
}
