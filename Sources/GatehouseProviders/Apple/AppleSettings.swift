import Foundation

/// Sign in with Apple on the web: the Services ID, the team, the `.p8` key and its id, and endpoints.
public struct AppleSettings: Sendable {
    public static let issuer = "https://appleid.apple.com"

    /// The Services ID (the web `client_id`).
    public var clientID: String
    public var teamID: String
    /// The key id Apple shows next to the `.p8` key.
    public var keyID: String
    /// The `.p8` file's contents (PKCS#8 PEM, P-256).
    public var privateKeyPEM: String
    /// Other accepted id_token audiences — the app bundle ids, for tokens from native sign-in and notifications.
    public var extraAudiences: [String]
    public var scopes: [String]
    public var authorizationEndpoint: URL
    public var tokenEndpoint: URL
    public var jwksURI: URL
    public var revocationEndpoint: URL
    /// Lifetime of each minted client secret (Apple allows up to 15,777,000 s; minted per request, so short).
    public var clientSecretLifetime: TimeInterval

    public init(clientID: String, teamID: String, keyID: String, privateKeyPEM: String, extraAudiences: [String] = [],
                scopes: [String] = ["name", "email"],
                authorizationEndpoint: URL = URL(string: "https://appleid.apple.com/auth/authorize")!,
                tokenEndpoint: URL = URL(string: "https://appleid.apple.com/auth/token")!,
                jwksURI: URL = URL(string: "https://appleid.apple.com/auth/keys")!,
                revocationEndpoint: URL = URL(string: "https://appleid.apple.com/auth/revoke")!,
                clientSecretLifetime: TimeInterval = 300) {
        self.clientID = clientID; self.teamID = teamID; self.keyID = keyID; self.privateKeyPEM = privateKeyPEM
        self.extraAudiences = extraAudiences; self.scopes = scopes; self.authorizationEndpoint = authorizationEndpoint
        self.tokenEndpoint = tokenEndpoint; self.jwksURI = jwksURI; self.revocationEndpoint = revocationEndpoint
        self.clientSecretLifetime = clientSecretLifetime
    }
}
