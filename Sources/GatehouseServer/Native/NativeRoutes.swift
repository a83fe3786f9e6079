import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// The server side of native apps (flows F2 and F3 helpers):
/// - `GET /native/start` — opened in the system browser: a tiny page that continues into the provider
///   sign-in with `platform=native` (auto-submitted by a script, or by its visible button without JS);
/// - `GET /native/redeem?token=…&verifier=…` — loaded in the app's web view: exchanges the hand-off token
///   for a session cookie there;
/// - `GET /native/session`, `POST /native/sign-out` — JSON for the app's launch check and sign-out;
/// - `/configurations/{ios,android}_v1.json` and the bridge scripts.
struct NativeRoutes: Sendable {
    let apps: NativeAppDirectory
    let handoffs: HandoffTokens
    let sessions: SessionService
    let reader: WebSessionReader
    let layout: PageLayout
    let audit: AuditTrail
    let database: any GatehouseDatabase
    let pathConfiguration: PathConfiguration
    let enabledProviders: [String]

    func register(into router: inout Router) {
        router.get("/native/start") { request async throws in try await start(request) }
        router.get("/native/redeem") { request async throws in try await redeem(request) }
        router.get("/native/session") { request async throws in try await status(request) }
        router.post("/native/sign-out") { request async throws in try await signOut(request) }
        for platform in ["ios", "android"] {
            let document = pathConfiguration.document(platform: platform)
            router.get("/configurations/\(platform)_v1.json") { _ in
                var response = Response.json(bytes: document)
                response.headers.set("Cache-Control", "public, max-age=300")
                return response
            }
        }
        for (path, source) in [("/assets/gatehouse-bridge.js", BridgeScripts.bridge),
                               ("/assets/gatehouse-bridge-stimulus.js", BridgeScripts.stimulus),
                               ("/assets/native-start.js", BridgeScripts.autoSubmit)] {
            let bytes = Array(source.utf8)
            router.get(path) { _ in
                var response = Response(status: .ok, headers: ["Content-Type": "text/javascript; charset=utf-8"], body: bytes)
                response.headers.set("Cache-Control", "public, max-age=300")
                return response
            }
        }
    }

    private func start(_ request: Request) async throws -> Response {
        let web = try await reader.read(request)
        guard let provider = request.query["provider"], enabledProviders.contains(provider) else {
            throw HTTPError(.badRequest, "Unknown or disabled provider.")
        }
        guard let app = try await apps.app(request.query["app"]) else {
            throw HTTPError(.badRequest, "This app is not registered for signing in.")
        }
        guard let challenge = request.query["challenge"], HandoffTokens.isValidChallenge(challenge) else {
            throw HTTPError(.badRequest, "The challenge must be the base64url SHA-256 of the app's verifier.")
        }
        let returnTo = ReturnPath.validated(request.query["return_to"])
        let fields = [("csrf_token", reader.token(for: web)), ("platform", "native"), ("app", app.clientID), ("challenge", challenge)]
            + (returnTo.map { [("return_to", $0)] } ?? [])
        let hidden = fields.map { #"<input type="hidden" name="\#(h($0.0))" value="\#(h($0.1))">"# }.joined()
        var response = Response.html(layout.render(title: "Continue to sign in", body: """
            <p>\(h(app.name)) asked you to sign in with \(h(provider.capitalized)).</p>
            <form id="native-start" method="post" action="/auth/\(h(provider))">\(hidden)
            <button type="submit">Continue with \(h(provider.capitalized))</button></form>
            <script type="module" src="/assets/native-start.js"></script>
            """))
        if let cookie = web.newCSRFCookie { response.setCookie(cookie) }
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    private func redeem(_ request: Request) async throws -> Response {
        let web = try await reader.read(request)
        do {
            let redemption = try await handoffs.redeem(token: request.query["token"] ?? "", verifier: request.query["verifier"] ?? "",
                                                       appID: request.query["app"])
            guard let user = try await database.users.find(id: redemption.userId), !user.disabled else {
                throw HandoffTokens.Failure.invalidToken
            }
            if let old = web.token { try await sessions.end(token: old) }
            let issued = try await sessions.start(userId: user.id, methods: redemption.authMethods, context: request.clientContext)
            await audit.record(.signInSucceeded, userId: user.id, context: request.clientContext,
                               details: ["via": "native_handoff", "app": redemption.appID])
            var response = Response.redirect(to: redemption.returnTo ?? ReturnPath.fallback)
            response.setCookie(reader.cookies.sessionCookie(token: issued.token))
            response.headers.set("Cache-Control", "no-store")
            return response
        } catch let failure as HandoffTokens.Failure {
            await audit.record(.signInFailed, userId: nil, context: request.clientContext, details: ["via": "native_handoff",
                                                                                                   "reason": "\(failure)"])
            var response = Response.html(layout.render(title: "Sign-in did not complete", body: """
                \(PageLayout.notice(failure.message))<p>Close this screen and try again.</p>
                """), status: .badRequest)
            response.headers.set("Cache-Control", "no-store")
            return response
        }
    }

    private func status(_ request: Request) async throws -> Response {
        let web = try await reader.read(request)
        guard let active = web.active else {
            var response = Response.json(["signed_in": false], status: .unauthorized)
            response.headers.set("Cache-Control", "no-store")
            return response
        }
        let providers = try await database.externalIdentities.list(userId: active.user.id).map(\.provider)
        struct Status: Encodable {
            let signed_in: Bool, user_id: String, email: String, name: String?, providers: [String], has_password: Bool
        }
        var response = Response.json(Status(signed_in: true, user_id: active.user.id, email: active.user.email,
                                            name: active.user.displayName, providers: Array(Set(providers)).sorted(),
                                            has_password: active.user.passwordHash != nil))
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// Ends the presented session. Refused (403 JSON) when a browser says the request comes from another
    /// origin or site — the app's own request (native code, or its web view on this origin) says neither —
    /// so no other page can sign the user out (issue #14 item 14). The clearing cookie goes out only when
    /// a session cookie came in: a response never plants cookie headers on a client that had none.
    private func signOut(_ request: Request) async throws -> Response {
        if Self.isCrossSite(request, publicOrigin: reader.cookies.publicOrigin) {
            var refused = Response.json(["error": "invalid_request", "error_description": "Cross-site requests are not accepted here."],
                                        status: .forbidden)
            refused.headers.set("Cache-Control", "no-store")
            return refused
        }
        let web = try await reader.read(request)
        if let active = web.active, let token = web.token {
            try await sessions.end(token: token)
            await audit.record(.signOut, userId: active.user.id, context: request.clientContext, details: ["via": "native"])
        }
        let presented = request.cookies[reader.cookies.sessionCookie] != nil
        var response = Response.json(["signed_out": presented ? [reader.cookies.sessionCookie] : []] as [String: [String]])
        if presented { response.setCookie(reader.cookies.clearSession) }
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// A foreign `Origin`, or `Sec-Fetch-Site` other than `same-origin`/`none`.
    static func isCrossSite(_ request: Request, publicOrigin: String) -> Bool {
        if let origin = request.headers["Origin"], origin != publicOrigin { return true }
        if let site = request.headers["Sec-Fetch-Site"], site != "same-origin", site != "none" { return true }
        return false
    }
}
