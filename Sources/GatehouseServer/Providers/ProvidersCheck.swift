import Foundation
import GatehouseCrypto
import GatehouseProviders

/// What `gatehouse providers check` does once the configuration has parsed: for each enabled provider,
/// fetch what it publishes (discovery, JWKS) and say in plain words what is wrong.
///
/// Configuration errors (an unknown key, a missing environment variable, an Apple key that is not
/// P-256) never get here: the parser already refused them, naming the key.
public struct ProvidersCheck: Sendable {
    /// The verdict on one provider.
    public struct Result: Sendable, Equatable {
        /// `apple`, `google`, `github` or the generic provider's id.
        public var provider: String
        public var ok: Bool
        /// One line per finding: what was checked and what came back.
        public var notes: [String]
    }

    let transport: any ProviderTransport
    let timeoutSeconds: Int
    /// The Apple callback URL sent with the dummy code (Apple checks credentials before it).
    let redirectURI: String

    /// - Parameter transport: defaults to the server's own (URLSession, the configured time limit), so the
    ///   check sees the network the way sign-ins will.
    public init(timeoutSeconds: Int, transport: (any ProviderTransport)? = nil,
                appleRedirectURI: String = "https://gatehouse.invalid/auth/apple/callback") {
        self.timeoutSeconds = timeoutSeconds
        self.redirectURI = appleRedirectURI
        let base = transport ?? URLSessionProviderTransport(timeoutSeconds: timeoutSeconds)
        self.transport = TimeLimitedTransport(PlainErrorTransport(inner: base), timeout: .seconds(timeoutSeconds))
    }

    /// Checks every configured provider, in button order.
    public func run(_ configuration: ProvidersConfiguration) async -> [Result] {
        var results: [Result] = []
        if let apple = configuration.apple { results.append(await check(apple: apple)) }
        if let google = configuration.google { results.append(await check(oidc: google)) }
        if let github = configuration.github { results.append(check(github: github)) }
        for oidc in configuration.oidc { results.append(await check(oidc: oidc)) }
        return results
    }

    func check(apple settings: AppleSettings) async -> Result {
        var result = Result(provider: "apple", ok: true, notes: [])
        // Building the provider loads the .p8 key the way sign-ins will (the parser checked its curve).
        var provider: AppleProvider?
        do {
            provider = try AppleProvider(settings: settings, transport: transport)
            result.notes.append("the .p8 key (key id \(settings.keyID)) is an EC P-256 key for client secrets")
        } catch {
            result.fail("the .p8 key cannot be used: \(error)")
        }
        for (name, url) in [("authorization", settings.authorizationEndpoint), ("token", settings.tokenEndpoint),
                            ("revocation", settings.revocationEndpoint)] {
            if let problem = Self.urlProblem(url) { result.fail("the \(name) endpoint \(url.absoluteString) \(problem)") }
        }
        if let provider, Self.urlProblem(settings.tokenEndpoint) == nil {
            await checkAppleCredentials(provider, into: &result)
        }
        await checkJWKS(settings.jwksURI, into: &result)
        if settings.extraAudiences.isEmpty {
            result.notes.append("note: no \"audiences\" (app bundle ids): native Sign in with Apple and Apple's server notifications "
                                + "for app users are refused until you list them")
        }
        return result
    }

    /// Asks Apple's token endpoint to redeem a dummy code with a freshly minted client secret.
    private func checkAppleCredentials(_ provider: AppleProvider, into result: inout Result) async {
        let endpoint = provider.settings.tokenEndpoint.absoluteString
        do {
            switch try await provider.probeCredentials(redirectURI: redirectURI) {
            case .accepted:
                result.notes.append("Apple accepted the client secret (team id \(provider.settings.teamID), key id \(provider.settings.keyID), "
                                    + "Services ID \(provider.settings.clientID)): a dummy code got invalid_grant, not invalid_client")
            case .rejected:
                result.fail("Apple refused the client secret with invalid_client: the team id \(provider.settings.teamID), key id "
                            + "\(provider.settings.keyID), .p8 key and Services ID \(provider.settings.clientID) do not belong together "
                            + "(check each in the Apple Developer console: the key must be enabled for Sign in with Apple "
                            + "and linked to this Services ID's primary App ID)")
            case .unexpected(let code):
                result.fail("Apple's token endpoint \(endpoint) answered \(code) to a dummy code (expected invalid_grant)")
            }
        } catch {
            result.fail(describe(error, fetching: "the token endpoint", at: provider.settings.tokenEndpoint))
        }
    }

