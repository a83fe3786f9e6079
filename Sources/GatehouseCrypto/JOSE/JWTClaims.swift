import Foundation

/// The claims of a JWT (RFC 7519 §4): registered claims typed, everything else as ``JSONValue``.
public struct JWTClaims: Sendable, Hashable {
    /// Every claim as parsed.
    public let all: [String: JSONValue]

    /// Parses a JWT payload; it must be a JSON object whose registered claims have the right types.
    public init(json: some DataProtocol) throws(JOSEError) {
        guard case .object(let all)? = JSONParser.parse([UInt8](json)) else { throw .malformedJSON }
        try self.init(all: all)
    }

    /// Wraps already-parsed claims after checking the registered claims' types.
    public init(all: [String: JSONValue]) throws(JOSEError) {
        self.all = all
        for name in ["iss", "sub", "jti"] where all[name] != nil && all[name]?.stringValue == nil {
            throw .invalidClaim(name)
        }
        for name in ["exp", "nbf", "iat"] where all[name] != nil && all[name]?.numberValue == nil {
            throw .invalidClaim(name)
        }
        if let aud = all["aud"] {
            switch aud {
            case .string: break
            case .array(let values) where values.allSatisfy({ $0.stringValue != nil }): break
            default: throw .invalidClaim("aud")
            }
        }
    }

    /// `iss`.
    public var issuer: String? { all["iss"]?.stringValue }
    /// `sub`.
    public var subject: String? { all["sub"]?.stringValue }
    /// `jti`.
    public var jwtID: String? { all["jti"]?.stringValue }
    /// `aud`, normalised to an array (RFC 7519 allows a single string).
    public var audience: [String] {
        switch all["aud"] {
        case .string(let value): [value]
        case .array(let values): values.compactMap(\.stringValue)
        default: []
        }
    }
    /// `exp`, `nbf`, `iat` as dates.
    public var expiresAt: Date? { date("exp") }
    public var notBefore: Date? { date("nbf") }
    public var issuedAt: Date? { date("iat") }

    /// A string claim; throws ``JOSEError/invalidClaim(_:)`` if present with another type.
    public func string(_ name: String) throws(JOSEError) -> String? {
        guard let value = all[name] else { return nil }
        guard let string = value.stringValue else { throw .invalidClaim(name) }
        return string
    }

    /// A boolean claim in either JSON or string form (see ``BooleanClaim``).
    public func boolean(_ name: String) throws(JOSEError) -> Bool? {
        guard let value = all[name] else { return nil }
        guard let claim = BooleanClaim(value) else { throw .invalidClaim(name) }
        return claim.value
    }

    /// Decodes the whole claim set into a caller-defined type, e.g. a provider's id_token claims.
    public func decode<T: Decodable>(_ type: T.Type) throws(JOSEError) -> T {
        let data = JSONCoding.encode(all)
        do { return try JSONDecoder().decode(type, from: data) } catch { throw .invalidClaim(String(describing: error)) }
    }

    private func date(_ name: String) -> Date? {
        all[name]?.numberValue.map { Date(timeIntervalSince1970: $0) }
    }
}

/// What a JWT's claims must satisfy. Time checks allow `leeway` seconds of clock skew.
public struct ClaimRules: Sendable {
    /// Accepted `iss` values; `nil` skips the check (only sensible when the key pins the issuer).
    public var issuers: Set<String>?
    /// Accepted audiences; the token passes if any of its `aud` values is accepted. `nil` skips.
    public var audiences: Set<String>?
    /// Allowed clock skew in seconds for `exp`, `nbf` and `iat`.
    public var leeway: TimeInterval
    /// Whether `exp` must be present (it should be for every token we accept).
    public var requireExpiration: Bool
    /// Further claims that must be present, e.g. `sub`.
    public var requiredClaims: Set<String>

    public init(issuers: Set<String>?, audiences: Set<String>?, leeway: TimeInterval = 60,
                requireExpiration: Bool = true, requiredClaims: Set<String> = []) {
        self.issuers = issuers
        self.audiences = audiences
        self.leeway = leeway
        self.requireExpiration = requireExpiration
        self.requiredClaims = requiredClaims
    }

    /// Validates `claims` at time `now`.
    public func validate(_ claims: JWTClaims, now: Date) throws(JOSEError) {
        let now = now.timeIntervalSince1970
        if let exp = claims.all["exp"]?.numberValue {
            // RFC 7519 §4.1.4: the current time must be *before* exp.
            guard now < exp + leeway else { throw .expired }
        } else if requireExpiration {
            throw .missingClaim("exp")
        }
        if let nbf = claims.all["nbf"]?.numberValue, now + leeway < nbf { throw .notYetValid }
        if let iat = claims.all["iat"]?.numberValue, now + leeway < iat { throw .issuedInFuture }
        if let issuers {
            guard let iss = claims.issuer else { throw .missingClaim("iss") }
            guard issuers.contains(iss) else { throw .wrongIssuer }
        }
        if let audiences {
            let aud = claims.audience
            guard !aud.isEmpty else { throw .missingClaim("aud") }
            guard aud.contains(where: audiences.contains) else { throw .wrongAudience }
        }
        for name in requiredClaims.sorted() where claims.all[name] == nil { throw .missingClaim(name) }
    }
}
