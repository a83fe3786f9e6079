import Foundation
import GatehouseIdentity
import GatehouseDemo
import GatehouseServer
import GatehouseStore

/// What the admin commands work with: configuration, the migrated database and the identity services.
struct OperatorContext {
    let configuration: GatehouseConfiguration
    let database: any GatehouseDatabase
    let services: IdentityServices

    static let options = ["--config": true]

    static func open(options: CommandOptions, environment: [String: String]) async throws -> OperatorContext {
        let configuration = try GatehouseConfiguration.load(environment: environment, configPath: options.value("--config"))
        let secrets = try ServerSecrets.load(environment: environment, databaseURL: configuration.databaseURL)
        let database = try await DatabaseOpener.open(url: configuration.databaseURL)
        try await database.requireCurrentSchemaOrMigrate()
        let app = GatehouseApp(configuration: configuration, database: database, secrets: secrets,
                               log: ServerLog(sink: { _ in }), demoProviders: SimulatedDemoProviders())
        return OperatorContext(configuration: configuration, database: database, services: app.services)
    }

    func user(email: String) async throws -> User {
        guard let address = EmailAddress(email), let user = try await database.users.find(email: address.value) else {
            throw RuntimeFailure(message: "no account with email \(email)")
        }
        return user
    }
}

extension GatehouseDatabase {
    /// Admin commands migrate an empty or older database (like `serve`), but never touch a newer one.
    func requireCurrentSchemaOrMigrate() async throws { _ = try await migrate() }
}
