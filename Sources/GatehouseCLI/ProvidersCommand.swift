import Foundation
import GatehouseServer

/// `gatehouse providers check`: validates the `providers` configuration and what each provider publishes.
enum ProvidersCommand: CLICommand {
    static let name = "providers"
    static let takesAction = true
    static let summary = "Check the sign-in providers' configuration"
    static let options = ["--config": true]
    static let help = """
        Usage: gatehouse providers check [--config FILE]

        check   validates the `providers` section of the configuration, then, where the network allows,
                fetches what each provider publishes and reports what is wrong in plain words:
                  Apple   the .p8 key, the endpoint URLs, the JWKS at the configured endpoint
                  Google  the discovery document (its issuer must match) and the JWKS it names
                  GitHub  the endpoint URLs (GitHub publishes nothing to fetch)
                  OIDC    each provider's discovery document (issuer must match) and JWKS

        Exit codes: 0 every provider is fine, 1 a provider failed a check, 2 a configuration error
        (the message names the key: an unknown setting, a client secret environment variable that is
        not set, an Apple key that is not an EC P-256 .p8 key, …).
        See docs/providers/ for setting each provider up.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        guard options.positional == ["check"] else {
            throw UsageError(message: "providers needs the action check (gatehouse providers check [--config FILE])")
        }
        // The whole configuration loads as `serve` would load it, so a pass here means `serve` accepts it too.
        let configuration = try GatehouseConfiguration.load(environment: environment, configPath: options.value("--config"))
        let providers = configuration.providers
        if providers.isEmpty {
            print(configuration.demo ? "no providers configured (demo mode uses the built-in simulator, nothing to check)"
                                     : "no providers configured: add a \"providers\" section (see docs/providers/)")
            return ExitCode.success
        }
        var base = configuration.publicURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let results = await ProvidersCheck(timeoutSeconds: providers.timeoutSeconds,
                                           appleRedirectURI: base + "/auth/apple/callback").run(providers)
        for result in results {
            print("\(result.provider): \(result.ok ? "OK" : "FAILED")")
            for note in result.notes { print("  - \(note)") }
        }
        let failed = results.filter { !$0.ok }.map(\.provider)
        if failed.isEmpty {
            print("all \(results.count) provider\(results.count == 1 ? "" : "s") OK")
            return ExitCode.success
        }
        print("\(failed.count) of \(results.count) failed: \(failed.joined(separator: ", "))")
        return ExitCode.failure
    }
}
