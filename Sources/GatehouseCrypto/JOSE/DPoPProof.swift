import Foundation

/// A DPoP proof (RFC 9449 §4.2) whose signature holds under the public key in its own header.
///
/// This checks only what the JWS itself says: `typ` is `dpop+jwt`, `alg` is allowed, `jwk` is a
/// public key of that algorithm, the signature verifies, and the claims every proof carries are
/// present and typed. What the *request* must match (`htm`, `htu`, the `iat` window, `ath`, the
/// nonce) and `jti` replay are the caller's checks, because they need the request and the store.
public struct DPoPProof: Sendable, Equatable {
    /// The RFC 7638 thumbprint of the proof's key: what a bound token's `cnf.jkt` names.
    public let thumbprint: String
    /// The proof's public key (private members are refused, never stripped).
    public let jwk: JWK
    public let algorithm: JWSAlgorithm
    public let jti: String
    /// `htm`: the HTTP method, as sent.
    public let method: String
    /// `htu`: the target URI, as sent (compare through ``DPoPProof/normalizedURI(_:)``).
    public let uri: String
    public let issuedAt: Date
    /// `ath`: base64url SHA-256 of the access token, present on resource requests.
    public let accessTokenHash: String?
    /// `nonce`: the server's last `DPoP-Nonce`, when it asked for one.
    public let nonce: String?

    /// Proofs are small (a header with one key and five claims); a large one is refused before parsing.
    public static let maximumBytes = 8 * 1024
    /// `jti` values longer than this are refused (it is stored, hashed, until the proof's window ends).
    public static let maximumJTIBytes = 256

    /// Parses and verifies `proof`; throws ``JOSEError`` naming the first thing wrong.
    public init(_ proof: String, allowedAlgorithms: Set<JWSAlgorithm>) throws(JOSEError) {
        let jws = try CompactJWS(proof, maximumBytes: Self.maximumBytes)
        guard jws.header.type == "dpop+jwt" else { throw .invalidClaim("typ") }
        let algorithm = try jws.checkedAlgorithm(allowed: allowedAlgorithms)
        let jwk = try Self.headerKey(proof)
        guard !jwk.isPrivate, jwk.p == nil, jwk.q == nil, jwk.dp == nil, jwk.dq == nil, jwk.qi == nil else {
            throw .invalidKey("the jwk header must be a public key")
        }
        let key = try VerificationKey(jwk: jwk)
        try key.verify(signature: jws.signature, for: jws.signingInput, algorithm: algorithm)
        let claims = try JWTClaims(json: jws.payload)
        func string(_ name: String) throws(JOSEError) -> String {
            guard let value = claims.all[name] else { throw .missingClaim(name) }
            guard let text = value.stringValue, !text.isEmpty else { throw .invalidClaim(name) }
            return text
        }
        func optional(_ name: String) throws(JOSEError) -> String? {
            claims.all[name] == nil ? nil : try string(name)
        }
        let jti = try string("jti")
        guard jti.utf8.count <= Self.maximumJTIBytes else { throw .invalidClaim("jti") }
        guard let issuedAt = claims.issuedAt else { throw .missingClaim("iat") }
        self.thumbprint = try jwk.thumbprint()
        self.jwk = jwk
        self.algorithm = algorithm
        self.jti = jti
        self.method = try string("htm")
        self.uri = try string("htu")
        self.issuedAt = issuedAt
        self.accessTokenHash = try optional("ath")
        self.nonce = try optional("nonce")
    }

    /// The `jwk` member of the protected header (``JWSHeader`` models only what every JWS has).
    private static func headerKey(_ proof: String) throws(JOSEError) -> JWK {
        guard let dot = proof.utf8.firstIndex(of: UInt8(ascii: ".")),
              let header = Base64URL.decode(String(proof[..<dot])),
              case .object(let members)? = JSONParser.parse(header) else { throw .malformedToken }
        guard case .object(let key)? = members["jwk"] else { throw .missingClaim("jwk") }
        guard let data = try? JSONEncoder().encode(JSONValue.object(key)) else { throw .malformedJSON }
        // Private members are looked for in the raw object too: JWK drops members it does not model.
        for member in ["d", "p", "q", "dp", "dq", "qi", "k"] where key[member] != nil {
            throw .invalidKey("the jwk header must be a public key")
        }
        return try JWK(json: data)
    }

    /// `ath` for an access token: base64url(SHA-256(ASCII token)) (RFC 9449 §4.2).
    public static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(accessToken))
    }

    /// RFC 9449 §4.3 item 9: the URI without query and fragment, scheme and host lower-cased and
    /// the default port dropped (RFC 3986 §6.2.2–6.2.3), so `HTTPS://Id.Example.com:443/oauth/token?x`
    /// and `https://id.example.com/oauth/token` compare equal. nil for anything that is not an
    /// absolute http(s) URI.
    public static func normalizedURI(_ uri: String) -> String? {
        guard var components = URLComponents(string: uri), let scheme = components.scheme?.lowercased(),
              scheme == "https" || scheme == "http", let host = components.host, !host.isEmpty else { return nil }
        components.scheme = scheme
        components.host = host.lowercased()
        if (scheme == "https" && components.port == 443) || (scheme == "http" && components.port == 80) { components.port = nil }
        components.query = nil
        components.fragment = nil
        components.user = nil
        components.password = nil
        if components.path.isEmpty { components.path = "/" }
        return components.string
    }
}
