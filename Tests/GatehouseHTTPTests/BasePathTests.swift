import GatehouseHTTP
import Testing

@Suite struct BasePathTests {
    @Test func parsesPlainSegmentsOnly() {
        #expect(BasePath("")?.prefix == "")
        #expect(BasePath("/")?.prefix == "")
        #expect(BasePath("/auth/")?.prefix == "/auth")
        #expect(BasePath("/id/v1")?.prefix == "/id/v1")
        for bad in ["auth", "/a//b", "/a/../b", "/./a", "/a b", "/a;b", "/a%2Fb", "/a?b"] { #expect(BasePath(bad) == nil, "\(bad)") }
    }

    @Test func stripsOnlyWholeSegments() throws {
        let base = try #require(BasePath("/auth"))
        #expect(base.strip("/auth") == "/")
        #expect(base.strip("/auth/") == "/")
        #expect(base.strip("/auth/sign-in") == "/sign-in")
        #expect(base.strip("/authx/sign-in") == nil)
        #expect(base.strip("/sign-in") == nil)
        #expect(base.strip("/") == nil)
        #expect(BasePath.root.strip("/sign-in") == "/sign-in")
    }

    @Test func prefixesRootRelativeReferencesOnly() throws {
        let base = try #require(BasePath("/auth"))
        #expect(base.publicReference("/sign-in?x=1") == "/auth/sign-in?x=1")
        #expect(base.publicReference("//evil.example/") == "//evil.example/")
        #expect(base.publicReference("/\\evil.example/") == "/\\evil.example/")
        #expect(base.publicReference("https://app.example/cb?code=1") == "https://app.example/cb?code=1")
        #expect(base.publicReference("myapp://auth-callback?token=t") == "myapp://auth-callback?token=t")
        #expect(base.cookiePath == "/auth" && BasePath.root.cookiePath == "/")
    }

    @Test func middlewareRewritesLocationAndPageAttributes() throws {
        var router = Router()
        router.get("/page") { _ in
            Response.html(#"<a href="/account">a</a><form action="/sign-in"><button formaction="/x">b</button></form>"#
                + #"<script src="/assets/app.js"></script><a href="//cdn.example/x">c</a><a href="https://e.example/">d</a>"#
                + #"<input name="return_to" value="/oauth/authorize"><p>href="/not-an-attribute" stays &quot;</p>"#)
        }
        router.get("/go") { _ in Response.redirect(to: "/sign-in?return_to=%2Faccount") }
        router.get("/away") { _ in Response.redirect(to: "https://app.example/callback?code=c") }
        router.get("/json") { _ in Response.text(#"{"path": "/x", "href=\"/y"}"#) }
        let pipeline = RequestPipeline(router: router, middleware: [BasePathMiddleware(try #require(BasePath("/auth")))])
        let checks: [(String, Int)] = [("/page", 404), ("/auth/nothing", 404), ("/authpage", 404)]
        for (target, status) in checks {
            let response = try Self.run(pipeline, target)
            #expect(response.status.code == status, "\(target)")
        }
        let page = try Self.run(pipeline, "/auth/page").bodyText
        #expect(page.contains(#"href="/auth/account""#) && page.contains(#"action="/auth/sign-in""#))
        #expect(page.contains(#"formaction="/auth/x""#) && page.contains(#"src="/auth/assets/app.js""#))
        #expect(page.contains(#"href="//cdn.example/x""#) && page.contains(#"href="https://e.example/""#))
        #expect(page.contains(#"value="/oauth/authorize""#), "form values stay in Gatehouse's own path space")
        #expect(try Self.run(pipeline, "/auth/go").headers["Location"] == "/auth/sign-in?return_to=%2Faccount")
        #expect(try Self.run(pipeline, "/auth/away").headers["Location"] == "https://app.example/callback?code=c")
        #expect(try Self.run(pipeline, "/auth/json").bodyText == #"{"path": "/x", "href=\"/y"}"#, "only HTML is rewritten")
    }

    @Test func atTheRootNothingChanges() throws {
        var router = Router()
        router.get("/page") { _ in Response.html(#"<a href="/account">a</a>"#) }
        let pipeline = RequestPipeline(router: router, middleware: [BasePathMiddleware(.root)])
        #expect(try Self.run(pipeline, "/page").bodyText == #"<a href="/account">a</a>"#)
    }

    /// Immediate routes answer synchronously: no await needed.
    static func run(_ pipeline: RequestPipeline, _ target: String) throws -> Response {
        guard case .ready(let response) = pipeline.start(try Request(method: .get, target: target)) else {
            Issue.record("expected an immediate answer"); return Response(status: .internalServerError)
        }
        return response
    }
}
