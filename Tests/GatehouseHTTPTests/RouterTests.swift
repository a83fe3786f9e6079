import GatehouseHTTP
import Testing

@Suite struct RouterTests {
    static func router() -> Router {
        var router = Router()
        router.get("/") { _ in .text("root") }
        router.get("/users") { _ in .text("list") }
        router.post("/users") { _ in .text("create") }
        router.get("/users/{id}") { r in .text("user \(r.pathParameters["id"] ?? "?")") }
        router.get("/users/me") { _ in .text("me") }
        router.get("/users/{id}/sessions/{sid}") { r in .text("\(r.pathParameters["id"]!)/\(r.pathParameters["sid"]!)") }
        router.get("/assets/{path...}") { r in .text("asset \(r.pathParameters["path"]!)") }
        return router
    }

    func body(_ method: HTTPMethod, _ path: String) async throws -> (Int, String, HTTPHeaders) {
        let pipeline = RequestPipeline(router: Self.router())
        let response = await pipeline.respond(to: try Request(method: method, target: path))
        return (response.status.code, response.bodyText, response.headers)
    }

    @Test func literalAndParameterSegments() async throws {
        #expect(try await body(.get, "/").1 == "root")
        #expect(try await body(.get, "/users").1 == "list")
        #expect(try await body(.post, "/users").1 == "create")
        #expect(try await body(.get, "/users/42").1 == "user 42")
        #expect(try await body(.get, "/users/me").1 == "me", "a literal segment wins over a parameter")
        #expect(try await body(.get, "/users/7/sessions/abc").1 == "7/abc")
        #expect(try await body(.get, "/assets/css/site.css").1 == "asset css/site.css")
    }

    @Test func percentDecodedParameters() async throws {
        #expect(try await body(.get, "/users/a%20b").1 == "user a b")
    }

    @Test func unknownPathIs404() async throws {
        #expect(try await body(.get, "/nope").0 == 404)
        #expect(try await body(.get, "/users/1/extra").0 == 404)
        #expect(try await body(.get, "/users/").0 == 404, "an empty segment is not a parameter value")
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        let (status, _, headers) = try await body(.delete, "/users")
        #expect(status == 405)
        #expect(headers["Allow"] == "GET, HEAD, POST")
        let (status2, _, headers2) = try await body(.post, "/users/9")
        #expect(status2 == 405)
        #expect(headers2["Allow"] == "GET, HEAD")
    }

    @Test func headIsServedByGet() async throws {
        let pipeline = RequestPipeline(router: Self.router())
        let response = await pipeline.respond(to: try Request(method: .head, target: "/users/5"))
        #expect(response.status == .ok)
        #expect(response.bodyText == "user 5", "the pipeline keeps the body; the server omits it on the wire")
    }

    @Test func matchReportsPattern() {
        guard case .found(_, let pattern, let parameters) = Self.router().match(.get, "/users/3/sessions/x") else {
            Issue.record("expected a match"); return
        }
        #expect(pattern == "/users/{id}/sessions/{sid}")
        #expect(parameters == ["id": "3", "sid": "x"])
    }
}

@Suite struct HandlerKindTests {
    @Test func closuresWithoutAwaitRegisterAsImmediate() {
        var router = Router()
        router.get("/sync") { _ in .text("ok") }
        router.get("/async") { _ async in .text("ok") }
        guard case .found(let sync, _, _) = router.match(.get, "/sync"), case .found(let async, _, _) = router.match(.get, "/async") else {
            Issue.record("routes missing"); return
        }
        if case .immediate = sync {} else { Issue.record("a closure without await must run on the I/O thread") }
        if case .deferred = async {} else { Issue.record("an async closure must be deferred") }
    }
}
