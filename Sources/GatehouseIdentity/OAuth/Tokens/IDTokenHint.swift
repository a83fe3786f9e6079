import Foundation
import GatehouseCrypto

/// Reads an `id_token_hint` (`/oauth/authorize`, `/oauth/logout`): it must be an ID token this server
/// issued — our signature and issuer, `typ: JWT` (never an RFC 9068 `at+jwt` access token, which carries
/// the same `sub`), no `client_id`/`scope` claims of an access token, and an audience naming a client.
/// Expired tokens are accepted: the hint says *who*, not *when* (OIDC Core §3.1.2.1).
public struct IDTokenHint: Sendable {
    /// Who the hint names and for which client.
    public struct Reading: Sendable, Equatable {
        public let subject: String
        /// The `aud` of the ID token: the client it was issued to.
        public let audience: [String]
    }

    let settings: OAuthSettings
    let keys: SigningKeyRing
    let clock: IdentityClock

    public init(settings: OAuthSettings, keys: SigningKeyRing, clock: IdentityClock = .system) {
        self.settings = settings; self.keys = keys; self.clock = clock
    }

    /// The hint's subject and audience, or nil when it is not an ID token of ours; when `clientID` is
    /// given the token must have been issued to that client.
    public func read(_ hint: String, clientID: String? = nil) async throws -> Reading? {
        // ID tokens are RS256 by default and ES256 for clients that ask (id_token_signed_response_alg).
        let verifier = JWTVerifier(allowedAlgorithms: [.es256, .rs256],
                                   rules: ClaimRules(issuers: [settings.issuer], audiences: nil, leeway: 366 * 86_400))
        guard let verified = try? verifier.verify(hint, keys: try await keys.verificationKeys(), now: clock.now()) else { return nil }
        // Access tokens are signed by our keys for the same issuer: tell them apart by type and claims.
        guard verified.header.type?.lowercased() == "jwt",
              verified.claims.all["client_id"] == nil, verified.claims.all["scope"] == nil,
              let subject = verified.claims.subject, !subject.isEmpty else { return nil }
        let audience = verified.claims.audience
        guard !audience.isEmpty else { return nil }
        if let clientID, !audience.contains(clientID) { return nil }
        return Reading(subject: subject, audience: audience)
    }
}
