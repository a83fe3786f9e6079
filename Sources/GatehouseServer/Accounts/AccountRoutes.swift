import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

extension AccountPages {
    func registerAccount(into router: inout Router) {
        router.get("/account", head: .servedByGet) { request async throws in
            let (web, overview) = try await reader.readWithOverview(request)
            guard let active = web.active else { return signInRedirect(request) }
            return try await context.accountPage(web: web, active: active, overview: overview,
                                                 notice: request.query["notice"].flatMap { Self.notices[$0] })
        }
        router.post("/account/sessions/{id}/end") { request async throws in
            let (_, web, active) = try await reader.signedInForm(request)
            guard let hash = TokenHash(hex: request.pathParameters["id"] ?? "") else {
                throw HTTPError(.notFound, "No such session.")
            }
            guard try await sessions.end(idHash: hash, ofUser: active.user.id) else { throw HTTPError(.notFound, "No such session.") }
            await accountsAudit(.sessionEnded, active.user.id, request)
            if hash == active.session.idHash {   // ended the session in use: signed out here too
                var response = Response.redirect(to: "/sign-in?signed_out=1")
                response.setCookie(reader.cookies.clearSession)
                return response
            }
            _ = web
            return .redirect(to: "/account?notice=session-ended")
        }
        router.post("/account/sessions/end-others") { request async throws in
            let (_, web, active) = try await reader.signedInForm(request)
            try await sessions.endAll(userId: active.user.id, keeping: web.token)
            await accountsAudit(.sessionsRevoked, active.user.id, request)
            return .redirect(to: "/account?notice=others-ended")
        }
        router.post("/account/apps/{client}/revoke") { request async throws in
            let (_, _, active) = try await reader.signedInForm(request)
            let clientID = request.pathParameters["client"] ?? ""
            try await applications.revoke(userId: active.user.id, clientId: clientID, context: request.clientContext)
            return .redirect(to: "/account?notice=app-revoked")
        }
        router.post("/account/password") { request async throws in
            let (form, web, active) = try await reader.signedInForm(request)
            do {
                try await accounts.changePassword(userId: active.user.id, current: try field(form, "current_password"),
                                                  new: try field(form, "new_password"), keepingSessionToken: web.token,
                                                  context: request.clientContext)
                return .redirect(to: "/account?notice=password-changed")
            } catch let error as AccountError {
                return withRetryAfter(try await context.accountPage(web: web, active: active, error: error.message, status: context.status(for: error)), error)
            }
        }
        router.post("/account/delete") { request async throws in
            let (form, web, active) = try await reader.signedInForm(request)
            let recent = clock.now().timeIntervalSince(active.session.createdAt) < recentSignInWindow
            do {
                let revoking = try await providers.tokensToRevoke(userId: active.user.id)
                try await accounts.deleteAccount(userId: active.user.id, password: form["password"], recentlyAuthenticated: recent,
                                                 context: request.clientContext)
                await providers.accountDeleted(revoking: revoking, userId: active.user.id, context: request.clientContext)
                var response = Response.redirect(to: "/sign-in?signed_out=1")
                response.setCookie(reader.cookies.clearSession)
                return response
            } catch let error as AccountError {
                return withRetryAfter(try await context.accountPage(web: web, active: active, error: error == .invalidCredentials
                                                            ? "The password is not right; the account was not deleted." : error.message,
                                                            status: context.status(for: error)), error)
            }
        }
    }

    static let notices: [String: String] = [
        "session-ended": "The session has ended.", "others-ended": "Every other session has ended.",
        "password-changed": "Your password has changed. Every other session has ended.",
        "email-verified": "Your email address is confirmed.",
        "app-revoked": "The application no longer has access to your account.",
        "identity-linked": "The sign-in method was added to your account.",
        "identity-unlinked": "The sign-in method was removed from your account.",
    ]

    func signInRedirect(_ request: Request) -> Response {
        let target = request.path + (request.rawQuery.map { "?" + $0 } ?? "")
        return .redirect(to: "/sign-in?return_to=" + PercentDecoding.encode(target))
    }
}
