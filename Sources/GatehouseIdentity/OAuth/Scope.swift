/// Space-separated OAuth scopes (RFC 6749 §3.3), kept in request order without duplicates.
public struct Scope: Sendable, Equatable, CustomStringConvertible {
    public let values: [String]

    /// The scopes Gatehouse itself understands.
    public static let openID = "openid", profile = "profile", email = "email", offlineAccess = "offline_access"
    public static let standard: Set<String> = [openID, profile, email, offlineAccess]
    /// The admin API's scope: only ever in client-credentials tokens (a client acting for itself), never a user's.
    public static let admin = "admin"
    /// OpenID Connect Core §5.4 scopes Gatehouse has no claims for: ignored when asked for, never an error.
    public static let unsupportedStandard: Set<String> = ["address", "phone"]

    public init(_ values: [String]) {
        var seen = Set<String>()
        self.values = values.filter { seen.insert($0).inserted }
    }

    /// Parses a `scope` parameter; nil when it holds characters RFC 6749 §3.3 forbids.
    public init?(parsing text: String?) {
        guard let text else { self.init([]); return }
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        for part in parts {
            guard part.utf8.allSatisfy({ $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }) else { return nil }
        }
        self.init(parts)
    }

    public func contains(_ scope: String) -> Bool { values.contains(scope) }
    public var isEmpty: Bool { values.isEmpty }
    public var description: String { values.joined(separator: " ") }

    /// Whether every scope here is in `other`.
    public func isSubset(of other: Scope) -> Bool { Set(values).isSubset(of: Set(other.values)) }
}
