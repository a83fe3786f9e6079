import Foundation
import GatehouseCrypto
import GatehouseStore

/// Pushed authorization requests (RFC 9126): a client posts its authorization parameters straight to
/// Gatehouse, authenticated as at the token endpoint, and sends the browser only the `request_uri`
/// it gets back. The parameters are kept in the shared flow-state store under a domain-separated
/// hash of that URI, for ``lifetime``, and taken out once: a `request_uri` works a single time, in
/// any process, and only for the client that pushed it.
public struct PushedAuthorizationRequests: Sendable {
    /// RFC 9126 §2.2 suggests a short life: the browser is sent on at once.
    public static let lifetime: TimeInterval = 60
    /// What every `request_uri` Gatehouse issues starts with (RFC 9126 §2.2).
    public static let uriPrefix = "urn:ietf:params:oauth:request_uri:"
    /// The client metadata member (and the config file's client setting) that makes a client use PAR only.
    public static let requiredKey = "require_pushed_authorization_requests"
    static let maximumPayloadBytes = 16 * 1024

    let store: any FlowStateStore
    let parser: AuthorizationRequestParser
    let clock: IdentityClock

    /// - Parameter resources: the APIs a pushed `resource` may name (`OAuthSettings.resources`).
    public init(store: any FlowStateStore, registry: ClientRegistry, resources: [String] = [], clock: IdentityClock = .system) {
        self.store = store; parser = AuthorizationRequestParser(registry: registry, resources: resources); self.clock = clock
    }

    /// Validates and keeps the parameters `client` (already authenticated) pushed; returns the
    /// `request_uri` and its lifetime in seconds. Errors are RFC 6749 JSON errors (§2.3): the
    /// endpoint answers the client itself, so nothing is redirected.
    public func push(_ parameters: [(key: String, value: String)], client: OAuthClient) async throws -> (requestURI: String, expiresIn: Int) {
        guard !parameters.contains(where: { $0.key == "request_uri" }) else {
            throw OAuthError.invalidRequest("A pushed request cannot itself carry request_uri.")
        }
        var parameters = parameters.filter { !["client_secret", "client_assertion", "client_assertion_type"].contains($0.key) }
        if let sent = parameters.first(where: { $0.key == "client_id" }) {
            guard sent.value == client.id else { throw OAuthError.invalidRequest("client_id differs from the authenticated client.") }
        } else {
            parameters.append((key: "client_id", value: client.id))
        }
        do {
            _ = try await parser.parse(Self.multimap(parameters))
        } catch let failure as AuthorizationFailure {
            switch failure {
            case .untrusted(let description): throw OAuthError.invalidRequest(description)
            case .redirect(let error, _, _): throw error
            }
        }
        let data = try JSONEncoder().encode(Payload(kind: Payload.kindValue, client: client.id,
                                                    parameters: parameters.map { [$0.key, $0.value] }))
        guard data.count <= Self.maximumPayloadBytes else { throw OAuthError.invalidRequest("The authorization request is too large.") }
        let uri = Self.uriPrefix + SecureRandom.token(byteCount: 32)
        let now = clock.now()
        try await store.create(FlowState(stateHash: Self.hash(uri), createdAt: now, expiresAt: now.addingTimeInterval(Self.lifetime),
                                         payload: String(decoding: data, as: UTF8.self)))
        return (uri, Int(Self.lifetime))
    }

    /// The pushed parameters for `requestURI`, taken out (single use), when `clientID` pushed them;
    /// nil when unknown, expired, used, or pushed by another client.
    public func take(_ requestURI: String, clientID: String?) async throws -> [(key: String, value: String)]? {
        guard requestURI.hasPrefix(Self.uriPrefix), requestURI.utf8.count <= 256 else { return nil }
        guard let flow = try await store.consume(stateHash: Self.hash(requestURI), now: clock.now()),
              let payload = try? JSONDecoder().decode(Payload.self, from: Data(flow.payload.utf8)),
              payload.kind == Payload.kindValue, payload.client == clientID,
              payload.parameters.allSatisfy({ $0.count == 2 }) else { return nil }
        return payload.parameters.map { (key: $0[0], value: $0[1]) }
    }

    static func hash(_ uri: String) -> TokenHash { TokenHash(SHA256.hash("gatehouse/pushed-authorization/" + uri)) }

    static func multimap(_ pairs: [(key: String, value: String)]) -> [String: [String]] {
        var map: [String: [String]] = [:]
        for (key, value) in pairs { map[key, default: []].append(value) }
        return map
    }

    private struct Payload: Codable {
        static let kindValue = "pushed_authorization"
        let kind: String
        let client: String
        let parameters: [[String]]
    }
}

extension OAuthClient {
    /// Clients registered with `require_pushed_authorization_requests` (RFC 9126 §6): `/oauth/authorize`
    /// takes their requests only through a `request_uri` from the PAR endpoint.
    public var requiresPushedAuthorizationRequests: Bool {
        guard let data = metadata.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
        return object[PushedAuthorizationRequests.requiredKey] as? Bool == true
    }
}
