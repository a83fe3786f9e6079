/// A `Set-Cookie` response header (RFC 6265 §4.1) with every attribute.
///
/// Construction validates the name and value, so a handler can never emit a header that splits or
/// injects attributes, and enforces the `__Host-` / `__Secure-` prefix rules browsers apply.
public struct SetCookie: Sendable, Equatable {
    public enum SameSite: String, Sendable { case strict = "Strict", lax = "Lax", none = "None" }

    public enum Invalid: Error, Equatable, Sendable {
        case name, value, attribute, hostPrefixRules, securePrefixRules, sameSiteNoneNeedsSecure
    }

    public let name: String
    public let value: String
    public let maxAge: Int?
    public let path: String?
    public let domain: String?
    public let secure: Bool
    public let httpOnly: Bool
    public let sameSite: SameSite?

    public init(name: String, value: String, maxAge: Int? = nil, path: String? = "/", domain: String? = nil,
                secure: Bool, httpOnly: Bool = true, sameSite: SameSite? = .lax) throws(Invalid) {
        guard !name.isEmpty, name.utf8.allSatisfy(CookieGrammar.isTokenByte) else { throw .name }
        guard value.utf8.allSatisfy(CookieGrammar.isCookieOctet) else { throw .value }
        for attribute in [path, domain].compactMap({ $0 }) {
            // Attribute values may not hold ';' or control characters (they would start a new attribute).
            guard attribute.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ";") }) else {
                throw .attribute
            }
        }
        if name.hasPrefix("__Host-"), !(secure && path == "/" && domain == nil) { throw .hostPrefixRules }
        if name.hasPrefix("__Secure-"), !secure { throw .securePrefixRules }
        if sameSite == SameSite.none, !secure { throw .sameSiteNoneNeedsSecure }
        self.name = name; self.value = value; self.maxAge = maxAge; self.path = path
        self.domain = domain; self.secure = secure; self.httpOnly = httpOnly; self.sameSite = sameSite
    }

    /// A cookie that tells the browser to forget `name` (same path/domain/prefix attributes, `Max-Age=0`).
    public static func expiring(_ name: String, path: String? = "/", domain: String? = nil,
                                secure: Bool) throws(Invalid) -> SetCookie {
        try SetCookie(name: name, value: "", maxAge: 0, path: path, domain: domain, secure: secure,
                      sameSite: .lax)
    }

    /// The header value, e.g. `sid=abc; Max-Age=60; Path=/; Secure; HttpOnly; SameSite=Lax`.
    public var headerValue: String {
        var parts = ["\(name)=\(value)"]
        if let maxAge { parts.append("Max-Age=\(maxAge)") }
        if let path { parts.append("Path=\(path)") }
        if let domain { parts.append("Domain=\(domain)") }
        if secure { parts.append("Secure") }
        if httpOnly { parts.append("HttpOnly") }
        if let sameSite { parts.append("SameSite=\(sameSite.rawValue)") }
        return parts.joined(separator: "; ")
    }
}
