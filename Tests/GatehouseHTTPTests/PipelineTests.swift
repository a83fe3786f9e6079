import GatehouseHTTP
import GatehouseNetwork
import GatehouseTesting
import Synchronization
import Foundation
import Testing

@Suite struct PipelineTests {
    struct Boom: Error, CustomStringConvertible { var description: String { "secret internals: db password=hunter2" } }

    static func pipeline(log: Recorder<String>? = nil, reported: Recorder<String>? = nil, https: Bool = false) -> RequestPipeline {
        var router = Router()
        router.get("/ok") { _ in .text("fine") }
        router.get("/fail") { _ in throw Boom() }
        router.get("/teapot") { _ in throw HTTPError(.tooManyRequests, "Slow down.", headers: ["Retry-After": "7"]) }
        router.get("/async") { _ async throws in
            try await Task.sleep(for: .milliseconds(5))
            return .text("later")
        }
        router.get("/async-fail") { _ async throws -> Response in throw Boom() }
        router.get("/custom-csp") { _ in
            var response = Response.html("<p>x</p>")
            response.headers.set("Content-Security-Policy", "default-src 'none'")
            return response
        }
        return RequestPipeline(router: router, middleware: [
            AccessLogMiddleware(sink: { line in log?.append(line) }),
            RequestIDMiddleware(),
            SecurityHeadersMiddleware(https: https),
        ], reportFailure: { error, _ in reported?.append("\(error)") })
    }

    @Test func securityHeadersOnEveryResponse() async throws {
        let client = InProcessClient(Self.pipeline())
        for path in ["/ok", "/missing", "/fail"] {
            let response = try await client.get(path)
            #expect(response.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
            #expect(response.headers["X-Content-Type-Options"] == "nosniff")
            #expect(response.headers["Referrer-Policy"] == "no-referrer")
            #expect(response.headers["Strict-Transport-Security"] == nil, "no HSTS over plain http")
        }
        let https = try await InProcessClient(Self.pipeline(https: true)).get("/ok")
        #expect(https.headers["Strict-Transport-Security"]?.hasPrefix("max-age=") == true)
        let custom = try await client.get("/custom-csp")
        #expect(custom.headers["Content-Security-Policy"] == "default-src 'none'", "a handler's own CSP is kept")
    }

    @Test func unexpectedErrorsBecomeBare500s() async throws {
        let reported = Recorder<String>()
        let client = InProcessClient(Self.pipeline(reported: reported))
        for path in ["/fail", "/async-fail"] {
            let response = try await client.get(path)
            #expect(response.status == 500)
            #expect(!response.text.contains("hunter2"), "internals never reach the client")
            #expect(response.text.contains(response.headers["X-Request-Id"]!), "the page names the request id")
        }
        #expect(reported.count == 2)
    }

    @Test func httpErrorsKeepStatusMessageAndHeaders() async throws {
        let response = try await InProcessClient(Self.pipeline()).get("/teapot", headers: ["Accept": "application/json"])
        #expect(response.status == 429)
        #expect(response.headers["Retry-After"] == "7")
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(response.text.contains("Slow down."))
    }

    @Test func asyncHandlersRunThrough() async throws {
        let response = try await InProcessClient(Self.pipeline()).get("/async")
        #expect(response.status == 200)
        #expect(response.text == "later")
    }

    @Test func requestIDIsEchoedOrGenerated() async throws {
        let client = InProcessClient(Self.pipeline())
        #expect(try await client.get("/ok", headers: ["X-Request-Id": "abc-123"]).headers["X-Request-Id"] == "abc-123")
        let generated = try await client.get("/ok", headers: ["X-Request-Id": "bad id with spaces"]).headers["X-Request-Id"]
        #expect(generated != nil && generated != "bad id with spaces" && generated!.count == 24)
        let a = try await client.get("/ok").headers["X-Request-Id"]
        let b = try await client.get("/ok").headers["X-Request-Id"]
        #expect(a != b)
    }

    @Test func accessLogIsJSONWithoutQueryStrings() async throws {
        let log = Recorder<String>()
        let client = InProcessClient(Self.pipeline(log: log))
        _ = try await client.get("/ok?code=SECRETCODE&state=s", headers: ["Authorization": "Bearer SECRETTOKEN",
                                                                          "Cookie": "sid=SECRETSESSION"])
        _ = try await client.get("/bad%ZZ")
        let lines = log.all
        #expect(lines.count == 2)
        for line in lines {
            #expect(!line.contains("SECRET"))
            #expect(line.hasSuffix("}\n"))
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            #expect(object?["request_id"] as? String != nil && (object?["request_id"] as? String)?.isEmpty == false)
        }
        #expect(lines[0].contains("\"status\":200") && lines[0].contains("\"route\":\"/ok\""))
        #expect(lines[1].contains("\"status\":400"))
    }

    @Test func metricsCountByRoutePattern() async throws {
        var router = Router()
        router.get("/users/{id}") { _ in .text("u") }
        let metrics = HTTPMetrics()
        let client = InProcessClient(RequestPipeline(router: router, middleware: [MetricsMiddleware(metrics)]))
        for id in 1...3 { _ = try await client.get("/users/\(id)") }
        _ = try await client.get("/nowhere")
        #expect(metrics.requestCount(route: "/users/{id}", status: 200) == 3)
        #expect(metrics.requestCount(route: "(unmatched)", status: 404) == 1)
        #expect(metrics.inFlightCount == 0)
        var text = PrometheusText()
        metrics.render(into: &text)
        #expect(text.output.contains("gatehouse_http_requests_total{route=\"/users/{id}\",method=\"GET\",status=\"200\"} 3"))
        #expect(text.output.contains("gatehouse_http_request_duration_seconds_count{route=\"/users/{id}\"} 3"))
    }
}

@Suite struct RequestIDTrustTests {
    static func pipeline() -> RequestPipeline {
        var router = Router()
        router.get("/ok") { _ in .text("ok") }
        let proxies = ClientAddressResolver(trustedProxies: [IPNetwork("10.0.0.0/8")!])
        return RequestPipeline(router: router, middleware: [RequestIDMiddleware(trustedProxies: proxies), ClientAddressMiddleware(resolver: proxies)])
    }

    @Test func anIncomingIDIsTakenOnlyFromATrustedProxy() async throws {
        let viaProxy = InProcessClient(Self.pipeline(), remoteAddress: "10.1.2.3")
        #expect(try await viaProxy.get("/ok", headers: ["X-Request-Id": "proxy-id-1", "X-Forwarded-For": "203.0.113.7"])
            .headers["X-Request-Id"] == "proxy-id-1")
        let direct = InProcessClient(Self.pipeline(), remoteAddress: "203.0.113.7")
        let made = try await direct.get("/ok", headers: ["X-Request-Id": "chosen-by-client"]).headers["X-Request-Id"]
        #expect(made != nil && made != "chosen-by-client" && made!.count == 24, "a client's own id is replaced")
    }
}
