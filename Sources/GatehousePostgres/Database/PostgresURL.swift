import Foundation
import GatehouseStore

/// The parts of a `postgres://` URL as libpq keywords; see `PostgresConfiguration`.
///
/// Parsed here rather than handed to libpq as a URI so that Gatehouse's own query parameters
/// can be taken out and every value reaches libpq as a separate, decoded keyword value.
struct PostgresURL {
    /// Keyword → decoded value, including the query parameters (not yet validated).
    private(set) var parameters: [String: String] = [:]

    init(_ url: String) throws {
        let lowered = url.lowercased()
        guard let scheme = ["postgres://", "postgresql://"].first(where: { lowered.hasPrefix($0) }) else {
            throw StoreError.invalidConfiguration(detail: "database URL must start with postgres:// or postgresql://")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        var authority = rest
        if let slash = rest.firstIndex(of: "/") {
            authority = rest[..<slash]
            let database = try Self.decode(rest[rest.index(after: slash)...], "database name")
            if !database.isEmpty { parameters["dbname"] = database }
        }
        if let at = authority.lastIndex(of: "@") {
            let userInfo = authority[..<at]
            authority = authority[authority.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                parameters["user"] = try Self.decode(userInfo[..<colon], "user")
                parameters["password"] = try Self.decode(userInfo[userInfo.index(after: colon)...], "password")
            } else if !userInfo.isEmpty {
                parameters["user"] = try Self.decode(userInfo, "user")
            }
        }
        if !authority.isEmpty { try parseHosts(authority) }
        for pair in query.split(separator: "&") where !pair.isEmpty {
            guard let equals = pair.firstIndex(of: "=") else {
                throw StoreError.invalidConfiguration(detail: "postgres URL parameter without value: \(pair)")
            }
            let key = try Self.decode(pair[..<equals], "parameter name")
            parameters[key] = try Self.decode(pair[pair.index(after: equals)...], "parameter \(key)")
        }
    }

    /// `host`, `host:port`, `[v6]:port`, or a comma-separated list of those (libpq tries each).
    private mutating func parseHosts(_ authority: Substring) throws {
        var hosts: [String] = []
        var ports: [String] = []
        for entry in authority.split(separator: ",", omittingEmptySubsequences: false) {
            var host = entry
            var port: Substring = ""
            if host.hasPrefix("[") {
                guard let close = host.firstIndex(of: "]") else {
                    throw StoreError.invalidConfiguration(detail: "postgres URL: unterminated IPv6 address")
                }
                let after = host[host.index(after: close)...]
                if after.hasPrefix(":") { port = after.dropFirst() } else if !after.isEmpty {
                    throw StoreError.invalidConfiguration(detail: "postgres URL: junk after IPv6 address")
                }
                host = host[host.index(after: host.startIndex)..<close]
            } else if let colon = host.lastIndex(of: ":") {
                port = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            if !port.isEmpty {
                guard let number = Int(port), (1...65_535).contains(number) else {
                    throw StoreError.invalidConfiguration(detail: "postgres URL: bad port \(port)")
                }
            }
            hosts.append(try Self.decode(host, "host"))
            ports.append(String(port))
        }
        if hosts.contains(where: { !$0.isEmpty }) { parameters["host"] = hosts.joined(separator: ",") }
        if ports.contains(where: { !$0.isEmpty }) { parameters["port"] = ports.joined(separator: ",") }
    }

    private static func decode(_ part: Substring, _ what: String) throws -> String {
        guard let decoded = String(part).removingPercentEncoding else {
            throw StoreError.invalidConfiguration(detail: "postgres URL: bad percent-encoding in \(what)")
        }
        return decoded
    }
}
