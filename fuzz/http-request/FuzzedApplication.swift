import FuzzSupport
import GatehouseHTTP

/// A router shaped like Gatehouse's own (literal routes, `{name}` parameters, a catch-all, GET and
/// POST on one path), whose handlers read the request the way real handlers do and check what they see.
enum FuzzedApplication {
    static let patterns = [
        "/", "/sign-in", "/sign-up", "/account", "/account/sessions/{id}/end", "/oauth/authorize", "/oauth/token",
        "/oauth/clients/{id}", "/password/reset/{token}", "/email/verify/{token}", "/native/redeem",
        "/assets/{path...}", "/users/{user}/identities/{provider}", "/.well-known/openid-configuration",
    ]

    /// Deferred (async) GET routes that change state, like the real redeem and verify links: `HEAD`
    /// must never reach them.
    static let deferredPatterns = ["/native/redeem/{token}", "/email/confirm/{token}"]

    static let pipeline: RequestPipeline = {
        var router = Router()
        for pattern in deferredPatterns {
            router.get(pattern) { (_: Request) async throws -> Response in .text("spent") }
        }
        for pattern in patterns {
            router.on(.get, pattern, { (request: Request) throws -> Response in try handle(request, pattern) })
            if pattern != "/" && !pattern.hasPrefix("/assets") {
                router.on(.post, pattern, { (request: Request) throws -> Response in try handle(request, pattern) })
            }
        }
        return RequestPipeline(router: router, middleware: [RequestIDMiddleware()])
    }()

    private static func handle(_ request: Request, _ pattern: String) throws -> Response {
        require(request.route == pattern, "routed \(request.path) to \(pattern) but route says \(request.route ?? "nil")")
        require(request.method == .get || request.method == .head || request.method == .post, "\(request.method) reached a handler")
        require(!(pattern.hasPrefix("/assets") || pattern == "/") || request.method != .post, "POST reached a GET-only route")
        require(request.path.utf8.first == UInt8(ascii: "/") && !request.path.utf8.contains(0), "bad decoded path \(request.path)")
        // A catch-all also matches its bare prefix (`/assets` for `/assets/{path...}`) with an empty value.
        let rebuilt = rebuild(pattern, request.pathParameters)
        let bare = pattern.hasSuffix("...}") && rebuilt.map { $0.hasSuffix("/") && String($0.dropLast()) == request.path } == true
        require(rebuilt == request.path || bare,
                "pattern \(pattern) with \(request.pathParameters) does not rebuild \(request.path)")
        if let raw = request.rawQuery {
            require((try? URLEncodedForm(parsing: raw)) == request.query, "query is not the decoding of rawQuery")
        } else {
            require(request.query.isEmpty, "a query without a raw query")
        }
        for (name, _) in request.cookies.pairs { require(!name.isEmpty, "empty cookie name") }
        if request.method == .post {
            let form = try request.form()   // 415 / 400 as HTTPError
            do { _ = try form.single("state") } catch { throw HTTPError(.badRequest, "state appears more than once") }
        }
        return .text("ok")
    }

    /// The path a pattern matches with these parameters; a `{name}` value is one non-empty segment.
    private static func rebuild(_ pattern: String, _ parameters: [String: String]) -> String? {
        guard pattern != "/" else { return parameters.isEmpty ? "/" : nil }
        var used = 0
        var segments: [String] = []
        for segment in pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
            if segment.hasPrefix("{") && segment.hasSuffix("...}") {
                guard let value = parameters[String(segment.dropFirst().dropLast(4))] else { return nil }
                segments.append(value); used += 1
            } else if segment.hasPrefix("{") {
                guard let value = parameters[String(segment.dropFirst().dropLast())], !value.isEmpty, !value.contains("/") else {
                    return nil
                }
                segments.append(value); used += 1
            } else {
                segments.append(String(segment))
            }
        }
        guard used == parameters.count else { return nil }
        return "/" + segments.joined(separator: "/")
    }
}
