import Foundation
import GatehouseIdentity
import GatehouseServer
import GatehouseSQLStore
import GatehouseStore

/// `gatehouse bench refresh-tokens`: load-test material that would otherwise take a sign-in each.
/// `gatehouse bench online-step`: a migration's online step replayed on a large database, with what it held.
enum BenchCommand: CLICommand {
    static let name = "bench"
    static let takesAction = true
    static let summary = "Mint load-test material (refresh tokens); replay a migration's online step"
    static let options = ["--config": true, "--client": true, "--email": true, "--scope": true, "--count": true,
                          "--unique": false, "--where": true, "--using": true]
    static let help = """
        Usage: gatehouse bench refresh-tokens --client ID --email E [--scope S] --count N
               gatehouse bench online-step index NAME TABLE COLUMNS [--unique] [--where PREDICATE] [--using METHOD]
               gatehouse bench online-step backfill STATEMENT

        refresh-tokens  mints N refresh tokens for the account and client, each the first of its own grant,
                        and prints them one per line (bench/oauth.sh uses each once). The client must be
                        allowed the refresh_token grant and the scope (clients of the configuration file are registered first, as serve does); the account must be able to get tokens
                        (verified, enabled). Only the tokens' hashes are stored: the printed values are the
                        only copy, so treat the output as the secrets it is. At most 1,000,000 per run.
        online-step     runs one online migration step on GATEHOUSE_DATABASE_URL the way `gatehouse migrate`
                        runs it (docs/migrations.md): an index (PostgreSQL CONCURRENTLY, SQLite one transaction)
                        or a backfill whose one parameter `?` is the batch size, paced to short transactions.
                        Prints one JSON line: transactions, rows, longest_ms (the longest transaction),
                        over_10ms (transactions longer than 10 ms) and total_ms. bench/scale.sh replays
                        the migrations that grow with the data this way.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        if options.positional.first == "online-step" { return try await onlineStep(options: options, environment: environment) }
        guard options.positional.first == "refresh-tokens" else {
            throw UsageError(message: "bench needs an action: refresh-tokens or online-step")
        }
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

extension BenchCommand {
    static func onlineStep(options: CommandOptions, environment: [String: String]) async throws -> Int32 {
        let arguments = Array(options.positional.dropFirst())
        let step: SQLOnlineStep
        switch arguments.first {
        case "index" where arguments.count == 4:
            step = .index(SQLOnlineIndex(name: arguments[1], table: arguments[2], columns: arguments[3],
                                         unique: options.flag("--unique"), predicate: options.value("--where"),
                                         method: options.value("--using")))
        case "backfill" where arguments.count == 2:
            step = .backfill(arguments[1])
        default:
            throw UsageError(message: "bench online-step needs: index NAME TABLE COLUMNS, or backfill STATEMENT")
        }
        let configuration = try GatehouseConfiguration.load(environment: environment, configPath: options.value("--config"))
        let opened = try await DatabaseOpener.open(url: configuration.databaseURL)
        defer { Task { await opened.close() } }
        guard let database = opened as? any SQLStoreDatabase else {
            throw UsageError(message: "bench online-step needs an SQLite or PostgreSQL database")
        }
        let report = try await database.runOnline(step)
        let milliseconds = { (duration: Duration) in (WriterHoldPacing.seconds(duration) * 10_000).rounded() / 10 }
        let line = #"{"transactions": \#(report.transactions), "rows": \#(report.rows), "#
            + #""longest_ms": \#(milliseconds(report.longestTransaction)), "over_10ms": \#(report.longTransactions), "#
            + #""total_ms": \#(milliseconds(report.total))}"#
        print(line)
        return ExitCode.success
    }
}
