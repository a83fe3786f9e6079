import Foundation
import GatehouseCrypto
import GatehouseStore

/// Issues authorization codes once the user is signed in (and has consented), and builds the
/// redirects back to the client (with `iss`, RFC 9207).
public struct AuthorizationService: Sendable {
    let codes: any AuthorizationCodeStore
    let consents: any ConsentStore
    let settings: OAuthSettings
    let clock: IdentityClock
    /// Requests parked while the user signs in or decides.
    public let pending: PendingAuthorizations

    /// - Parameter flowStates: where requests wait while the user signs in or decides.
    public init(codes: any AuthorizationCodeStore, consents: any ConsentStore, flowStates: any FlowStateStore, settings: OAuthSettings,
                clock: IdentityClock = .system) {
        self.codes = codes; self.consents = consents; self.settings = settings; self.clock = clock
        pending = PendingAuthorizations(store: flowStates, clock: clock)
    }

    /// Whether the user must see the consent page: third-party clients without a remembered consent
    /// covering the scopes, or whenever `prompt=consent`.
    public func needsConsent(_ request: AuthorizationRequest, userId: String) async throws -> Bool {
        if request.client.firstParty && !request.prompt.contains("consent") { return false }
        if request.prompt.contains("consent") { return true }
        guard let consent = try await consents.find(userId: userId, clientId: request.client.id) else { return true }
        return !Set(request.scope.values).isSubset(of: Set(consent.scopes))
    }

    /// What must happen before a code is issued to a signed-in user.
    public enum ApprovalStep: Sendable, Equatable {
        /// Issue the code now.
        case automatic
        /// Ask "Continue to <app> as <user>?": the client's identity cannot be assured.
        case confirm
        /// Show the consent page (third-party client without a remembered consent, or `prompt=consent`).
        case consent
    }

    /// The rule for automatic approval: consent where needed; and no code without the user's click for
    /// a client whose identity cannot be assured — a public client redirecting to a custom scheme or a
    /// loopback port, which any app on the device can claim (RFC 8252 §8.6) — whatever its first-party
    /// flag or remembered consent. Confidential clients (they authenticate at the token endpoint) and
    /// claimed `https` redirects (universal/app links) are approved automatically.
    public func approvalStep(_ request: AuthorizationRequest, userId: String) async throws -> ApprovalStep {
        if try await needsConsent(request, userId: userId) { return .consent }
        return Self.isIdentityAssured(client: request.client, redirectURI: request.redirectURI) ? .automatic : .confirm
    }

    /// Whether the code can only reach the client it names: it authenticates, or its redirect is https.
    public static func isIdentityAssured(client: OAuthClient, redirectURI: String) -> Bool {
        if client.kind == .confidential { return true }
        return URLComponents(string: redirectURI)?.scheme?.lowercased() == "https"
    }

    /// Remembers consent (merged with what the user granted before).
    public func recordConsent(_ request: AuthorizationRequest, userId: String) async throws {
        let previous = try await consents.find(userId: userId, clientId: request.client.id)?.scopes ?? []
        let scopes = Array(Set(previous).union(request.scope.values)).sorted()
        try await consents.save(Consent(userId: userId, clientId: request.client.id, scopes: scopes, grantedAt: clock.now()))
    }

    /// Mints a code for the signed-in user and returns the redirect URL that carries it.
    public func approve(_ request: AuthorizationRequest, userId: String, authTime: Date, authMethods: [String]) async throws -> String {
        let code = SecureRandom.token(byteCount: 32)
        let now = clock.now()
        // An empty redirect URI records that the request did not carry one (see AuthorizationCode.redirectURI).
        try await codes.create(AuthorizationCode(hash: TokenHash(SHA256.hash(code)), clientId: request.client.id, userId: userId,
                                                 redirectURI: request.redirectURISent ? request.redirectURI : "", scope: request.scope.description,
                                                 nonce: request.nonce, codeChallenge: request.codeChallenge, authTime: authTime,
                                                 authMethods: authMethods, createdAt: now,
                                                 expiresAt: now.addingTimeInterval(settings.codeLifetime),
                                                 dpopJKT: request.dpopJKT, resources: request.resources))
        return Self.redirect(to: request.redirectURI, ["code": code, "state": request.state, "iss": settings.issuer])
    }

    /// The error redirect for a trusted redirect URI.
    public func errorRedirect(_ error: OAuthError, redirectURI: String, state: String?) -> String {
        Self.redirect(to: redirectURI, ["error": error.code.rawValue, "error_description": error.description, "state": state,
                                        "iss": settings.issuer])
    }

    /// A post-logout redirect with the client's `state` echoed back.
    public static func redirectWithState(_ base: String, state: String?) -> String { redirect(to: base, ["state": state]) }

    /// Appends query parameters to a redirect URI, keeping the ones it already has.
    static func redirect(to base: String, _ parameters: [String: String?]) -> String {
        var components = URLComponents(string: base) ?? URLComponents()
        var items = components.queryItems ?? []
        for key in ["code", "error", "error_description", "state", "iss"] {
            if let value = parameters[key] ?? nil { items.append(URLQueryItem(name: key, value: value)) }
        }
        // Nothing to add leaves the URI as registered: an empty item list would end it in a bare "?".
        if !items.isEmpty { components.queryItems = items }
        // URLComponents leaves '+' alone in queries; clients decode it as a space, so escape it.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.string ?? base
    }
}
