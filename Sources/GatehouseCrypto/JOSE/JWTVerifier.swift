import Foundation

/// A JWT whose signature and claims have been verified.
public struct VerifiedJWT: Sendable {
    /// The protected header.
    public let header: JWSHeader
    /// The verified algorithm.
    public let algorithm: JWSAlgorithm
    /// The validated claims.
    public let claims: JWTClaims
}

/// A set of verification keys looked up by `kid`, e.g. our own published keys or a parsed JWKS.
public struct VerificationKeySet: Sendable {
    /// The usable keys, in document order.
    public let keys: [VerificationKey]
    /// Keys of the source JWKS that could not be used (unsupported type, weak RSA, …), with the reason.
    public let skipped: [(jwk: JWK, reason: JOSEError)]

    /// Builds the usable keys of `jwks`; unusable keys are skipped rather than failing the whole set,
    /// because providers publish keys for other purposes (encryption, other curves) next to ours.
    public init(jwks: JWKSet) {
        var keys: [VerificationKey] = []
        var skipped: [(JWK, JOSEError)] = []
        for jwk in jwks.keys {
            do throws(JOSEError) { keys.append(try VerificationKey(jwk: jwk)) } catch { skipped.append((jwk, error)) }
        }
        self.keys = keys
        self.skipped = skipped
    }

    public init(keys: [VerificationKey]) {
        self.keys = keys
        self.skipped = []
    }

    /// The key for a token's `kid` and algorithm.
    ///
    /// With a `kid`, only that key is considered. Without one, the token is accepted only if
    /// exactly one key can do the algorithm — guessing among several would be ambiguous.
    public func key(for keyID: String?, algorithm: JWSAlgorithm) throws(JOSEError) -> VerificationKey? {
        if let keyID {
            return keys.first { $0.keyID == keyID }
        }
        let candidates = keys.filter { $0.kind == algorithm.keyKind }
        return candidates.count == 1 ? candidates[0] : nil
    }
}

/// Verifies compact JWTs: size limit, algorithm allow-list, key choice, signature, then claims.
///
/// ```swift
/// let verifier = JWTVerifier(allowedAlgorithms: [.rs256],
///                            rules: ClaimRules(issuers: ["https://appleid.apple.com"], audiences: ["com.example.app"]))
/// let jwt = try await verifier.verify(idToken, keys: appleKeys)   // appleKeys: RemoteJWKS
/// ```
public struct JWTVerifier: Sendable {
    /// Algorithms accepted; anything else fails with ``JOSEError/algorithmNotAllowed(_:)``.
    public let allowedAlgorithms: Set<JWSAlgorithm>
    /// The claim requirements.
    public let rules: ClaimRules
    /// Tokens longer than this fail with ``JOSEError/tokenTooLarge(limit:)`` before parsing.
    public let maximumTokenBytes: Int

    public init(allowedAlgorithms: Set<JWSAlgorithm>, rules: ClaimRules,
                maximumTokenBytes: Int = CompactJWS.defaultMaximumBytes) {
        precondition(!allowedAlgorithms.isEmpty, "a verifier must allow at least one algorithm")
        self.allowedAlgorithms = allowedAlgorithms
        self.rules = rules
        self.maximumTokenBytes = maximumTokenBytes
    }

    /// Verifies `token` against one known key.
    public func verify(_ token: String, key: VerificationKey, now: Date = Date()) throws(JOSEError) -> VerifiedJWT {
        let jws = try CompactJWS(token, maximumBytes: maximumTokenBytes)
        let algorithm = try jws.checkedAlgorithm(allowed: allowedAlgorithms)
        return try finish(jws, algorithm: algorithm, key: key, now: now)
    }

    /// Verifies `token` against a local key set (e.g. our own keys).
    public func verify(_ token: String, keys: VerificationKeySet, now: Date = Date()) throws(JOSEError) -> VerifiedJWT {
        let jws = try CompactJWS(token, maximumBytes: maximumTokenBytes)
        let algorithm = try jws.checkedAlgorithm(allowed: allowedAlgorithms)
        guard let key = try keys.key(for: jws.header.keyID, algorithm: algorithm) else {
            throw .unknownKey(kid: jws.header.keyID)
        }
        return try finish(jws, algorithm: algorithm, key: key, now: now)
    }

    /// Verifies `token` against a remote JWKS, refetching it once if the `kid` is unknown.
    public func verify(_ token: String, keys: RemoteJWKS, now: Date = Date()) async throws(JOSEError) -> VerifiedJWT {
        let jws = try CompactJWS(token, maximumBytes: maximumTokenBytes)
        let algorithm = try jws.checkedAlgorithm(allowed: allowedAlgorithms)
        let key = try await keys.key(for: jws.header.keyID, algorithm: algorithm)
        return try finish(jws, algorithm: algorithm, key: key, now: now)
    }

    private func finish(_ jws: CompactJWS, algorithm: JWSAlgorithm, key: VerificationKey, now: Date) throws(JOSEError) -> VerifiedJWT {
        try key.verify(signature: jws.signature, for: jws.signingInput, algorithm: algorithm)
        // Claims are parsed only after the signature holds: unauthenticated JSON gets no further.
        let claims = try JWTClaims(json: jws.payload)
        try rules.validate(claims, now: now)
        return VerifiedJWT(header: jws.header, algorithm: algorithm, claims: claims)
    }
}

/// Creates signed JWTs with one of our keys.
public enum JWTSigner {
    /// Signs a claim set given as JSON values (the fast path: no `JSONEncoder`). `keyID`
    /// overrides the header `kid` (default: the key's thumbprint).
    public static func sign(_ claims: [String: JSONValue], with key: SigningKey, keyID: String? = nil, type: String = "JWT") throws(JOSEError) -> String {
        try CompactJWS.sign(payload: JSONValue.object(claims).jsonBytes, with: key, keyID: keyID, type: type)
    }

    /// Signs `claims` (any Encodable, e.g. a struct or `[String: JSONValue]`) with `key`.
    /// `type` goes into the `typ` header (RFC 9068 access tokens use "at+jwt").
    public static func sign(_ claims: some Encodable, with key: SigningKey, keyID: String? = nil, type: String = "JWT") throws(JOSEError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let payload: Data
        do { payload = try encoder.encode(claims) } catch { throw .invalidClaim("claims are not encodable") }
        return try CompactJWS.sign(payload: [UInt8](payload), with: key, keyID: keyID, type: type)
    }
}
