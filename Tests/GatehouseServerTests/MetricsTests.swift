import Foundation
import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseServer
import GatehouseTesting
import Testing

/// `/metrics`: never anonymous on the public port, every counter present from start, and the
/// sign-in and token counters moving with real requests.
@Suite struct MetricsTests {
    static let token = String(repeating: "m3tr1cs-", count: 5)

    static func scrape(_ pipeline: RequestPipeline, headers: HTTPHeaders = [:]) async throws -> TestResponse {
        try await InProcessClient(pipeline).send(.get, "/metrics", headers: headers, body: [])
    }

    @Test func theDefaultPublicPortHasNoMetricsButTheMetricsListenerHas() async throws {
        let gatehouse = try await TestGatehouse.make()
        #expect(try await Self.scrape(gatehouse.app.pipeline).status == 404)
        let scraped = try await Self.scrape(gatehouse.app.metricsPipeline)
        #expect(scraped.status == 200)
        #expect(scraped.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8")
        // The listener serves nothing of the application.
        #expect(try await InProcessClient(gatehouse.app.metricsPipeline).get("/sign-in").status == 404)
        #expect(try await InProcessClient(gatehouse.app.metricsPipeline).get("/healthz").status == 200)
        #expect(gatehouse.app.makeMetricsServer() == nil, "no listener unless metrics.listen is set")
    }

    @Test func aBearerTokenGuardsMetricsOnThePublicPort() async throws {
        let gatehouse = try await TestGatehouse.make { $0.metrics.bearerToken = Self.token }
        let anonymous = try await Self.scrape(gatehouse.app.pipeline)
        #expect(anonymous.status == 401)
        #expect(anonymous.headers["WWW-Authenticate"] == #"Bearer realm="gatehouse-metrics""#)
        #expect(!anonymous.text.contains("gatehouse_"))
        let wrong = try await Self.scrape(gatehouse.app.pipeline, headers: ["Authorization": "Bearer " + Self.token.dropLast() + "x"])
        #expect(wrong.status == 401 && wrong.headers["WWW-Authenticate"]?.contains("invalid_token") == true)
        let right = try await Self.scrape(gatehouse.app.pipeline, headers: ["Authorization": "Bearer " + Self.token])
        #expect(right.status == 200 && right.text.contains("gatehouse_build_info"))
        // The token applies on the metrics listener too.
        #expect(try await Self.scrape(gatehouse.app.metricsPipeline).status == 401)
    }

    @Test func theMetricsSectionIsParsedFromTheFile() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try #"{"metrics": {"listen": "127.0.0.1:9464", "bearer_token_env": "SCRAPE_TOKEN"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let configuration = try GatehouseConfiguration.load(environment: ["SCRAPE_TOKEN": Self.token], configPath: path)
        #expect(configuration.metrics == MetricsSettings(listen: ListenAddress(host: "127.0.0.1", port: 9464), bearerToken: Self.token))
        #expect(throws: ConfigurationError.self) {
            try GatehouseConfiguration.load(environment: ["SCRAPE_TOKEN": "short"], configPath: path)
        }
        #expect(throws: ConfigurationError.self) { try GatehouseConfiguration.load(environment: [:], configPath: path) }
        try #"{"metrics": {"listen": "everywhere"}}"#.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: ConfigurationError.self) { try GatehouseConfiguration.load(environment: [:], configPath: path) }
    }

    @Test func everyCounterIsThereAtZeroFromStartWithProcessAndBuildInfo() async throws {
        let gatehouse = try await TestGatehouse.make()
        let text = try await Self.scrape(gatehouse.app.metricsPipeline).text
        for sample in [#"gatehouse_sign_ins_total{method="password",result="succeeded"} 0"#,
                       #"gatehouse_sign_ins_total{method="password",result="failed"} 0"#,
                       #"gatehouse_sign_ins_total{method="password",result="rate_limited"} 0"#,
                       #"gatehouse_sign_ins_total{method="native_handoff",result="succeeded"} 0"#,
                       #"gatehouse_tokens_issued_total{grant="authorization_code"} 0"#,
                       #"gatehouse_tokens_issued_total{grant="refresh_token"} 0"#,
                       #"gatehouse_tokens_issued_total{grant="client_credentials"} 0"#,
                       #"gatehouse_database_errors_total{operation="readyz"} 0"#,
                       #"gatehouse_maintenance_purged_rows_total{table="sessions"} 0"#,
                       #"gatehouse_outbound_deliveries_total{kind="webhook",outcome="failed"} 0"#,
                       #"gatehouse_build_info{version="\#(GatehouseBuild.version)",schema="#] {
            #expect(text.contains(sample), "\(sample) missing")
        }
        for family in ["process_cpu_seconds_total", "process_resident_memory_bytes", "process_open_fds",
                       "process_start_time_seconds", "process_max_fds"] {
            #expect(text.contains("# TYPE \(family) "), "\(family) missing")
        }
        let start = try #require(Self.value(of: "process_start_time_seconds", in: text))
        #expect(abs(start - Date().timeIntervalSince1970) < 24 * 3600, "the start time is an epoch time near now")
        #expect(try #require(Self.value(of: "process_resident_memory_bytes", in: text)) > 1_000_000)
        #expect(try #require(Self.value(of: "process_open_fds", in: text)) >= 3)
    }

    @Test func signInsAndTokensAreCountedByMethodResultAndGrant() async throws {
        let oauth = try await OAuthFixture.make()
        let browser = oauth.gatehouse.browser()
        let failed = try await browser.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "not the password")])
        #expect(failed.status != 303, "the wrong password signs nobody in")
        let issued = try await oauth.token([("grant_type", "client_credentials")], basic: ("web-app", oauth.confidentialSecret))
        #expect(issued.status == 200)
        _ = try await oauth.token([("grant_type", "client_credentials")], basic: ("web-app", "wrong"))
        let text = try await Self.scrape(oauth.gatehouse.app.metricsPipeline).text
        // The fixture's browser signed in once through the page.
        #expect(text.contains(#"gatehouse_sign_ins_total{method="password",result="succeeded"} 1"#), "\(text)")
        #expect(text.contains(#"gatehouse_sign_ins_total{method="password",result="failed"} 1"#))
        #expect(text.contains(#"gatehouse_tokens_issued_total{grant="client_credentials"} 1"#), "a refused request issues nothing")
    }

    static func value(of name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }
}
