import Foundation
import GatehouseCrypto
import GatehouseHTTP

/// `/healthz` (the process answers), `/readyz` (its database answers) and `/metrics` (Prometheus).
public struct OperationsRoutes: Sendable {
    /// Throws when the database cannot serve; the error's description is logged, never sent.
    public typealias ReadinessCheck = @Sendable () async throws -> Void

    let readiness: ReadinessCheck
    let metrics: ServerMetrics
    let settings: MetricsSettings
    let log: ServerLog

    public init(readiness: @escaping ReadinessCheck, metrics: ServerMetrics, settings: MetricsSettings, log: ServerLog) {
        self.readiness = readiness; self.metrics = metrics; self.settings = settings; self.log = log
    }

    /// The public port's routes: `/metrics` only when a bearer token guards it.
    public func register(into router: inout Router) {
        router.get("/healthz") { _ in Response.text("ok") }
        router.get("/readyz", head: .servedByGet) { [readiness, metrics, log] request async in
            do {
                try await readiness()
                return Response.json(["status": "ready"])
            } catch {
                metrics.databaseErrors.increment(["readyz"])
                log.error("readiness check failed", [("request_id", request.requestID), ("error", "\(error)")])
                var response = Response.json(["status": "unavailable", "reason": "database did not answer"],
                                             status: .serviceUnavailable)
                response.headers.set("Retry-After", "5")
                return response
            }
        }
        if settings.onPublicPort { registerMetrics(into: &router) }
    }

    /// The metrics listener's routes (`metrics.listen`): `/metrics` and `/healthz`, nothing else.
    public func registerMetricsListener(into router: inout Router) {
        router.get("/healthz") { _ in Response.text("ok") }
        registerMetrics(into: &router)
    }

    private func registerMetrics(into router: inout Router) {
        router.get("/metrics") { [metrics, settings] request in
            if let token = settings.bearerToken {
                let presented = Self.bearer(request.headers["Authorization"]) ?? ""
                guard ConstantTime.equals(presented, token) else {
                    var response = Response.text("A bearer token is required.\n", status: .unauthorized)
                    response.headers.set("WWW-Authenticate", presented.isEmpty ? #"Bearer realm="gatehouse-metrics""#
                                            : #"Bearer realm="gatehouse-metrics", error="invalid_token""#)
                    return response
                }
            }
            var response = Response.text(metrics.render())
            response.headers.set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            response.headers.set("Cache-Control", "no-store")
            return response
        }
    }

    /// The credentials of `Authorization: Bearer <token>` (scheme case-insensitive, RFC 6750 §2.1).
    static func bearer(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return header.dropFirst(7).trimmingCharacters(in: .whitespaces)
    }
}
