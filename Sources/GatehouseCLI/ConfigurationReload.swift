import Foundation
import GatehouseDemo
import GatehouseHTTPServer
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import Synchronization

/// SIGHUP (`systemctl reload`): re-reads the configuration file and swaps in an application built from
/// it — clients, providers, rate limits, mail, sessions, webhooks, page settings — while requests in
/// flight finish on the old one. What lives below the application (the listening sockets and their
/// limits, the metrics listener, the database, the public URL, the environment) stays; a changed setting
/// of that kind is logged as needing a restart. A file that does not parse leaves everything as it was.
struct ConfigurationReload: Sendable {
    /// What a reload replaces together.
    struct Running: Sendable {
        /// The configuration as loaded (before demo mode's additions), to compare the next one with.
        let loaded: GatehouseConfiguration
        let app: GatehouseApp
        let maintenance: MaintenanceService
    }

    let environment: [String: String]
    let configPath: String?
    let database: any GatehouseDatabase
    let secrets: ServerSecrets
    let log: ServerLog
    let systemd: SystemdNotifier
    let server: HTTPServer
    let metricsServer: HTTPServer?

    func reload(_ running: Running) async -> Running {
        systemd.notify("RELOADING=1\nMONOTONIC_USEC=\(Self.monotonicMicroseconds())")
        defer { systemd.notify("READY=1\nSTATUS=serving (configuration reloaded)") }
        do {
            let next = try GatehouseConfiguration.load(environment: environment, configPath: configPath)
            for setting in Self.restartNeeded(running.loaded, next) {
                log.warn("setting changed; it takes effect at the next restart", [("setting", setting)])
            }
            var applied = next
            // Socket-level settings stay those of the running servers.
            applied.http = running.loaded.http
            applied.metrics.listen = running.loaded.metrics.listen
            let app = GatehouseApp(configuration: applied, database: database, secrets: secrets, log: log,
                                   demoProviders: SimulatedDemoProviders(), metrics: running.app.metrics)
            try await app.services.keys.ensureSigningKey()
            for configured in app.configuration.clients {
                try await app.services.tokens.registry.apply(configured.registration, secret: configured.secret)
            }
            await app.readClients()
            server.replacePipeline(app.pipeline)
            metricsServer?.replacePipeline(app.metricsPipeline)
            await running.maintenance.stop()
            let maintenance = app.makeMaintenance()
            maintenance.start()
            log.info("configuration reloaded", [("clients", String(app.configuration.clients.count)),
                                                ("providers", app.providers.providers.map(\.id).joined(separator: ","))])
            return Running(loaded: next, app: app, maintenance: maintenance)
        } catch {
            log.error("configuration reload failed; the running configuration stays", [("error", String(describing: error))])
            return running
        }
    }

    /// The settings a reload cannot apply, by their documented names.
    static func restartNeeded(_ old: GatehouseConfiguration, _ new: GatehouseConfiguration) -> [String] {
        let a = old.http, b = new.http
        let pairs: [(String, Bool)] = [
            ("http.max_body_bytes", a.maxBodyBytes == b.maxBodyBytes), ("http.max_header_bytes", a.maxHeaderBytes == b.maxHeaderBytes),
            ("http.connection_timeout_seconds", a.connectionTimeoutSeconds == b.connectionTimeoutSeconds),
            ("http.max_connections", a.maxConnections == b.maxConnections), ("http.max_connections_per_ip", a.maxConnectionsPerIP == b.maxConnectionsPerIP),
            ("http.io_threads", a.ioThreads == b.ioThreads), ("http.shutdown_grace_seconds", a.shutdownGraceSeconds == b.shutdownGraceSeconds),
            ("http.header_timeout_seconds", a.headerTimeoutSeconds == b.headerTimeoutSeconds),
            ("http.minimum_receive_bytes_per_second", a.minimumReceiveBytesPerSecond == b.minimumReceiveBytesPerSecond),
            ("http.health_check_connections", a.healthCheckConnections == b.healthCheckConnections),
            ("metrics.listen", old.metrics.listen == new.metrics.listen),
        ]
        return pairs.filter { !$0.1 }.map(\.0)
    }

    static func monotonicMicroseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000 + UInt64(spec.tv_nsec) / 1_000
    }
}

/// SIGHUP as an async sequence of reload requests (a dispatch source: no async-signal-safety traps).
final class ReloadSignal: Sendable {
    let requests: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    /// Kept for the process's life: a released source stops delivering.
    private let sources = Mutex<[any DispatchSourceSignal]>([])

    /// Call at the very start: SIGHUP's default action ends the process.
    static func install() -> ReloadSignal {
        signal(SIGHUP, SIG_IGN)
        let reload = ReloadSignal()
        reload.sources.withLock { sources in
            let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: DispatchQueue(label: "gatehouse.reload"))
            source.setEventHandler { reload.fire() }
            source.resume()
            sources.append(source)
        }
        return reload
    }

    private init() {
        // Several signals during one reload make one more reload, not a queue of them.
        (requests, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    private func fire() { continuation.yield() }

    /// Ends the sequence (at shutdown).
    func finish() { continuation.finish() }
}
