import CLibPQ
import Foundation
import GatehouseStore

/// How to reach PostgreSQL and how many connections to keep, usually parsed from a URL:
///
///     postgres://user:pass@host:5432/gatehouse?sslmode=require&pool_size=4&statement_timeout_ms=5000
///
/// `postgresql://` works too. User, password, host and database name are percent-decoded;
/// `host` may be a comma-separated list or a percent-encoded Unix socket folder
/// (`postgres://%2Fvar%2Frun%2Fpostgresql/gatehouse`). Query parameters are libpq connection
/// keywords (`sslmode`, `connect_timeout`, `application_name`, `options`, …, checked against
/// libpq's list) plus two of Gatehouse's own: `pool_size` (default 4) and
/// `statement_timeout_ms` (default 5000; 0 disables).
public struct PostgresConfiguration: Sendable, CustomStringConvertible {
    /// libpq connection keywords and their values (`host`, `port`, `user`, `password`, `dbname`, …).
    public var parameters: [String: String]
    /// Connections kept open at most; operations beyond that wait for a free one.
    public var poolSize: Int
    /// `statement_timeout` set on every connection; a statement running longer fails with
    /// `StoreError.unavailable`. 0 means no limit.
    public var statementTimeoutMilliseconds: Int

    public init(parameters: [String: String], poolSize: Int = 4, statementTimeoutMilliseconds: Int = 5_000) throws {
        for keyword in parameters.keys where !Self.libpqKeywords.contains(keyword) {
            throw StoreError.invalidConfiguration(detail: "postgres: unknown connection parameter \(keyword)")
        }
        guard (1...100).contains(poolSize) else {
            throw StoreError.invalidConfiguration(detail: "postgres: pool_size must be 1…100, got \(poolSize)")
        }
        guard (0...86_400_000).contains(statementTimeoutMilliseconds) else {
            throw StoreError.invalidConfiguration(detail: "postgres: statement_timeout_ms out of range")
        }
        self.parameters = parameters
        self.poolSize = poolSize
        self.statementTimeoutMilliseconds = statementTimeoutMilliseconds
    }

    /// Parses a `postgres://` or `postgresql://` URL; throws `StoreError.invalidConfiguration`.
    public init(url: String) throws {
        let parsed = try PostgresURL(url)
        var parameters = parsed.parameters
        var poolSize = 4
        var timeout = 5_000
        if let value = parameters.removeValue(forKey: "pool_size") {
            guard let number = Int(value) else { throw StoreError.invalidConfiguration(detail: "postgres: pool_size \(value)") }
            poolSize = number
        }
        if let value = parameters.removeValue(forKey: "statement_timeout_ms") {
            guard let number = Int(value) else {
                throw StoreError.invalidConfiguration(detail: "postgres: statement_timeout_ms \(value)")
            }
            timeout = number
        }
        try self.init(parameters: parameters, poolSize: poolSize, statementTimeoutMilliseconds: timeout)
    }

    /// What is handed to `PQconnectdbParams`: the parameters plus defaults a server wants — a
    /// bounded connect timeout (libpq waits forever by default), TCP keepalives that notice a
    /// vanished server host within about half a minute instead of hours, an application name
    /// for `pg_stat_activity`, and UTF-8, which the stores assume. Each can be overridden in
    /// the URL except the encoding.
    var libpqParameters: [(keyword: String, value: String)] {
        var all = parameters
        let defaults = ["connect_timeout": "5", "application_name": "gatehouse",
                        "keepalives_idle": "10", "keepalives_interval": "5", "keepalives_count": "3"]
        for (keyword, value) in defaults where all[keyword] == nil { all[keyword] = value }
        all["client_encoding"] = "UTF8"
        return all.sorted { $0.key < $1.key }.map { (keyword: $0.key, value: $0.value) }
    }

    /// The target without the password, for logs.
    public var description: String {
        let user = parameters["user"].map { "\($0)@" } ?? ""
        let host = parameters["host"] ?? parameters["hostaddr"] ?? "(default host)"
        let port = parameters["port"].map { ":\($0)" } ?? ""
        let database = parameters["dbname"] ?? "(default database)"
        return "postgres://\(user)\(host)\(port)/\(database) (pool \(poolSize))"
    }

    /// Every keyword this libpq accepts, from `PQconndefaults`.
    static let libpqKeywords: Set<String> = {
        var keywords: Set<String> = []
        guard let options = PQconndefaults() else { return keywords }
        defer { PQconninfoFree(options) }
        var index = 0
        while let keyword = options[index].keyword {
            keywords.insert(String(cString: keyword))
            index += 1
        }
        return keywords
    }()
}
