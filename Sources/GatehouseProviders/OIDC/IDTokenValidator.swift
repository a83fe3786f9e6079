import Foundation
import GatehouseCrypto

/// Verifies a provider's id_token: signature against the provider's JWKS (cached, refetched on an
/// unknown `kid`), `iss` in the accepted set, `aud` in the accepted set, `exp`, `sub`, then `nonce`.
struct IDTokenValidator: Sendable {
    let jwks: RemoteJWKS
    let issuers: Set<String>
    let audiences: Set<String>
    let algorithms: Set<JWSAlgorithm>
    let clock: @Sendable () -> Date

    init(jwksURI: URL, issuers: Set<String>, audiences: Set<String>, algorithms: Set<JWSAlgorithm> = [.rs256],
         transport: any ProviderTransport, clock: @escaping @Sendable () -> Date) {
        jwks = RemoteJWKS(url: jwksURI, fetcher: TransportJWKSFetcher(transport: transport), minimumRefetchInterval: 10,
                          clock: clock)
        self.issuers = issuers; self.audiences = audiences; self.algorithms = algorithms; self.clock = clock
    }

    /// The verified claims. `expectedNonce` nil skips the nonce check (Apple with `nonce_supported: false`);
    /// a present but different nonce fails anyway.
    func validate(_ token: String, expectedNonce: String?) async throws -> JWTClaims {
        let verifier = JWTVerifier(allowedAlgorithms: algorithms,
                                   rules: ClaimRules(issuers: issuers, audiences: audiences, requiredClaims: ["sub"]))
        let claims: JWTClaims
        do { claims = try await verifier.verify(token, keys: jwks, now: clock()).claims } catch {
            throw Self.map(error)
        }
        let nonce = claims.all["nonce"]?.stringValue
        if let expectedNonce {
            guard let nonce, ConstantTime.equals(nonce, expectedNonce) else { throw ProviderError.nonceMismatch }
        } else if nonce != nil {
            throw ProviderError.nonceMismatch
        }
        guard let subject = claims.subject, !subject.isEmpty, subject.utf8.count <= 255 else {
            throw ProviderError.invalidToken(.subject)
        }
        return claims
    }

    static func map(_ error: JOSEError) -> ProviderError {
        switch error {
        case .keySetUnavailable(let why): .unavailable("keys: \(why)")
        case .expired: .invalidToken(.expired)
        case .wrongAudience: .invalidToken(.audience)
        case .wrongIssuer: .invalidToken(.issuer)
        case .unknownKey: .invalidToken(.unknownKey)
        case .invalidSignature: .invalidToken(.signature)
        case .notYetValid, .issuedInFuture: .invalidToken(.time)
        case .missingClaim(let name): .invalidToken(.missingClaim(name))
        case .algorithmNotAllowed, .unsupportedAlgorithm: .invalidToken(.algorithm)
        default: .invalidToken(.malformed)
        }
    }
}
