import Foundation
import GatehouseCrypto
import GatehouseHTTP

/// A faithful, in-memory stand-in for Sign in with Apple, Google and GitHub.
///
/// Mount it inside another application or serve it alone:
///
/// ```swift
/// let simulator = try ProviderSimulator(configuration: .init(
///     baseURL: "http://127.0.0.1:8080/_sim",
///     googleClients: [GoogleClient(clientID: "web", clientSecret: "s3cret",
///                                  redirectURIs: ["http://127.0.0.1:8080/auth/google/callback"])]))
/// var router = Router()
/// simulator.register(into: &router)          // routes under /_sim/apple, /_sim/google, /_sim/github
/// ```
///
/// Every page is a plain form, so tests complete sign-ins with ordinary HTTP requests. State
/// (codes, tokens, consents) lives in bounded, expiring in-memory stores.
public final class ProviderSimulator: Sendable {
    /// The configuration it was built with.
    public let configuration: Configuration
    /// The simulated Sign in with Apple (`{prefix}/apple/...`).
    public let apple: AppleSimulator
    /// The simulated Google (`{prefix}/google/...`).
    public let google: GoogleSimulator
    /// The simulated GitHub (`{prefix}/github/...`).
    public let github: GitHubSimulator

    /// Builds the three providers; generates RS256 keys unless the configuration supplies them.
    public init(configuration: Configuration) throws {
        self.configuration = configuration
        apple = try AppleSimulator(configuration: configuration)
        google = try GoogleSimulator(configuration: configuration)
        github = GitHubSimulator(configuration: configuration)
    }

    /// Registers every provider's routes under ``Configuration/pathPrefix``.
    public func register(into router: inout Router) {
        apple.register(into: &router)
        google.register(into: &router)
        github.register(into: &router)
    }

    /// A router holding only the simulator's routes (the stand-alone server and tests use it).
    public func makeRouter() -> Router {
        var router = Router()
        register(into: &router)
        return router
    }
}
