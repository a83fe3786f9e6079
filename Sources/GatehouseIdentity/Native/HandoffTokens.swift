import Foundation
import GatehouseCrypto
import GatehouseStore

/// The hand-off from the system browser back into the app's web view (flow F2): a single-use token,
/// stored hashed, living ≤ 2 minutes, bound to the user, the app and the S256 challenge of a verifier
/// only the app's web view holds — so a custom-scheme URL intercepted by another app is worthless.
public struct HandoffTokens: Sendable {
    /// The default and longest lifetime.
    public static let lifetime: TimeInterval = 120

    /// What the web view gets when it redeems.
    public struct Redemption: Sendable, Equatable {
        public let userId: String
        public let appID: String
        public let authMethods: [String]
        public let returnTo: String?
        /// The hand-off finishes "Link <provider>" from the app with what the provider proved: added to
        /// `userId`'s account only now, in that account's web view, which keeps its session.
        public let link: VerifiedExternalIdentity?
    }

    public enum Failure: Error, Equatable, Sendable {
        /// Unknown, used or expired.
        case invalidToken
        case wrongVerifier
        case wrongApp

        public var message: String {
            switch self {
            case .invalidToken: "This sign-in link has expired or was already used. Start the sign-in again in the app."
            case .wrongVerifier: "This sign-in was started somewhere else. Start the sign-in again in the app."
            case .wrongApp: "This sign-in belongs to another app."
            }
        }
    }

    struct Payload: Codable {
        let app: String
        let challenge: String
        let methods: [String]
        let returnTo: String?
        /// Set by tokens minted before links waited for the redeem (their link was already written).
        var link: Bool? = nil
        var linkIdentity: VerifiedExternalIdentity? = nil
    }

    let store: any OneTimeTokenStore
    let clock: IdentityClock
    /// This deployment's lifetime (`native.handoff_ttl_seconds`), never above `lifetime`.
    let tokenLifetime: TimeInterval

    public init(store: any OneTimeTokenStore, clock: IdentityClock = .system, lifetime: TimeInterval = HandoffTokens.lifetime) {
        self.store = store; self.clock = clock; tokenLifetime = min(max(1, lifetime), Self.lifetime)
    }

    /// Mints a token for a user signed in on behalf of `app`, bound to the web view's `challenge`; with
    /// `link`, a token that adds that identity to `userId`'s account when redeemed there.
    public func mint(userId: String, appID: String, challenge: String, authMethods: [String], returnTo: String?,
                     link: VerifiedExternalIdentity? = nil) async throws -> String {
        let token = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        let payload = Payload(app: appID, challenge: challenge, methods: authMethods, returnTo: returnTo, linkIdentity: link)
        let json = String(decoding: try JSONEncoder().encode(payload), as: UTF8.self)
        try await store.create(OneTimeToken(hash: TokenHash(SHA256.hash(token)), purpose: .handoff, userId: userId, createdAt: now,
                                            expiresAt: now.addingTimeInterval(tokenLifetime), payload: json))
        return token
    }

    /// Consumes a token atomically (two concurrent redeems: exactly one succeeds) and checks the
    /// verifier against its challenge. A wrong verifier spends the token: a stolen token is one try.
    public func redeem(token: String, verifier: String, appID: String?) async throws -> Redemption {
        guard token.utf8.count == 43, PKCE.isValidVerifier(verifier) else { throw Failure.invalidToken }
        guard let consumed = try await store.consume(hash: TokenHash(SHA256.hash(token)), purpose: .handoff, now: clock.now()),
              let payload = try? JSONDecoder().decode(Payload.self, from: Data(consumed.payload.utf8)), payload.link != true else {
            throw Failure.invalidToken
        }
        if let appID, appID != payload.app { throw Failure.wrongApp }
        guard PKCE.verify(verifier: verifier, challenge: payload.challenge) else { throw Failure.wrongVerifier }
        return Redemption(userId: consumed.userId, appID: payload.app, authMethods: payload.methods, returnTo: payload.returnTo,
                          link: payload.linkIdentity)
    }

    /// Whether a challenge has the S256 shape (43 base64url characters of a SHA-256).
    public static func isValidChallenge(_ challenge: String) -> Bool {
        challenge.utf8.count == 43 && Base64URL.decode(challenge)?.count == 32
    }
}
