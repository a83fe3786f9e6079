import Foundation
import GatehouseHTTP
import GatehouseServer
import GatehouseTesting
import Testing

/// The route groups of `GatehouseApp`, walked route by route in-process: every route the app registers in the
/// no-store group answers `Cache-Control: no-store` and `Pragma: no-cache`, every route of the CORS group names
/// a registered origin (and no other), and a route outside the no-store group is one of the few public documents
/// below, so a new route cannot leave the group unnoticed.
@Suite struct RouteGroupTests {
    /// What may be cached: the stylesheet, brand assets and scripts, discovery and the JWKS, the apps' documents,
    /// the admin API's description, the probes and the CORS preflights (which carry nothing to keep).
    static let outsideNoStore: Set<String> = [
        "/healthz", "/readyz", "/metrics",
        "/assets/gatehouse.css", "/assets/brand/{name}",
        "/assets/gatehouse-bridge.js", "/assets/gatehouse-bridge-stimulus.js", "/assets/gatehouse-turbo.js",
        "/assets/native-start.js", "/assets/gatehouse-passkeys.js",
        "/.well-known/openid-configuration", "/.well-known/oauth-authorization-server", "/oauth/jwks",
        "/configurations/ios_v1.json", "/configurations/android_v1.json",
        "/configurations/ios_v1_rules.json", "/configurations/android_v1_rules.json",
        "/.well-known/apple-app-site-association", "/apple-app-site-association", "/.well-known/assetlinks.json",
        "/admin/v1/openapi.json",
    ]

    /// A concrete path for a pattern: each `{name}` (and a final `{name...}`) becomes one made-up segment.
    static func path(for pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("{") ? "made-up" : String($0) }.joined(separator: "/")
    }

    static func routes(_ fixture: OAuthFixture, in group: String) -> [Router.Route] {
        fixture.gatehouse.app.pipeline.router.routes.filter { $0.groups.contains(group) }
    }

    @Test func everyRouteOfTheNoStoreGroupIsNeverStored() async throws {
        let oauth = try await OAuthFixture.make()
        let routes = Self.routes(oauth, in: NoStoreMiddleware.name)
        // The group holds the pages and the token endpoint, whichever answer each gives to a bare request.
        #expect(routes.contains { $0.method == .get && $0.pattern == "/sign-in" })
        #expect(routes.contains { $0.method == .post && $0.pattern == "/oauth/token" })
        #expect(routes.contains { $0.method == .get && $0.pattern == "/native/session" })
        for route in routes {
            // Signed in, so the account pages render; a bare request, so most answers are refusals: both kinds count.
            let response = try await oauth.browser.send(route.method, Self.path(for: route.pattern), headers: [:], body: [])
            #expect(response.status != 500, "\(route.method) \(route.pattern)")
            #expect(response.headers["Cache-Control"] == "no-store", "\(route.method) \(route.pattern): \(response.status)")
            #expect(response.headers["Pragma"] == "no-cache", "\(route.method) \(route.pattern): \(response.status)")
        }
    }

    @Test func onlyPublicDocumentsAreOutsideTheNoStoreGroup() async throws {
        let oauth = try await OAuthFixture.make()
        let outside = oauth.gatehouse.app.pipeline.router.routes.filter { !$0.groups.contains(NoStoreMiddleware.name) }
        for route in outside {
            #expect(Self.outsideNoStore.contains(route.pattern) || route.method == .options,
                    "\(route.method) \(route.pattern) is outside the no-store group")
        }
        for route in outside where route.method == .get {
            let response = try await oauth.client.get(Self.path(for: route.pattern))
            #expect(response.headers["Cache-Control"] != "no-store" || route.pattern == "/metrics",
                    "\(route.pattern) declares itself public, so it should say how long it keeps")
        }
    }

    @Test func everyRouteOfTheCORSGroupNamesOnlyARegisteredOrigin() async throws {
        let oauth = try await OAuthFixture.make()
        let routes = Self.routes(oauth, in: CORSMiddleware.name)
        #expect(routes.contains { $0.method == .options && $0.pattern == "/oauth/token" })
        #expect(routes.contains { $0.method == .get && $0.pattern == "/oauth/jwks" })
        #expect(routes.contains { $0.method == .post && $0.pattern == "/oauth/par" })
        for route in routes {
            let path = Self.path(for: route.pattern)
            let registered = try await oauth.client.send(route.method, path, headers: ["Origin": "https://app.example.test"], body: [])
            #expect(registered.headers["Access-Control-Allow-Origin"] == "https://app.example.test", "\(route.method) \(route.pattern)")
            #expect(registered.headers["Vary"] == "Origin", "\(route.method) \(route.pattern)")
            #expect(registered.headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type, DPoP")
            #expect(registered.headers["Access-Control-Allow-Methods"] == "GET, POST")
            let foreign = try await oauth.client.send(route.method, path, headers: ["Origin": "https://evil.example"], body: [])
            #expect(foreign.headers["Access-Control-Allow-Origin"] == nil, "\(route.method) \(route.pattern)")
            #expect(foreign.status == registered.status, "CORS decides what a browser may read, not the answer")
        }
    }

    @Test func aGroupWrapsOnlyItsOwnRoutesAndNests() async throws {
        struct Tag: ResponseHeadersMiddleware {
            let name: String
            var headers: HTTPHeaders { ["X-Group": name] }
        }
        var router = Router()
        router.get("/outside") { _ in Response(status: .ok) }
        router.group(Tag(name: "outer")) { router in
            router.get("/outer") { _ in Response(status: .ok) }
            router.group(Tag(name: "inner")) { router in
                router.get("/inner") { _ in Response(status: .ok) }
                router.get("/refused") { _ throws -> Response in throw HTTPError(.badRequest, "no") }
            }
        }
        router.get("/after") { _ in Response(status: .ok) }
        let client = InProcessClient(RequestPipeline(router: router))
        #expect(try await client.get("/outside").headers["X-Group"] == nil)
        #expect(try await client.get("/after").headers["X-Group"] == nil, "the group ends with its closure")
        #expect(try await client.get("/outer").headers["X-Group"] == "outer")
        // The outer step runs last on the way out, so its value is the one left.
        #expect(try await client.get("/inner").headers["X-Group"] == "outer")
        let refused = try await client.get("/refused")
        #expect(refused.status == 400 && refused.headers["X-Group"] == "outer", "a thrown HTTPError carries the group's headers")
        #expect(router.routes.first { $0.pattern == "/inner" && $0.method == .get }?.groups == ["outer", "inner"])
        #expect(router.routes.first { $0.pattern == "/inner" && $0.method == .head }?.groups == ["outer", "inner"],
                "HEAD answered by GET is in the group too")
    }
}
