import Foundation
import GatehouseCrypto
import GatehouseStore

/// An `/oauth/authorize` request parked on the server while the user signs in or decides
/// Only a random id travels through the browser: the sign-in page's
/// `return_to` and the consent form carry that id, never the client's parameters, so nothing the
/// client sent can be reflected into a form, and a long `state` cannot make `return_to` too long.
public struct PendingAuthorization: Sendable {
    /// The client's parameters exactly as sent (validated again when the request resumes).
    public let parameters: [(key: String, value: String)]
    /// When the client's request first arrived: `max_age` and `prompt=login` are measured from it.
    public let requestedAt: Date
    /// The consent step: the session (hash of its id) and user the decision form was shown to.
    public let sessionIdHash: TokenHash?
    public let userId: String?

    public init(parameters: [(key: String, value: String)], requestedAt: Date, sessionIdHash: TokenHash? = nil,
                userId: String? = nil) {
        self.parameters = parameters; self.requestedAt = requestedAt; self.sessionIdHash = sessionIdHash; self.userId = userId
    }

    /// Whether a decision posted from `sessionIdHash` by `userId` belongs to this request.
    public func isBound(toSession sessionIdHash: TokenHash, userId: String) -> Bool {
        guard let bound = self.sessionIdHash, let boundUser = self.userId else { return false }
        return ConstantTime.equals(bound.bytes, sessionIdHash.bytes) && boundUser == userId
    }
}

/// Keeps pending authorizations in the shared flow-state store (so any process can resume them),
/// single use, for ``lifetime``. Ids are 256-bit random; the store sees only a domain-separated hash,
/// so an id can never be confused with an upstream provider's `state`.
public struct PendingAuthorizations: Sendable {
    /// Long enough to sign in (or reset a password) and decide; short enough that a stale tab expires.
    public static let lifetime: TimeInterval = 15 * 60
    /// Bounds what one pending request may hold (the client's parameters are already capped by the parser).
    static let maximumPayloadBytes = 16 * 1024

    let store: any FlowStateStore
    let clock: IdentityClock

    public init(store: any FlowStateStore, clock: IdentityClock = .system) { self.store = store; self.clock = clock }

    /// Parks a request; returns the id to put in the browser.
    public func park(_ pending: PendingAuthorization) async throws -> String {
        let payload = Payload(kind: Payload.kindValue, parameters: pending.parameters.map { [$0.key, $0.value] },
                              requestedAtMs: Int64((pending.requestedAt.timeIntervalSince1970 * 1000).rounded(.down)),
                              session: pending.sessionIdHash?.hex, user: pending.userId)
        let data = try JSONEncoder().encode(payload)
        guard data.count <= Self.maximumPayloadBytes else { throw OAuthError.invalidRequest("The authorization request is too large.") }
        let id = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        try await store.create(FlowState(stateHash: Self.hash(id), createdAt: now, expiresAt: now.addingTimeInterval(Self.lifetime),
                                         payload: String(decoding: data, as: UTF8.self)))
        return id
    }

    /// Takes a parked request out (single use); nil when unknown, expired, already taken or malformed.
    public func take(_ id: String) async throws -> PendingAuthorization? {
        guard !id.isEmpty, id.utf8.count <= 128 else { return nil }
        guard let flow = try await store.consume(stateHash: Self.hash(id), now: clock.now()),
              let payload = try? JSONDecoder().decode(Payload.self, from: Data(flow.payload.utf8)),
              payload.kind == Payload.kindValue, payload.parameters.allSatisfy({ $0.count == 2 }) else { return nil }
        return PendingAuthorization(parameters: payload.parameters.map { (key: $0[0], value: $0[1]) },
                                    requestedAt: Date(timeIntervalSince1970: Double(payload.requestedAtMs) / 1000),
                                    sessionIdHash: payload.session.flatMap(TokenHash.init(hex:)), userId: payload.user)
    }

    static func hash(_ id: String) -> TokenHash { TokenHash(SHA256.hash("gatehouse/pending-authorization/" + id)) }

    private struct Payload: Codable {
        static let kindValue = "oauth_authorize"
        let kind: String
        let parameters: [[String]]
        let requestedAtMs: Int64
        let session: String?
        let user: String?
    }
}
