import GatehouseServer
import GatehouseStore

/// `gatehouse version`.
enum VersionCommand: CLICommand {
    static let name = "version"
    static let summary = "Print the version and supported schema"
    static let options: [String: Bool] = [:]
    static let help = "Usage: gatehouse version\n\nPrints Gatehouse's version and the database schema version it supports."

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        print("gatehouse \(GatehouseBuild.version) (schema \(StoreSchema.latestVersion))")
        return ExitCode.success
    }
}
