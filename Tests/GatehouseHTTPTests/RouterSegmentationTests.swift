import GatehouseHTTP
import Testing

/// Paths are split into segments at the `/` byte. Found by fuzz/http-request: splitting on Characters
/// merged a `/` with a following combining mark, so `/ٍx` (U+064D after the slash) was served by the
/// `/` route and a `{name}` parameter could hold a `/`.
@Suite struct RouterSegmentationTests {
    static let pipeline: RequestPipeline = {
        var router = Router()
        router.get("/") { _ in .text("root") }
        router.get("/sign-in") { _ in .text("sign-in") }
        router.get("/users/{id}") { r in .text("user \(r.pathParameters["id"] ?? "?")") }
        router.get("/users/{id}/sessions/{sid}") { r in .text("\(r.pathParameters["id"]!)|\(r.pathParameters["sid"]!)") }
        return RequestPipeline(router: router)
    }()

    func get(_ target: String) async throws -> (Int, String) {
        let response = await Self.pipeline.respond(to: try Request(method: .get, target: target))
        return (response.status.code, response.bodyText)
    }

    @Test func aCombiningMarkAfterASlashDoesNotReachTheRoot() async throws {
        #expect(try await get("/%D9%8Dsign-in").0 == 404, "U+064D right after the slash, as sent on the wire")
        #expect(try await get("/\u{301}").0 == 404)
        #expect(try await get("/").1 == "root")
    }

    @Test func aParameterNeverHoldsASlash() async throws {
        #expect(try await get("/users/a/%CC%81b").0 == 404, "three segments, not users/{id} with id \"a/\u{301}b\"")
        let (status, text) = try await get("/users/7/sessions/%CC%81x")
        #expect(status == 200)
        #expect(text == "7|\u{301}x", "a segment may start with a combining mark; it stays one segment")
    }
}
