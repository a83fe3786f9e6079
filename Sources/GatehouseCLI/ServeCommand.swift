import Foundation
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
        // Secrets first: a missing key for a shared database is a configuration error, before any I/O.
        _ = try ServerSecrets.load(environment: environment, databaseURL: configuration.databaseURL)
        let database = try await DatabaseOpener.open(url: configuration.databaseURL)
        let report = try await database.migrate()
        if !report.applied.isEmpty {
            log.info("migrated database", [("from", String(report.fromVersion)), ("to", String(report.toVersion))])
        }
        let secrets = try ServerSecrets.load(environment: environment, databaseURL: configuration.databaseURL)
        let app = GatehouseApp(configuration: configuration, database: database, secrets: secrets, log: log)
        try await app.services.keys.ensureSigningKey()
        for configured in configuration.clients {
            try await app.services.tokens.registry.apply(configured.registration, secret: configured.secret)
        }
        let server = app.makeServer()
        let port = try server.start()
        log.info("gatehouse listening", [("listen", "\(configuration.http.listen.host):\(port)"),
                                         ("public_url", configuration.publicURL.absoluteString),
                                         ("database", configuration.databaseURL.hasPrefix("sqlite:") ? configuration.databaseURL : "postgres")])
        let signal = await ShutdownSignal.wait()
        log.info("shutting down", [("signal", signal)])
        let drained = await server.stop()
        if !drained { log.error("requests still running at the shutdown deadline; exiting anyway") }
        await database.close()
        log.info("stopped")
        return ExitCode.success
    }
}

/// Waits for SIGINT or SIGTERM (installed as dispatch sources, so no async-signal-safety traps).
enum ShutdownSignal {
    static func wait() async -> String {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        let queue = DispatchQueue(label: "gatehouse.signals")
        return await withCheckedContinuation { continuation in
            let once = SignalOnce(continuation)
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler { once.fire(name) }
                source.resume()
                once.keep(source)
            }
        }
    }
}

/// Resumes the continuation for the first signal only, and keeps the sources alive meanwhile.
private final class SignalOnce: Sendable {
    private let state: Mutex<(CheckedContinuation<String, Never>?, [any DispatchSourceSignal])>

    init(_ continuation: CheckedContinuation<String, Never>) { state = Mutex((continuation, [])) }

    func keep(_ source: any DispatchSourceSignal) { state.withLock { $0.1.append(source) } }

    func fire(_ name: String) {
        let continuation = state.withLock { state -> CheckedContinuation<String, Never>? in
            defer { state.0 = nil }
            return state.0
        }
        continuation?.resume(returning: name)
    }
}
