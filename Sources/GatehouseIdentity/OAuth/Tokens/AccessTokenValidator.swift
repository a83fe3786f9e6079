import Foundation
import GatehouseCrypto
import GatehouseStore
import Synchronization

/// A valid access token's claims.
public struct AccessTokenClaims: Sendable, Equatable {
    public let subject: String
    public let clientID: String
    public let scope: Scope
    public let jti: String
    public let familyID: String?
    public let issuedAt: Date
    public let expiresAt: Date
    public let audience: String
    public let authTime: Date?
    /// `cnf.jkt`: the DPoP key the token is bound to (RFC 9449 §6.1); nil for a Bearer token.
    public var confirmationJKT: String? = nil
}

/// Checks access tokens Gatehouse issued: signature (ES256 with a published key), `typ: at+jwt`,
/// issuer and expiry, then revocation (of the token or of its whole family).
///
/// Only the *signature verification* is cached (per process, keyed by the token's SHA-256, until the
/// token expires): an ES256 verification costs ~90 µs, the rest of a Bearer call less than half that.
/// Revocation is never cached: every call reads the shared revocation list, so a revocation made by any
/// process is refused on the very next call everywhere.
public final class AccessTokenValidator: Sendable {
    let settings: OAuthSettings
    let keys: SigningKeyRing
    let revoked: any RevokedAccessTokenStore
    let clock: IdentityClock
    private let cache = Mutex<[TokenHash: AccessTokenClaims]>([:])
    /// ~250 bytes an entry: a bounded 2.5 MB, emptied when full (tokens live minutes, so it refills).
    private static let cacheLimit = 10_000

    public init(settings: OAuthSettings, keys: SigningKeyRing, revoked: any RevokedAccessTokenStore, clock: IdentityClock = .system) {
        self.settings = settings; self.keys = keys; self.revoked = revoked; self.clock = clock
    }

    /// The claims of a valid, unrevoked token, or nil.
    public func validate(_ token: String) async throws -> AccessTokenClaims? {
        guard let claims = try await verifiedUnexpired(token) else { return nil }
        if try await revoked.isAnyRevoked(Self.revocationKeys(claims)) { return nil }
        return claims
    }

    /// The claims of a token with a valid signature that has not expired — *not yet checked for
    /// revocation*: the caller must look ``revocationKeys(_:)`` up (as `HotReadStore.bearerSubject` does,
    /// together with the user) before trusting them.
    public func verifiedUnexpired(_ token: String) async throws -> AccessTokenClaims? {
        let now = clock.now()
        guard let claims = try await verified(token, now: now), claims.expiresAt > now else { return nil }
        return claims
    }

    /// The revocation-list keys that refuse this token: its `jti`, and its family's marker.
    public static func revocationKeys(_ claims: AccessTokenClaims) -> [String] {
        [claims.jti] + (claims.familyID.map { [familyMarker($0)] } ?? [])
    }

    /// The revocation-list key that kills every access token of a family.
    public static func familyMarker(_ familyId: String) -> String { "fid:" + familyId }

    private func verified(_ token: String, now: Date) async throws -> AccessTokenClaims? {
        guard token.utf8.count <= 8192 else { return nil }
        let key = TokenHash(SHA256.hash(token))
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let verifier = JWTVerifier(allowedAlgorithms: [.es256],
                                   rules: ClaimRules(issuers: [settings.issuer], audiences: nil, leeway: 0))
        guard let verified = try? verifier.verify(token, keys: try await keys.verificationKeys(), now: now),
              verified.header.type?.lowercased() == "at+jwt",
              let subject = try? verified.claims.string("sub"), let clientID = try? verified.claims.string("client_id"),
              let jti = try? verified.claims.string("jti"), let exp = verified.claims.expiresAt,
              let iat = verified.claims.issuedAt else { return nil }
        var claims = AccessTokenClaims(subject: subject, clientID: clientID,
                                       scope: Scope(parsing: (try? verified.claims.string("scope")) ?? "") ?? Scope([]),
                                       jti: jti, familyID: try? verified.claims.string("fid"), issuedAt: iat, expiresAt: exp,
                                       audience: verified.claims.audience.first ?? "",
                                       authTime: verified.claims.all["auth_time"].flatMap(\.numberValue).map(Date.init(timeIntervalSince1970:)))
        if case .object(let cnf)? = verified.claims.all["cnf"] {
            guard case .string(let jkt)? = cnf["jkt"], !jkt.isEmpty else { return nil }
            claims.confirmationJKT = jkt
        }
        cache.withLock { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = claims
        }
        return claims
    }
}
