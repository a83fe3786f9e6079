import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// `/admin/v1/`: the product's own admin screens manage accounts over HTTP. Only translates HTTP;
/// the rules live in `AccountAdministration`, which the `gatehouse user` commands use too.
///
/// Callers present an access token from the client-credentials grant with the `admin` scope,
/// issued to a client registered with `admin: true` (checked again at every request, so removing
/// the flag takes effect at once). Every error is an RFC 9457 problem. Each admin client's requests are
/// limited (`rate_limits.admin_api_per_client`), counted in the store so the limit holds across processes.
struct AdminRoutes: Sendable {
    let administration: AccountAdministration
    let tokens: TokenService
    let log: ServerLog
    let limiter: RateLimiter
    let limits: [RateLimitRule]
    /// The public URL: the document's `servers` and token URL.
    let issuer: String
    /// A user's second factors (authenticator app, recovery codes) and WebAuthn credentials, to list and reset.
    let secondFactors: SecondFactors
    let passkeys: WebAuthnCeremonies

    static let prefix = "/admin/v1"

    /// The OpenAPI document: `no-cache` (revalidated, unlike the API's no-store answers), so outside the no-store group.
    func registerDocument(into router: inout Router) {
        let document = AdminOpenAPI.document(issuer: issuer)
        router.get(Self.prefix + "/openapi.json", head: .servedByGet) { _ in
            var response = Response.json(bytes: document)
            response.headers.set("Cache-Control", "no-cache")
            return response
        }
    }

    func register(into router: inout Router) {
        route(&router, .get, "/users") { request, actor in
            try Self.onlyQuery(request, ["q", "cursor", "limit"])
            let limit = try Self.limit(request, default: 50)
            let query = try Self.query(request, "q")
            if let query, query.unicodeScalars.count > 254 { throw AdminProblem.badRequest("q is longer than 254 characters.") }
            let page: Page<User>
            do { page = try await administration.list(query: query, cursor: try Self.query(request, "cursor"), limit: limit) }
            catch let error as StoreError where error.kind == .invalidArgument { throw AdminProblem.badRequest("The cursor is not valid.") }
            return AdminJSON.userPage(page)
        }
        route(&router, .post, "/users") { request, actor in
            try Self.onlyQuery(request, [])
            let body = try AdminJSON.object(request, allowed: ["email", "name", "password", "email_verified"])
            guard let email = try AdminJSON.string(body, "email") else { throw AdminProblem.badRequest("email is required.") }
            let user = try await administration.create(email: email, password: try AdminJSON.string(body, "password", maxBytes: 4096),
                                                       displayName: try AdminJSON.string(body, "name", maxBytes: 200),
                                                       verified: try AdminJSON.bool(body, "email_verified") ?? false, by: actor)
            return AdminJSON.userResponse(user, status: .created)
        }
        route(&router, .get, "/users/{id}") { request, _ in
            try Self.onlyQuery(request, [])
            return AdminJSON.userResponse(try await administration.user(id: Self.id(request)))
        }
        route(&router, .patch, "/users/{id}") { request, actor in
            try Self.onlyQuery(request, [])
            let body = try AdminJSON.object(request, allowed: ["email", "name", "email_verified"])
            var change = AccountAdministration.ProfileChange()
            change.email = try AdminJSON.string(body, "email")
            if body["name"] is NSNull { change.displayName = .some(nil) }
            else if let name = try AdminJSON.string(body, "name", maxBytes: 200) { change.displayName = .some(name) }
            change.emailVerified = try AdminJSON.bool(body, "email_verified")
            return AdminJSON.userResponse(try await administration.update(id: Self.id(request), change, by: actor))
        }
        route(&router, .delete, "/users/{id}") { request, _ in
            try Self.onlyQuery(request, [])
            try await administration.delete(id: Self.id(request))
            return Response(status: .noContent)
        }
        for (action, disabled) in [("disable", true), ("enable", false)] {
            route(&router, .post, "/users/{id}/" + action) { request, _ in
                try Self.onlyQuery(request, [])
                return AdminJSON.userResponse(try await administration.setDisabled(id: Self.id(request), disabled))
            }
        }
        route(&router, .get, "/users/{id}/sessions") { request, _ in
            try Self.onlyQuery(request, [])
            return AdminJSON.response(["sessions": try await administration.sessions(of: Self.id(request)).map(AdminJSON.session)])
        }
        route(&router, .delete, "/users/{id}/sessions/{session}") { request, actor in
            try Self.onlyQuery(request, [])
            let id = try Self.id(request)
            _ = try await administration.user(id: id)
            guard try await administration.endSession(userId: id, sessionId: request.pathParameters["session"] ?? "", by: actor) else {
                throw AdminProblem.notFound("The user has no such session.")
            }
            return Response(status: .noContent)
        }
        route(&router, .get, "/users/{id}/identities") { request, _ in
            try Self.onlyQuery(request, [])
            return AdminJSON.response(["identities": try await administration.identities(of: Self.id(request)).map(AdminJSON.identity)])
        }
        route(&router, .delete, "/users/{id}/identities/{provider}/{subject}") { request, actor in
            try Self.onlyQuery(request, [])
            let id = try Self.id(request)
            _ = try await administration.user(id: id)
            guard try await administration.unlink(userId: id, provider: request.pathParameters["provider"] ?? "",
                                                  subject: request.pathParameters["subject"] ?? "", by: actor) else {
                throw AdminProblem.notFound("No such identity is linked to the user.")
            }
            return Response(status: .noContent)
        }
        do {
            route(&router, .get, "/users/{id}/factors") { request, _ in
                try Self.onlyQuery(request, [])
                let id = try Self.id(request)
                _ = try await administration.user(id: id)
                let status = try await secondFactors.status(userID: id)
                return AdminJSON.response(AdminJSON.factors(status, credentials: try await passkeys.credentials(of: id)))
            }
            // The reset of a locked-out user: the authenticator app and the recovery codes go; the password stays.
            // An action, not a DELETE: the user's factors remain a resource (empty) that GET still answers.
            route(&router, .post, "/users/{id}/factors/reset") { request, actor in
                try Self.onlyQuery(request, [])
                let id = try Self.id(request)
                _ = try await administration.user(id: id)
                _ = try await secondFactors.removeAll(userID: id, context: request.clientContext, by: actor)
                return Response(status: .noContent)
            }
        }
        route(&router, .get, "/users/{id}/audit") { request, _ in
            try Self.onlyQuery(request, ["type", "limit"])
            let id = try Self.id(request)
            _ = try await administration.user(id: id)
            let type = try Self.query(request, "type")
            if let type, AuditEventType(rawValue: type) == nil { throw AdminProblem.badRequest("Unknown audit event type \(type).") }
            let records = try await administration.auditLog(userId: id, type: type, limit: try Self.limit(request, default: 100))
            return AdminJSON.response(["events": records.map(AdminJSON.audit)])
        }
    }

