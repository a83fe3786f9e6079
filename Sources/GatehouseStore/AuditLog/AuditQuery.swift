import Foundation

/// What `gatehouse audit` asks for: any combination of account, event types, client IP and time range.
public struct AuditQuery: Sendable, Equatable {
    public var userId: String?
    /// Exact event types (`sign_in.failed`); empty means every type.
    public var types: [String]
    public var ip: String?
    /// Inclusive lower and exclusive upper bound on `occurredAt`.
    public var since: Date?
    public var until: Date?
    /// 1…1000.
    public var limit: Int

    public init(userId: String? = nil, types: [String] = [], ip: String? = nil, since: Date? = nil, until: Date? = nil,
                limit: Int = 100) {
        self.userId = userId; self.types = types; self.ip = ip; self.since = since; self.until = until; self.limit = limit
    }

    /// The WHERE clause and its values in order, with `placeholder(n)` for the n-th value (1-based):
    /// `?` for SQLite, `$n` for PostgreSQL. Every value is bound, never spliced into the SQL.
    public func whereClause(placeholder: (Int) -> String) -> (sql: String, values: [QueryValue]) {
        var conditions: [String] = []
        var values: [QueryValue] = []
        func next(_ value: QueryValue) -> String { values.append(value); return placeholder(values.count) }
        if let userId { conditions.append("user_id = \(next(.text(userId)))") }
        if !types.isEmpty { conditions.append("event_type IN (\(types.map { next(.text($0)) }.joined(separator: ", ")))") }
        if let ip { conditions.append("ip = \(next(.text(ip)))") }
        if let since { conditions.append("occurred_at >= \(next(.date(since)))") }
        if let until { conditions.append("occurred_at < \(next(.date(until)))") }
        return (conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "), values)
    }

    /// A value bound into a backend's statement.
    public enum QueryValue: Sendable, Equatable {
        case text(String)
        case date(Date)
    }
}
