import Foundation
import GatehouseIdentity

/// `gatehouse bench refresh-tokens`: load-test material that would otherwise take a sign-in each.
enum BenchCommand: CLICommand {
    static let name = "bench"
    static let takesAction = true
    static let summary = "Mint load-test material (refresh tokens)"
    static let options = ["--config": true, "--client": true, "--email": true, "--scope": true, "--count": true]
    static let help = """
        Usage: gatehouse bench refresh-tokens --client ID --email E [--scope S] --count N

        refresh-tokens  mints N refresh tokens for the account and client, each the first of its own grant,
                        and prints them one per line (bench/oauth.sh uses each once). The client must be
                        allowed the refresh_token grant and the scope (clients of the configuration file are registered first, as serve does); the account must be able to get tokens
                        (verified, enabled). Only the tokens' hashes are stored: the printed values are the
                        only copy, so treat the output as the secrets it is. At most 1,000,000 per run.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        guard options.positional.first == "refresh-tokens" else { throw UsageError(message: "bench needs an action: refresh-tokens") }
        guard let clientID = options.value("--client") else { throw UsageError(message: "bench refresh-tokens needs --client") }
        guard let email = options.value("--email") else { throw UsageError(message: "bench refresh-tokens needs --email") }
        guard let text = options.value("--count"), let count = Int(text), (1...1_000_000).contains(count) else {
            throw UsageError(message: "bench refresh-tokens needs --count between 1 and 1000000")
        }
        let context = try await OperatorContext.open(options: options, environment: environment)
        defer { Task { await context.database.close() } }
        // The signing keys and the clients of the configuration file, set up as `serve` does, so a fresh
        // database works.
        try await context.services.keys.ensureSigningKey()
        for configured in context.configuration.clients {
            try await context.services.tokens.registry.apply(configured.registration, secret: configured.secret)
        }
        let user = try await context.user(email: email)
        let values: [String]
        do {
            values = try await context.services.tokens.mintRefreshTokens(clientID: clientID, user: user,
                                                                         scope: options.value("--scope"), count: count)
        } catch let error as OAuthError {
            throw UsageError(message: error.description)
        }
        var output = values.joined(separator: "\n")
        output += "\n"
        FileHandle.standardOutput.write(Data(output.utf8))
        return ExitCode.success
    }
}