    /// Registers an authorized admin operation: the closure gets the request and the acting client id.
    private func route(_ router: inout Router, _ method: HTTPMethod, _ path: String,
                       _ body: @escaping @Sendable (Request, String) async throws -> Response) {
        router.on(method, Self.prefix + path) { request async in
            do {
                let actor = try await authorize(request)
                // Counted after authorization: a request without a valid admin token costs one signature check.
                if !limits.isEmpty, let wait = try await limiter.hit(limits, key: actor) {
                    return AdminProblem.tooManyRequests(retryAfter: wait).response
                }
                return try await body(request, "admin:" + actor)
            } catch let problem as AdminProblem {
                return problem.response
            } catch let error as AccountError {
                switch error {
                case .notFound: return AdminProblem.notFound("No such user.").response
                case .emailTaken: return AdminProblem.conflict("Another account has this email.").response
                case .lastSignInMethod: return AdminProblem.conflict(error.message).response
                default: return AdminProblem.badRequest(error.message).response
                }
            } catch {
                log.error("admin api failed", [("request_id", request.requestID), ("route", request.route ?? ""),
                                               ("error", String(describing: error))])
                return AdminProblem(status: .internalServerError, title: "Internal error", detail: "Something went wrong on our side.").response
            }
        }
    }

    /// The admin client's id, or 401/403.
    private func authorize(_ request: Request) async throws -> String {
        guard let header = request.headers["Authorization"], header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw AdminProblem.unauthorized
        }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        guard let claims = try await tokens.validator.validate(token) else { throw AdminProblem.unauthorized }
        // A client-credentials token (its `gty` claim, which no user's token carries): the client acts for itself.
        // `sub == client_id` proves nothing: an imported user's id may equal a client's id.
        guard claims.isClientCredentials, claims.scope.contains(Scope.admin), claims.subject == claims.clientID,
              let client = try await tokens.registry.find(id: claims.clientID), client.isAdmin else { throw AdminProblem.forbidden }
        return client.id
    }

    private static func id(_ request: Request) throws(AdminProblem) -> String {
        guard let id = request.pathParameters["id"], !id.isEmpty, id.utf8.count <= 128 else { throw .notFound("No such user.") }
        return id
    }

    private static func query(_ request: Request, _ name: String) throws(AdminProblem) -> String? {
        do { return try request.query.single(name) } catch { throw .badRequest("\(name) is given more than once.") }
    }

    private static func onlyQuery(_ request: Request, _ allowed: Set<String>) throws(AdminProblem) {
        for name in request.query.pairs.map(\.key) where !allowed.contains(name) { throw .badRequest("Unknown query parameter \(name).") }
    }

    private static func limit(_ request: Request, default value: Int) throws(AdminProblem) -> Int {
        guard let text = try query(request, "limit") else { return value }
        guard let limit = Int(text), (1...1000).contains(limit) else { throw .badRequest("limit must be an integer in 1...1000.") }
        return limit
    }
}
