import Foundation
import GatehouseCrypto

/// Apple's check of a client secret JWT (what `/auth/token` and `/auth/revoke` do before anything
/// else): ES256 under the team's registered key, header `kid` = the key id, `iss` = team id,
/// `sub` = client id, `aud` = `https://appleid.apple.com`, `iat` and `exp` present, not expired,
/// and a lifetime of at most 15,777,000 seconds (six months).
public enum AppleClientSecret {
    /// The `aud` Apple requires (the real value, even when the endpoints are simulated).
    public static let audience = "https://appleid.apple.com"
    /// The longest lifetime Apple accepts, in seconds.
    public static let maximumLifetime: TimeInterval = 15_777_000
    /// Clock skew tolerated on `iat`.
    static let skew: TimeInterval = 60

    /// Why a secret was refused (Apple answers `invalid_client` for all of them).
    public enum Rejection: Error, Sendable, Equatable {
        case malformed, wrongAlgorithm, wrongKeyID, badSignature, wrongIssuer, wrongSubject, wrongAudience
        case missingTimes, expired, issuedInFuture, lifetimeTooLong
    }

    /// Checks `secret` for `client` at `now`; throws the first rule it breaks.
    public static func verify(_ secret: String, for client: AppleClient, now: Date) throws(Rejection) {
        let jws: CompactJWS
        do { jws = try CompactJWS(secret) } catch { throw .malformed }
        guard jws.header.algorithm == JWSAlgorithm.es256.rawValue else { throw .wrongAlgorithm }
        guard jws.header.keyID == client.keyID else { throw .wrongKeyID }
        do { try jws.verify(with: client.publicKey, allowedAlgorithms: [.es256]) } catch { throw .badSignature }
        let claims: JWTClaims
        do { claims = try JWTClaims(json: jws.payload) } catch { throw .malformed }
        guard claims.issuer == client.teamID else { throw .wrongIssuer }
        guard claims.subject == client.clientID else { throw .wrongSubject }
        guard claims.audience == [audience] else { throw .wrongAudience }
        guard let iat = claims.all["iat"]?.numberValue, let exp = claims.all["exp"]?.numberValue else { throw .missingTimes }
        let nowSeconds = now.timeIntervalSince1970
        guard exp > nowSeconds else { throw .expired }
        guard iat <= nowSeconds + skew else { throw .issuedInFuture }
        guard exp - iat <= maximumLifetime else { throw .lifetimeTooLong }
    }
}
