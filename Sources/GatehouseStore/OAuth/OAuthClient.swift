import Foundation

/// An application registered to use Gatehouse as its authorization server.
public struct OAuthClient: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case `public`, confidential }

    /// The `client_id` (random, or chosen by the operator).
    public var id: String
    public var name: String
    public var kind: Kind
    /// SHA-256 hex of the client secret (secrets are high-entropy random strings); nil for public clients.
    public var secretHash: String?
    /// Exact-match redirect URIs (loopback ports are matched by the caller per RFC 8252).
    public var redirectURIs: [String]
    public var postLogoutRedirectURIs: [String]
    /// Grant types this client may use (`authorization_code`, `refresh_token`, `password`, `client_credentials`, …).
    public var grantTypes: [String]
    /// Scopes beyond the OpenID ones this client may ask for.
    public var scopes: [String]
    /// First-party clients skip the consent page and may be allowed the password grant.
    public var firstParty: Bool
    /// Allows `http://localhost` redirect URIs (development clients only).
    public var allowLocalhost: Bool
    /// Origins allowed to call the token, userinfo and JWKS endpoints from a browser (CORS).
    public var webOrigins: [String]
    /// Extension data as a JSON object string (e.g. native app registration: bundle ids, callback schemes).
    public var metadata: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: String, name: String, kind: Kind, secretHash: String? = nil, redirectURIs: [String] = [],
                postLogoutRedirectURIs: [String] = [], grantTypes: [String] = ["authorization_code", "refresh_token"],
                scopes: [String] = [], firstParty: Bool = false, allowLocalhost: Bool = false, webOrigins: [String] = [],
                metadata: String = "{}", createdAt: Date, updatedAt: Date? = nil) {
        self.id = id; self.name = name; self.kind = kind; self.secretHash = secretHash; self.redirectURIs = redirectURIs
        self.postLogoutRedirectURIs = postLogoutRedirectURIs; self.grantTypes = grantTypes; self.scopes = scopes
        self.firstParty = firstParty; self.allowLocalhost = allowLocalhost; self.webOrigins = webOrigins
        self.metadata = metadata; self.createdAt = createdAt; self.updatedAt = updatedAt ?? createdAt
    }
}

/// Registered clients.
public protocol OAuthClientStore: Sendable {
    /// Throws `.conflict` when the id exists.
    func create(_ client: OAuthClient) async throws
    func find(id: String) async throws -> OAuthClient?
    /// Every client, ordered by id.
    func list() async throws -> [OAuthClient]
    /// Replaces the stored client with the same id; `.notFound` if there is none.
    func update(_ client: OAuthClient) async throws
    /// Deletes the client and every code, refresh token and consent issued to it.
    func delete(id: String) async throws -> Bool
}
