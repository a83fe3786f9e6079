import Foundation
import GatehouseCrypto

extension ProviderSimulator {
    /// Everything the simulator needs: where it is mounted, which clients it knows, and options.
    public struct Configuration: Sendable {
        /// The absolute URL the simulator is reachable at, e.g. `http://127.0.0.1:8080/_sim`, without a
        /// trailing slash. Google's discovery document and the demo settings build their URLs from it.
        public var baseURL: String
        /// The path prefix routes are registered under; defaults to the path of ``baseURL`` (`/_sim`).
        /// Empty means the root (the stand-alone server behind no proxy).
        public var pathPrefix: String
        /// Registered "Sign in with Apple" Services IDs.
        public var appleClients: [AppleClient]
        /// Registered Google OAuth clients.
        public var googleClients: [GoogleClient]
        /// Registered GitHub OAuth apps.
        public var githubClients: [GitHubClient]
        /// The `issuer` in Google's discovery document. Default ``GoogleSimulator/httpsIssuer``.
        public var googleIssuer: String
        /// The `iss` Google puts in id_tokens; Google uses both forms (``GoogleSimulator/httpsIssuer``
        /// and ``GoogleSimulator/bareIssuer``). `nil`: the same as ``googleIssuer``.
        public var googleIDTokenIssuer: String?
        /// Answer `403 disallowed_useragent` to embedded web views at Google's authorize endpoint, as
        /// Google does (see ``GoogleSimulator/isEmbeddedWebView(userAgent:)`` for the rule).
        public var googleRejectsEmbeddedWebViews: Bool
        /// RS256 keys to start with (tests share one to skip RSA key generation); `nil` generates one.
        public var appleSigningKey: RSASigningKey?
        public var googleSigningKey: RSASigningKey?
        /// How long authorization codes live (Apple documents 5 minutes; the others are shorter in
        /// practice, and clients redeem at once anyway).
        public var codeLifetime: TimeInterval
        /// Cap on entries per in-memory store (codes, tokens, consents); the oldest go first.
        public var storeCapacity: Int
        /// The time source; tests substitute one they can move forward.
        public var clock: @Sendable () -> Date

        /// A configuration serving at `baseURL` (absolute, no trailing slash).
        public init(baseURL: String, pathPrefix: String? = nil, appleClients: [AppleClient] = [],
                    googleClients: [GoogleClient] = [], githubClients: [GitHubClient] = [],
                    googleIssuer: String = GoogleSimulator.httpsIssuer, googleIDTokenIssuer: String? = nil,
                    googleRejectsEmbeddedWebViews: Bool = true, appleSigningKey: RSASigningKey? = nil,
                    googleSigningKey: RSASigningKey? = nil, codeLifetime: TimeInterval = 300,
                    storeCapacity: Int = 10_000, clock: @escaping @Sendable () -> Date = { Date() }) {
            var base = baseURL
            while base.hasSuffix("/") { base.removeLast() }
            self.baseURL = base
            self.pathPrefix = pathPrefix ?? Self.path(of: base)
            self.appleClients = appleClients
            self.googleClients = googleClients
            self.githubClients = githubClients
            self.googleIssuer = googleIssuer
            self.googleIDTokenIssuer = googleIDTokenIssuer
            self.googleRejectsEmbeddedWebViews = googleRejectsEmbeddedWebViews
            self.appleSigningKey = appleSigningKey
            self.googleSigningKey = googleSigningKey
            self.codeLifetime = codeLifetime
            self.storeCapacity = storeCapacity
            self.clock = clock
        }

        /// The path part of an absolute URL without a trailing slash (`http://h:1/_sim` → `/_sim`).
        static func path(of url: String) -> String {
            guard let components = URLComponents(string: url) else { return "" }
            var path = components.path
            while path.hasSuffix("/") { path.removeLast() }
            return path
        }
    }
}
