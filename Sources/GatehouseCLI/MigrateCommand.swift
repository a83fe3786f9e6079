import GatehouseServer
import GatehouseStore

/// `gatehouse migrate`: brings the database schema up to date; safe to run again.
enum MigrateCommand: CLICommand {
    static let name = "migrate"
    static let summary = "Apply pending database migrations"
    static let options = ["--config": true]
    static let help = """
        Usage: gatehouse migrate [--config FILE]

        Applies pending migrations to GATEHOUSE_DATABASE_URL, each in its own transaction. Running it again
        changes nothing. Refuses (exit 3) when the database was migrated by a newer Gatehouse.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        let configuration = try GatehouseConfiguration.load(environment: environment, configPath: options.value("--config"))
        let database = try await DatabaseOpener.open(url: configuration.databaseURL)
        defer { Task { await database.close() } }
        let report = try await database.migrate()
        if report.applied.isEmpty {
            print("database is up to date at schema version \(report.toVersion)")
        } else {
            print("migrated from schema version \(report.fromVersion) to \(report.toVersion) (applied \(report.applied.map(String.init).joined(separator: ", ")))")
        }
        return ExitCode.success
    }
}
