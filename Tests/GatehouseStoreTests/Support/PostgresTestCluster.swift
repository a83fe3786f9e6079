import Foundation
import GatehousePostgres
import GatehouseStore
import Testing

/// The PostgreSQL cluster the tests run against, named by `GATEHOUSE_TEST_POSTGRES_URL`
/// (e.g. `postgres://postgres@127.0.0.1:55432/postgres` from `scripts/postgres start`; the
/// user must be a superuser: tests create schemas and roles and terminate backends).
///
/// Without the variable the PostgreSQL cases are skipped locally with a printed note, but in CI
/// (`CI=true`) they run and fail, so a misconfigured pipeline cannot pass by skipping them.
enum PostgresTestCluster {
    static let environmentVariable = "GATEHOUSE_TEST_POSTGRES_URL"

    static let url: String? = {
        let value = ProcessInfo.processInfo.environment[environmentVariable] ?? ""
        return value.isEmpty ? nil : value
    }()

    static let isCI: Bool = {
        let value = (ProcessInfo.processInfo.environment["CI"] ?? "").lowercased()
        return ["true", "1", "yes"].contains(value)
    }()

    /// Whether PostgreSQL tests are listed at all (they then fail without a URL).
    static let isEnabled: Bool = {
        if url == nil && !isCI {
            print("note: \(environmentVariable) is not set: PostgreSQL store tests are skipped. "
                  + "Run scripts/postgres start and export \(environmentVariable)=$(scripts/postgres url).")
        }
        return url != nil || isCI
    }()

    struct NotConfigured: Error, CustomStringConvertible {
        var description: String {
            "\(PostgresTestCluster.environmentVariable) is not set, but CI=true requires the PostgreSQL store tests: "
                + "run scripts/postgres start and export \(PostgresTestCluster.environmentVariable)=$(scripts/postgres url)"
        }
    }

    static func requireURL() throws -> String {
        guard let url else { throw NotConfigured() }
        return url
    }

    /// Caps the schemas (and so the connection pools) alive at once: Swift Testing runs cases in
    /// parallel, and each pool may open several server processes.
    static let gate = AsyncGate(limit: 6)

    /// `pg_trgm` (the email search's index) installed once, in `public`: had the first test schema's migration
    /// installed it, dropping that schema would take the extension and every other schema's index along.
    private static let trigramExtension = Task<Void, any Error> {
        _ = try await RawPostgres.execute(url: try requireURL(), "CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public")
    }

    /// A new empty schema; databases opened with its `url` see only that schema.
    /// With `owner`, a new login role owns the schema and the URL connects as that role.
    static func makeSchema(ownRole: Bool = false) async throws -> PostgresTestSchema {
        let base = try requireURL()
        try await trigramExtension.value
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let schema = PostgresTestSchema(name: "gh_test_\(suffix)", role: ownRole ? "gh_role_\(suffix)" : nil, baseURL: base)
        if let role = schema.role {
            try await RawPostgres.execute(url: base, """
                CREATE ROLE \(role) LOGIN; CREATE SCHEMA \(schema.name) AUTHORIZATION \(role)
                """)
        } else {
            try await RawPostgres.execute(url: base, "CREATE SCHEMA \(schema.name)")
        }
        return schema
    }
}

/// One test's private schema (and optionally its own login role) in the shared test database.
struct PostgresTestSchema: Sendable {
    let name: String
    let role: String?
    let baseURL: String

    /// A `PostgresDatabase` URL confined to this schema through `search_path`; the
    /// application name lets a test find (and terminate) exactly this schema's connections.
    func url(poolSize: Int = 4, extra: String = "") -> String {
        let separator = baseURL.contains("?") ? "&" : "?"
        var url = baseURL + separator + "options=-c%20search_path%3D\(name)&application_name=\(name)&pool_size=\(poolSize)"
        if let role { url += "&user=\(role)" }
        return url + extra
    }

    /// Terminates every server process serving this schema's pools and waits until they exit.
    @discardableResult
    func terminateConnections() async throws -> Int {
        let rows = try await RawPostgres.execute(url: baseURL, """
            SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '\(name)'
            """)
        return rows.count
    }

    func drop() async {
        var sql = "DROP SCHEMA IF EXISTS \(name) CASCADE"
        if let role {
            sql = """
                SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE usename = '\(role)';
                \(sql); DROP ROLE IF EXISTS \(role)
                """
        }
        do {
            try await RawPostgres.execute(url: baseURL, sql)
        } catch {
            print("warning: could not drop test schema \(name): \(error)")
        }
    }
}

/// A counting semaphore whose waiters suspend instead of blocking a thread.
actor AsyncGate {
    private var available: Int
    private var waiters: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { available = limit }

    func enter() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    func leave() {
        if waiters.isEmpty { available += 1 } else { waiters.removeFirst().resume() }
    }
}

/// Runs `body` with a fresh schema inside the gate, dropping the schema afterwards.
func withPostgresSchema(ownRole: Bool = false, _ body: (PostgresTestSchema) async throws -> Void) async throws {
    _ = try PostgresTestCluster.requireURL()
    await PostgresTestCluster.gate.enter()
    do {
        let schema = try await PostgresTestCluster.makeSchema(ownRole: ownRole)
        do {
            try await body(schema)
        } catch {
            await schema.drop()
            throw error
        }
        await schema.drop()
    } catch {
        await PostgresTestCluster.gate.leave()
        throw error
    }
    await PostgresTestCluster.gate.leave()
}
