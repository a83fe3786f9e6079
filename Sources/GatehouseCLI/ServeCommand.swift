import Foundation
import GatehouseDemo
import GatehouseServer
import GatehouseStore
import Synchronization

/// `gatehouse serve`: migrate, start, serve until SIGINT/SIGTERM, drain, exit 0.
enum ServeCommand: CLICommand {
    static let name = "serve"
    static let summary = "Run the server"
    static let options = ["--config": true]
    static let help = """
        Usage: gatehouse serve [--config FILE]

        Applies pending database migrations, then serves HTTP until SIGINT or SIGTERM, when it stops
        accepting connections, lets requests in flight finish (http.shutdown_grace_seconds) and exits 0.

        Environment:
          GATEHOUSE_PUBLIC_URL    public URL (default \(GatehouseConfiguration.defaultPublicURL))
          GATEHOUSE_LISTEN        address:port to bind (default \(GatehouseConfiguration.defaultListen))
          GATEHOUSE_DATABASE_URL  database (default \(GatehouseConfiguration.defaultDatabaseURL))
          GATEHOUSE_CONFIG        JSON configuration file (same as --config)
          GATEHOUSE_DEMO          1 to run the demo set-up
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        let configuration = try GatehouseConfiguration.load(environment: environment, configPath: options.value("--config"))
        let log = ServerLog()
        // Catch SIGINT/SIGTERM from the start, so a signal during start-up also ends in a clean stop.
        let shutdown = ShutdownSignal.install()
        // Secrets first: a missing key for a shared database is a configuration error, before any I/O.
        _ = try ServerSecrets.load(environment: environment, databaseURL: configuration.databaseURL)
        let database = try await DatabaseOpener.open(url: configuration.databaseURL)
        let report = try await database.migrate()
        if !report.applied.isEmpty {
            log.info("migrated database", [("from", String(report.fromVersion)), ("to", String(report.toVersion))])
        }
        let secrets = try ServerSecrets.load(environment: environment, databaseURL: configuration.databaseURL)
        let app = GatehouseApp(configuration: configuration, database: database, secrets: secrets, log: log,
                               demoProviders: SimulatedDemoProviders())
        try await app.services.keys.ensureSigningKey()
        try await app.services.preparePasswordChecks()
        // The app's configuration, not the file's: demo mode adds its clients (demo-native) there.
        for configured in app.configuration.clients {
            try await app.services.tokens.registry.apply(configured.registration, secret: configured.secret)
        }
        let server = app.makeServer()
        let port = try server.start()
        // Every process runs it; the database lease makes only one of them purge (and revoke provider
        // tokens: the job runner) at a time.
        let maintenance = app.makeMaintenance()
        maintenance.start()
        log.info("gatehouse listening", [("listen", "\(configuration.http.listen.host):\(port)"),
                                         ("public_url", configuration.publicURL.absoluteString),
                                         ("database", configuration.databaseURL.hasPrefix("sqlite:") ? configuration.databaseURL : "postgres")])
        // Start-up's code pages are not needed again; what requests run faults back in (StartupPages).
        StartupPages.releaseExecutableText()
        let signal = await shutdown.wait()
        log.info("shutting down", [("signal", signal)])
        let drained = await server.stop()
        if !drained { log.error("requests still running at the shutdown deadline; exiting anyway") }
        await maintenance.stop()
        await database.close()
        log.info("stopped")
        return ExitCode.success
    }
}

/// SIGINT/SIGTERM as dispatch sources (no async-signal-safety traps); `wait` returns the first one,
/// even if it arrived before the call.
final class ShutdownSignal: Sendable {
    private let state = Mutex<(received: String?, waiter: CheckedContinuation<String, Never>?, sources: [any DispatchSourceSignal])>((nil, nil, []))

    static func install() -> ShutdownSignal {
        let shutdown = ShutdownSignal()
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let queue = DispatchQueue(label: "gatehouse.signals")
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { shutdown.fire(name) }
            source.resume()
            shutdown.state.withLock { $0.sources.append(source) }
        }
        return shutdown
    }

    func wait() async -> String {
        await withCheckedContinuation { continuation in
            let early = state.withLock { state -> String? in
                if let received = state.received { return received }
                state.waiter = continuation
                return nil
            }
            if let early { continuation.resume(returning: early) }
        }
    }

    private func fire(_ name: String) {
        let waiter = state.withLock { state -> CheckedContinuation<String, Never>? in
            guard state.received == nil else { return nil }
            state.received = name
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: name)
    }
}