    func check(oidc settings: OIDCSettings) async -> Result {
        var result = Result(provider: settings.id, ok: true, notes: [])
        let discoveryURL = settings.resolvedDiscoveryURL
        let endpoints: OIDCEndpoints
        do {
            // The provider's own discovery code: the same issuer comparison sign-ins rely on.
            endpoints = try await OIDCProvider(settings: settings, transport: transport).endpoints()
        } catch {
            result.fail(describe(error, fetching: "the discovery document", at: discoveryURL))
            return result
        }
        if settings.authorizationEndpoint == nil || settings.tokenEndpoint == nil || settings.jwksURI == nil, let discoveryURL {
            result.notes.append("discovery at \(discoveryURL.absoluteString) names issuer \(settings.issuer)")
        }
        for (name, url) in [("authorization", endpoints.authorization), ("token", endpoints.token)] {
            if let problem = Self.urlProblem(url) { result.fail("the \(name) endpoint \(url.absoluteString) \(problem)") }
        }
        await checkJWKS(endpoints.jwks, into: &result)
        return result
    }

    func check(github settings: GitHubSettings) -> Result {
        // GitHub publishes no discovery or keys; a request without a real code only proves reachability.
        var result = Result(provider: "github", ok: true, notes: [])
        for (name, url) in [("authorization", settings.authorizationEndpoint), ("token", settings.tokenEndpoint),
                            ("api", settings.apiBaseURL)] {
            if let problem = Self.urlProblem(url) { result.fail("the \(name) URL \(url.absoluteString) \(problem)") }
        }
        if result.ok { result.notes.append("endpoint URLs are valid (GitHub publishes nothing to fetch)") }
        return result
    }

    /// Fetches a JWKS and counts the signing keys Gatehouse can use (RSA or EC P-256, not `use: enc`).
    private func checkJWKS(_ url: URL, into result: inout Result) async {
        if let problem = Self.urlProblem(url) {
            result.fail("the JWKS URL \(url.absoluteString) \(problem)")
            return
        }
        let response: ProviderHTTPResponse
        do {
            response = try await transport.send(ProviderHTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
        } catch {
            result.fail(describe(error, fetching: "the JWKS", at: url))
            return
        }
        guard response.status == 200 else {
            result.fail("the JWKS at \(url.absoluteString) answered HTTP \(response.status)")
            return
        }
        guard let set = try? JWKSet(json: response.body) else {
            result.fail("the JWKS at \(url.absoluteString) is not a JWK Set (expected {\"keys\": [...]})")
            return
        }
        let usable = set.keys.filter { key in
            guard key.use != "enc", let kind = try? key.kind() else { return false }
            return kind == .rsa || kind == .ecP256
        }
        if usable.isEmpty {
            result.fail("the JWKS at \(url.absoluteString) has no usable signing keys (\(set.keys.count) keys, none RSA or EC P-256 for signing)")
        } else {
            result.notes.append("the JWKS at \(url.absoluteString) has \(usable.count) usable signing key\(usable.count == 1 ? "" : "s")")
        }
    }

    /// Plain words for a failed fetch.
    private func describe(_ error: any Error, fetching what: String, at url: URL?) -> String {
        let place = url?.absoluteString ?? "(no URL)"
        switch error {
        case ProviderError.timedOut, is CancellationError:
            return "\(what) at \(place) did not answer within \(timeoutSeconds) s"
        case ProviderError.misconfigured(let why):
            return "\(what) at \(place) is wrong: \(why)"
        case ProviderError.providerError(let code):
            return "\(what) at \(place) answered with an error (\(code))"
        case ProviderError.invalidCallback(let why):
            return "\(what) at \(place) is not usable: \(why)"
        case ProviderError.unavailable(let why):
            return "\(what) at \(place) is unreachable (\(why))"
        default:
            return "\(what) at \(place) is unreachable (\(error.localizedDescription))"
        }
    }

    /// Why a provider URL is unacceptable, or nil: https only, http only on loopback (tests, simulators).
    static func urlProblem(_ url: URL) -> String? {
        guard let host = url.host, !host.isEmpty else { return "has no host" }
        switch url.scheme {
        case "https": return nil
        case "http" where host == "127.0.0.1" || host == "localhost" || host == "::1": return nil
        case "http": return "must use https (plain http is only allowed on loopback)"
        default: return "must be an https URL"
        }
    }
}

extension ProvidersCheck.Result {
    mutating func fail(_ note: String) {
        ok = false
        notes.append(note)
    }
}

/// Turns network errors into one plain sentence before the provider code words them, so the report says
/// "Couldn't connect to server" rather than dumping an `NSError` with its whole user-info dictionary.
private struct PlainErrorTransport: ProviderTransport {
    let inner: any ProviderTransport

    func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
        do { return try await inner.send(request) } catch let error as ProviderError { throw error } catch is CancellationError {
            throw CancellationError()
        } catch {
            let nsError = error as NSError
            let text = (nsError.userInfo[NSLocalizedDescriptionKey] as? String).flatMap { $0.isEmpty ? nil : $0 }
                ?? (nsError.domain == NSURLErrorDomain ? "network error \(nsError.code)" : String(describing: error))
            throw ProviderError.unavailable(text)
        }
    }
}
