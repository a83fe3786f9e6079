import Foundation
import GatehouseHTTP

/// `/healthz` (the process answers), `/readyz` (its database answers) and `/metrics` (Prometheus).
public struct OperationsRoutes: Sendable {
    /// Throws when the database cannot serve; the error's description is logged, never sent.
    public typealias ReadinessCheck = @Sendable () async throws -> Void

    let readiness: ReadinessCheck
    let metrics: HTTPMetrics
    let databaseErrors: Counter
    let log: ServerLog
    let extraCounters: [Counter]

    /// - Parameter extraCounters: further counters `/metrics` renders (e.g. maintenance).
    public init(readiness: @escaping ReadinessCheck, metrics: HTTPMetrics, databaseErrors: Counter, log: ServerLog,
                extraCounters: [Counter] = []) {
        self.readiness = readiness; self.metrics = metrics; self.databaseErrors = databaseErrors; self.log = log
        self.extraCounters = extraCounters
    }

    public func register(into router: inout Router) {
        router.get("/healthz") { _ in Response.text("ok") }
        router.get("/readyz", head: .servedByGet) { [readiness, databaseErrors, log] request async in
            do {
                try await readiness()
                return Response.json(["status": "ready"])
            } catch {
                databaseErrors.increment(["readyz"])
                log.error("readiness check failed", [("request_id", request.requestID), ("error", "\(error)")])
                var response = Response.json(["status": "unavailable", "reason": "database did not answer"],
                                             status: .serviceUnavailable)
                response.headers.set("Retry-After", "5")
                return response
            }
        }
        router.get("/metrics") { [metrics, databaseErrors, extraCounters] _ in
            var text = PrometheusText()
            metrics.render(into: &text)
            databaseErrors.render(into: &text)
            for counter in extraCounters { counter.render(into: &text) }
            var response = Response.text(text.output)
            response.headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            return response
        }
    }
}
