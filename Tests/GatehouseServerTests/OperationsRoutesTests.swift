import Foundation
import GatehouseHTTP
import GatehouseServer
import GatehouseSQLite
import GatehouseTesting
import Testing

@Suite struct OperationsRoutesTests {
    struct Down: Error {}

    static func app(ready: Bool) async throws -> GatehouseApp {
        let configuration = try GatehouseConfiguration.load(environment: [:])
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        return GatehouseApp(configuration: configuration, database: database, secrets: ServerSecrets(master: Array(repeating: 7, count: 32)),
                            log: ServerLog(sink: { _ in }), accessLogSink: { _ in }, readiness: { if !ready { throw Down() } })
    }

    @Test func healthz() async throws {
        let response = try await InProcessClient(await Self.app(ready: true).pipeline).get("/healthz")
        #expect(response.status == 200 && response.text == "ok")
    }

    /// The connection gate's health-check reserve serves the paths as they arrive: under
    /// a public URL's path, that path's `/healthz` and `/readyz`.
    @Test func theHealthCheckReserveServesTheHealthPaths() async throws {
        let root = try await Self.app(ready: true).makeServer().configuration
        #expect(root.healthCheckPaths == ["/healthz", "/readyz"] && root.healthCheckConnections == 8)
        let configuration = try GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": "http://127.0.0.1:8080/auth"])
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        let app = GatehouseApp(configuration: configuration, database: database, secrets: ServerSecrets(master: Array(repeating: 7, count: 32)),
                               log: ServerLog(sink: { _ in }), accessLogSink: { _ in })
        #expect(app.makeServer().configuration.healthCheckPaths == ["/auth/healthz", "/auth/readyz"])
    }

    @Test func readyzReflectsTheDatabase() async throws {
        let up = try await InProcessClient(await Self.app(ready: true).pipeline).get("/readyz")
        #expect(up.status == 200)
        let down = try await InProcessClient(await Self.app(ready: false).pipeline).get("/readyz")
        #expect(down.status == 503)
        let body = try JSONSerialization.jsonObject(with: Data(down.body)) as? [String: String]
        #expect(body?["status"] == "unavailable")
        #expect(body?["reason"] != nil)
    }

    @Test func readyzAgainstARealClosedDatabase() async throws {
        let database = try await SQLiteDatabase.open(url: "sqlite::memory:")
        let configuration = try GatehouseConfiguration.load(environment: [:])
        _ = try await database.migrate()
        let app = GatehouseApp(configuration: configuration, database: database, secrets: ServerSecrets(master: Array(repeating: 7, count: 32)),
                               log: ServerLog(sink: { _ in }), accessLogSink: { _ in })
        #expect(try await InProcessClient(app.pipeline).get("/readyz").status == 200)
        await database.close()
        #expect(try await InProcessClient(app.pipeline).get("/readyz").status == 503)
        #expect(app.metrics.databaseErrors.value(["readyz"]) == 1)
    }

    @Test func metricsExposeRequestsAndDatabaseErrors() async throws {
        let app = try await Self.app(ready: false)
        let client = InProcessClient(app.pipeline)
        _ = try await client.get("/healthz")
        _ = try await client.get("/readyz")
        let metrics = try await InProcessClient(app.metricsPipeline).get("/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["Content-Type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains(#"gatehouse_http_requests_total{route="/healthz",method="GET",status="200"} 1"#))
        #expect(metrics.text.contains(#"gatehouse_database_errors_total{operation="readyz"} 1"#))
        #expect(metrics.text.contains("gatehouse_http_request_duration_seconds_bucket"))
        #expect(metrics.text.contains("gatehouse_http_requests_in_flight"))
    }
}
