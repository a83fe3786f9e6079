import Foundation
import GatehouseCrypto
import GatehouseStore

/// The two steps around a hand-off that need a user's hand or a signed-in web view:
///
/// - a **confirmation** (RFC 8252 §8.6): after the provider callback for an app whose identity cannot be
///   assured (a custom scheme any app may claim), the system browser asks "Continue to <app> as <user>?"
///   before a hand-off token exists; the pending hand-off waits here, single-use, bound to the
///   system browser's flow cookie;
/// - a **link ticket**: "Link Google" from the app's web view runs in the system browser, which has no
///   session; the web view (signed in, CSRF-checked) mints a ticket naming its user, the app and the
///   challenge of the verifier it holds. The flow started with it links into that account only, and only
///   when its hand-off is redeemed in a web view signed in to that account with that verifier: someone
///   who sends their own ticket to a victim gets nothing linked.
public struct HandoffConfirmations: Sendable {
    public static let confirmationLifetime: TimeInterval = 600
    public static let linkTicketLifetime: TimeInterval = 600
    static let confirmationPurpose: TokenPurpose = "handoff_confirm"
    static let linkPurpose: TokenPurpose = "handoff_link"

    /// A hand-off waiting for the user's "Continue".
    public struct Pending: Sendable, Equatable, Codable {
        public let userId: String
        public let appID: String
        public let challenge: String
        public let methods: [String]
        public let returnTo: String?
        /// SHA-256 hex of the system browser's flow cookie: only that browser may confirm.
        public let browserBinding: String
        /// Where the result goes: `scheme` (the app's private-use scheme) or an https callback URL.
        public let callback: String
        /// For a link: what the provider proved, to be added to `userId`'s account at the redeem (nothing
        /// is linked before); nil for a sign-in.
        public let link: VerifiedExternalIdentity?

        public init(userId: String, appID: String, challenge: String, methods: [String], returnTo: String?, browserBinding: String,
                    callback: String, link: VerifiedExternalIdentity? = nil) {
            self.userId = userId; self.appID = appID; self.challenge = challenge; self.methods = methods; self.returnTo = returnTo
            self.browserBinding = browserBinding; self.callback = callback; self.link = link
        }

        enum CodingKeys: String, CodingKey {
            case userId, appID, challenge, methods, returnTo, browserBinding, callback, link = "link_identity", linkedAtFinish = "link"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            // A link held before links waited for the redeem was already written: never confirm it as a sign-in.
            if try container.decodeIfPresent(Bool.self, forKey: .linkedAtFinish) == true {
                throw DecodingError.dataCorruptedError(forKey: .linkedAtFinish, in: container, debugDescription: "a link of the old shape")
            }
            self.init(userId: try container.decode(String.self, forKey: .userId), appID: try container.decode(String.self, forKey: .appID),
                      challenge: try container.decode(String.self, forKey: .challenge), methods: try container.decode([String].self, forKey: .methods),
                      returnTo: try container.decodeIfPresent(String.self, forKey: .returnTo),
                      browserBinding: try container.decode(String.self, forKey: .browserBinding),
                      callback: try container.decode(String.self, forKey: .callback),
                      link: try container.decodeIfPresent(VerifiedExternalIdentity.self, forKey: .link))
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(userId, forKey: .userId); try container.encode(appID, forKey: .appID)
            try container.encode(challenge, forKey: .challenge); try container.encode(methods, forKey: .methods)
            try container.encodeIfPresent(returnTo, forKey: .returnTo); try container.encode(browserBinding, forKey: .browserBinding)
            try container.encode(callback, forKey: .callback); try container.encodeIfPresent(link, forKey: .link)
        }
    }

    /// A link ticket's binding: the app whose web view minted it and that web view's hand-off challenge.
    struct LinkPayload: Codable { let app: String; let challenge: String }

    let store: any OneTimeTokenStore
    let clock: IdentityClock

    public init(store: any OneTimeTokenStore, clock: IdentityClock = .system) { self.store = store; self.clock = clock }

    /// Stores a pending hand-off; returns the random id the confirmation form carries.
    public func hold(_ pending: Pending) async throws -> String {
        let id = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        let json = String(decoding: try JSONEncoder().encode(pending), as: UTF8.self)
        try await store.create(OneTimeToken(hash: TokenHash(SHA256.hash(id)), purpose: Self.confirmationPurpose, userId: pending.userId,
                                            createdAt: now, expiresAt: now.addingTimeInterval(Self.confirmationLifetime), payload: json))
        return id
    }

    /// Consumes a pending hand-off atomically (a double click confirms once); nil when unknown, used or expired.
    public func take(_ id: String) async throws -> Pending? {
        guard id.utf8.count == 43 else { return nil }
        guard let consumed = try await store.consume(hash: TokenHash(SHA256.hash(id)), purpose: Self.confirmationPurpose, now: clock.now()) else {
            return nil
        }
        return try? JSONDecoder().decode(Pending.self, from: Data(consumed.payload.utf8))
    }

    /// A ticket for linking a provider to `userId`'s account from `appID`'s web view, whose verifier's
    /// S256 `challenge` the flow must carry.
    public func mintLinkTicket(userId: String, appID: String, challenge: String) async throws -> String {
        let ticket = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        let json = String(decoding: try JSONEncoder().encode(LinkPayload(app: appID, challenge: challenge)), as: UTF8.self)
        try await store.create(OneTimeToken(hash: TokenHash(SHA256.hash(ticket)), purpose: Self.linkPurpose, userId: userId, createdAt: now,
                                            expiresAt: now.addingTimeInterval(Self.linkTicketLifetime), payload: json))
        return ticket
    }

    /// Spends a link ticket; the user it names, when it was minted for `appID` by the web view whose
    /// challenge is `challenge`. A ticket presented with another challenge is spent too (one try).
    public func takeLinkTicket(_ ticket: String, appID: String, challenge: String) async throws -> String? {
        guard ticket.utf8.count == 43,
              let consumed = try await store.consume(hash: TokenHash(SHA256.hash(ticket)), purpose: Self.linkPurpose, now: clock.now()),
              let payload = try? JSONDecoder().decode(LinkPayload.self, from: Data(consumed.payload.utf8)), payload.app == appID,
              ConstantTime.equals(payload.challenge, challenge) else {
            return nil
        }
        return consumed.userId
    }
}
