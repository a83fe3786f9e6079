import Foundation
import GatehouseCrypto

/// Both halves of the demo wiring: the simulator's configuration with one client per provider,
/// and the matching settings Gatehouse needs to use those clients (endpoints, ids, secrets and
/// an Apple-style `.p8` private key).
public struct DemoSetup: Sendable {
    /// What Gatehouse needs for Sign in with Apple against the simulator.
    public struct AppleSettings: Sendable {
        public let clientID: String
        public let teamID: String
        public let keyID: String
        /// PKCS#8 PEM, exactly like a `.p8` file from Apple (read it with `SigningKey(pem:)`).
        public let privateKeyPEM: String
        /// Apple's real issuer string (`https://appleid.apple.com`), not a simulator URL.
        public let issuer: String
        public let authorizationEndpoint: String
        public let tokenEndpoint: String
        public let jwksURI: String
        public let revocationEndpoint: String
        public let redirectURI: String
    }

    /// What Gatehouse needs for Google against the simulator.
    public struct GoogleSettings: Sendable {
        public let clientID: String
        public let clientSecret: String
        /// The id_token issuer (``GoogleSimulator/httpsIssuer`` unless configured otherwise).
        public let issuer: String
        public let discoveryURL: String
        public let authorizationEndpoint: String
        public let tokenEndpoint: String
        public let jwksURI: String
        public let userinfoEndpoint: String
        public let redirectURI: String
    }

    /// What Gatehouse needs for GitHub against the simulator.
    public struct GitHubSettings: Sendable {
        public let clientID: String
        public let clientSecret: String
        public let authorizationEndpoint: String
        public let tokenEndpoint: String
        /// Stands for `https://api.github.com`.
        public let apiBaseURL: String
        public let redirectURI: String
    }

    /// The demo iOS app's bundle id: a second Apple client of the same team and key, the `aud` of its
    /// native identity tokens (see ``AppleSimulator/nativeAuthorization(bundleID:email:name:nonceSHA256Hex:privateRelay:)``).
    public static let nativeBundleID = "com.example.gatehouse.demo.app"
    /// The demo app's own Google OAuth client (iOS/Android kind): the `azp` of its native Google ID tokens.
    public static let nativeGoogleClientID = "gatehouse-demo-app.apps.googleusercontent.com"

    /// The simulator side; adjust freely before building the ``ProviderSimulator``.
    public var configuration: ProviderSimulator.Configuration
    public let apple: AppleSettings
    public let google: GoogleSettings
    public let github: GitHubSettings
}

extension ProviderSimulator.Configuration {
    /// A demo wiring: generates an Apple `.p8`-style P-256 key and random client secrets, registers
    /// one client per provider with the given redirect URIs, and returns both sides.
    ///
    /// - Parameter baseURL: where the simulator will be reachable, e.g. `http://127.0.0.1:8080/_sim`.
    public static func demo(baseURL: String, appleRedirectURI: String, googleRedirectURI: String,
                            githubRedirectURI: String) throws -> DemoSetup {
        let appleKey = try SigningKey.generate(.es256)
        let teamID = "DEMOTEAM01", keyID = "DEMOKEY001", appleClientID = "com.example.gatehouse.demo.web"
        let googleClientID = "demo-\(Hex.encode(SecureRandom.bytes(6))).apps.googleusercontent.com"
        let githubClientID = "Ov23li" + Hex.encode(SecureRandom.bytes(7))
        let googleSecret = "GOCSPX-" + SecureRandom.token(byteCount: 21)
        let githubSecret = Hex.encode(SecureRandom.bytes(20))
        let configuration = ProviderSimulator.Configuration(
            baseURL: baseURL,
            appleClients: [AppleClient(clientID: appleClientID, teamID: teamID, keyID: keyID,
                                       publicKey: appleKey.verificationKey, redirectURIs: [appleRedirectURI]),
                           // Native sign-in redeems codes as the app (client_id = bundle id), with no redirect URI.
                           AppleClient(clientID: DemoSetup.nativeBundleID, teamID: teamID, keyID: keyID,
                                       publicKey: appleKey.verificationKey, redirectURIs: [])],
            googleClients: [GoogleClient(clientID: googleClientID, clientSecret: googleSecret, redirectURIs: [googleRedirectURI])],
            githubClients: [GitHubClient(clientID: githubClientID, clientSecret: githubSecret, redirectURIs: [githubRedirectURI])])
        // The same suffixes the simulators register (checked by a test against their endpoint properties).
        let base = configuration.baseURL
        return DemoSetup(
            configuration: configuration,
            apple: .init(clientID: appleClientID, teamID: teamID, keyID: keyID, privateKeyPEM: try appleKey.pkcs8PEM(),
                         issuer: AppleSimulator.issuer, authorizationEndpoint: base + "/apple/auth/authorize",
                         tokenEndpoint: base + "/apple/auth/token", jwksURI: base + "/apple/auth/keys",
                         revocationEndpoint: base + "/apple/auth/revoke", redirectURI: appleRedirectURI),
            google: .init(clientID: googleClientID, clientSecret: googleSecret, issuer: configuration.googleIssuer,
                          discoveryURL: base + "/google/.well-known/openid-configuration",
                          authorizationEndpoint: base + "/google/o/oauth2/v2/auth", tokenEndpoint: base + "/google/token",
                          jwksURI: base + "/google/certs", userinfoEndpoint: base + "/google/userinfo",
                          redirectURI: googleRedirectURI),
            github: .init(clientID: githubClientID, clientSecret: githubSecret,
                          authorizationEndpoint: base + "/github/login/oauth/authorize",
                          tokenEndpoint: base + "/github/login/oauth/access_token", apiBaseURL: base + "/github/api",
                          redirectURI: githubRedirectURI))
    }
}
