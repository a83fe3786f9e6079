import Foundation

/// Validates an ID token per OIDC Core §3.1.3.7: algorithm, signature, `iss`, `aud`/`azp`,
/// `exp`/`iat` with leeway, and `nonce`.
public struct IDTokenValidator: Sendable {
    /// Asymmetric algorithms only: `HS*` would make the client secret a signing key, and
    /// `none` is never acceptable.
    public static let defaultAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

    public var issuer: String
    public var clientID: String
    /// Seconds of clock skew tolerated on `exp` and `iat`.
    public var leeway: TimeInterval
    public var allowedAlgorithms: Set<String>
    public var now: @Sendable () -> Date

    public init(
        issuer: String, clientID: String, leeway: TimeInterval = 60,
        allowedAlgorithms: Set<String> = IDTokenValidator.defaultAlgorithms,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.issuer = issuer
        self.clientID = clientID
        self.leeway = leeway
        self.allowedAlgorithms = allowedAlgorithms
        self.now = now
    }

    /// Returns the claims of `token` if every check passes.
    ///
    /// - Parameter nonce: the nonce sent on the authorization request; when non-nil the token
    ///   must carry the same value.
    public func validate(_ token: String, nonce: String?, signatureCheck: IDTokenSignatureCheck) throws -> IDTokenClaims {
        let jws = try CompactJWS(token)
        // `none` is refused even if a provider lists it, whatever `allowedAlgorithms` says.
        guard jws.header.alg.lowercased() != "none", allowedAlgorithms.contains(jws.header.alg),
              IDTokenValidator.defaultAlgorithms.contains(jws.header.alg) else {
            throw IDTokenError.algorithmNotAllowed(jws.header.alg)
        }
        switch signatureCheck {
        case .verify(let verifier, let jwks):
            guard !jws.signature.isEmpty else { throw IDTokenError.signatureInvalid }
            try verifier.verify(signingInput: jws.signingInput, signature: jws.signature, header: jws.header, jwks: jwks)
        case .trustTokenEndpointTLS:
            break
        }

        let claims = try IDTokenClaims(payload: jws.payload)
        guard claims.issuer == issuer else { throw IDTokenError.issuerMismatch(expected: issuer, actual: claims.issuer) }
        guard claims.audience.contains(clientID) else { throw IDTokenError.audienceMismatch }
        if claims.audience.count > 1 && claims.authorizedParty == nil { throw IDTokenError.authorizedPartyMismatch }
        if let azp = claims.authorizedParty, azp != clientID { throw IDTokenError.authorizedPartyMismatch }
        let current = now()
        guard current.timeIntervalSince(claims.expiresAt) < leeway else { throw IDTokenError.expired }
        guard claims.issuedAt.timeIntervalSince(current) <= leeway else { throw IDTokenError.issuedInFuture }
        if let nonce {
            guard let actual = claims.nonce else { throw IDTokenError.nonceMissing }
            guard AuthorizationCallback.constantTimeEquals(actual, nonce) else { throw IDTokenError.nonceMismatch }
        }
        return claims
    }
}
