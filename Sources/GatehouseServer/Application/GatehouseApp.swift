import Foundation
import GatehouseHTTP
import GatehouseHTTPServer

/// The assembled application: routes, middleware and error pages over a request pipeline. Build it
/// once; serve it with `HTTPServer`, or test it in-process with `respond(to:)`.
public struct GatehouseApp: Sendable {
    public let configuration: GatehouseConfiguration
    public let pipeline: RequestPipeline
    public let metrics: HTTPMetrics
    public let databaseErrors: Counter
    public let log: ServerLog

    public init(configuration: GatehouseConfiguration, readiness: @escaping OperationsRoutes.ReadinessCheck,
                log: ServerLog = ServerLog(), accessLogSink: AccessLogMiddleware.Sink? = nil,
                extraRoutes: (inout Router) -> Void = { _ in }) {
        self.configuration = configuration
        self.log = log
        let metrics = HTTPMetrics()
        let databaseErrors = Counter(name: "gatehouse_database_errors_total",
                                     help: "Database operations that failed, by operation.", labelNames: ["operation"])
        self.metrics = metrics
        self.databaseErrors = databaseErrors

        var router = Router()
        OperationsRoutes(readiness: readiness, metrics: metrics, databaseErrors: databaseErrors, log: log)
            .register(into: &router)
        extraRoutes(&router)

        var middleware: [any Middleware] = [MetricsMiddleware(metrics)]
        if configuration.accessLog {
            middleware.append(AccessLogMiddleware(sink: accessLogSink ?? AccessLogMiddleware.standardOutput))
        }
        middleware.append(RequestIDMiddleware())
        middleware.append(SecurityHeadersMiddleware(https: configuration.isHTTPS))
        pipeline = RequestPipeline(router: router, middleware: middleware, reportFailure: { error, request in
            // The client gets a bare 500 with the request id; the detail stays in the log.
            log.error("unhandled error", [("request_id", request.requestID), ("route", request.route ?? ""),
                                          ("error", String(describing: error))])
        })
    }

    /// Handles one request in-process (tests).
    public func respond(to request: Request) async -> Response { await pipeline.respond(to: request) }

    /// Starts an HTTP server for this app on the configured address.
    public func makeServer() -> HTTPServer { HTTPServer(pipeline: pipeline, configuration: configuration.http) }
}
