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
        SIGHUP re-reads the configuration file: clients, providers, rate limits, mail, sessions and the
        rest apply at once; socket settings (http.* limits, metrics.listen) are logged as needing a restart.
        Under systemd (Type=notify) it reports READY=1 once migrated and listening, STOPPING=1 at the
        signal, and pings the watchdog (WatchdogSec) while it serves.

        Environment:
          GATEHOUSE_PUBLIC_URL    public URL (default \(GatehouseConfiguration.defaultPublicURL))
          GATEHOUSE_LISTEN        address:port to bind (default \(GatehouseConfiguration.defaultListen))
          GATEHOUSE_DATABASE_URL  database (default \(GatehouseConfiguration.defaultDatabaseURL))
          GATEHOUSE_SECRET_KEY    base64 master key (32 bytes) encrypting the signing keys; required for
                                  PostgreSQL, generated into the data folder for SQLite when missing
          GATEHOUSE_CONFIG        JSON configuration file (same as --config)
          GATEHOUSE_LOG_LEVEL     debug, info (default), warn or error
          GATEHOUSE_DEMO          1 to run the demo set-up
          NOTIFY_SOCKET           set by systemd: where readiness and watchdog messages go
          WATCHDOG_USEC           set by systemd: the watchdog period (pinged at half of it)
          WATCHDOG_PID            set by systemd: the process the watchdog is for
          MALLOC_ARENA_MAX, MALLOC_TRIM_THRESHOLD_  glibc malloc tuning (defaults 2 and 1 MiB)
        Variables named in the configuration file (*_env settings: client secrets, provider keys,
        mail.password_env, metrics.bearer_token_env, passwords.bcrypt_pepper_env) are read too.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        let configuration = try GatehouseConfiguration.load(environment: environment, configPath: options.value("--config"))
        let log = ServerLog(level: configuration.logLevel)
        let systemd = SystemdNotifier(environment: environment)
        // Catch SIGINT/SIGTERM from the start, so a signal during start-up also ends in a clean stop.
        let shutdown = ShutdownSignal.install()
        let reloads = ReloadSignal.install()
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
        // The app's configuration, not the file's: demo mode adds its clients (demo-native) there.
        for configured in app.configuration.clients {
            try await app.services.tokens.registry.apply(configured.registration, secret: configured.secret)
        }
        await app.readClients()
        if configuration.isHTTPS && configuration.smtp == nil && !configuration.demo {
            log.warn("the public URL is https but no SMTP server is configured (the mail section): verification and password-reset mails go only to this log")
        }
        let server = app.makeServer()
        let port = try server.start()
        // After listening, not before: the bcrypt scan reads every account (a second at a million) and the
        // dummy is an Argon2id hash. Until it ends, the only difference a sign-in can time is an unknown
        // account's missing bcrypt dummy, and the first bcrypt account checked adds it anyway.
        let passwordChecks = Task {
            do { try await app.services.preparePasswordChecks() } catch {
                log.warn("could not read the bcrypt cost in use; unknown accounts get a bcrypt dummy once one is checked",
                         [("error", String(describing: error))])
            }
            MallocTuning.releaseFreeMemory()
        }
        let metricsServer = app.makeMetricsServer()
        if let metricsServer {
            let metricsPort = try metricsServer.start()
            log.info("metrics listening", [("listen", "\(configuration.metrics.listen!.host):\(metricsPort)")])
        }
        // Every process runs it; the database lease makes only one of them purge (and revoke provider
        // tokens: the job runner) at a time.
        let maintenance = app.makeMaintenance()
        maintenance.start()
        let reload = ConfigurationReload(environment: environment, configPath: options.value("--config"), database: database,
                                         secrets: secrets, log: log, systemd: systemd, server: server, metricsServer: metricsServer)
        // One reload at a time; at shutdown the sequence ends and the last maintenance service is handed back.
        let reloader = Task {
            var running = ConfigurationReload.Running(loaded: configuration, app: app, maintenance: maintenance)
            for await _ in reloads.requests { running = await reload.reload(running) }
            return running.maintenance
        }
        log.info("gatehouse listening", [("listen", "\(configuration.http.listen.host):\(port)"),
                                         ("public_url", configuration.publicURL.absoluteString),
                                         ("database", configuration.databaseURL.hasPrefix("sqlite:") ? configuration.databaseURL : "postgres")])
        // Migrated and listening: now `systemctl start` may return.
        systemd.notify("READY=1\nSTATUS=serving on \(configuration.http.listen.host):\(port)\nMAINPID=\(getpid())")
        let watchdog = systemd.startWatchdog()
        // Start-up's code pages are not needed again; what requests run faults back in (StartupPages).
        StartupPages.releaseExecutableText()
        let signal = await shutdown.wait()
        systemd.notify("STOPPING=1\nSTATUS=draining requests in flight")
        watchdog?.cancel()
        log.info("shutting down", [("signal", signal)])
        reloads.finish()
        if let metricsServer { await metricsServer.stop() }
        let drained = await server.stop()
        if !drained { log.error("requests still running at the shutdown deadline; exiting anyway") }
        await reloader.value.stop()
        await passwordChecks.value
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
