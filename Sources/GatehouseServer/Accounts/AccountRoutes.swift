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
                                                 notice: request.query["notice"].flatMap { Self.notices[$0].map { web.texts[$0] } })
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
                return withRetryAfter(try await context.accountPage(web: web, active: active, error: error.text(web.texts), status: context.status(for: error)), error)
            }
        }
        router.get("/account/delete", head: .servedByGet) { request async throws in
            let web = try await reader.read(request)
            guard let active = web.active else { return signInRedirect(request) }
            return try await deletePage(web: web, active: active, error: nil)
        }
        router.post("/account/delete") { request async throws in
            let (form, web, active) = try await reader.signedInForm(request)
            do {
                let proof = try proof(form, active: active)
                let revoking = try await providers.tokensToRevoke(userId: active.user.id)
                try await accounts.deleteAccount(userId: active.user.id, proof: proof, confirmation: try field(form, "confirm_email", max: 320),
                                                 context: request.clientContext)
                await providers.accountDeleted(revoking: revoking, userId: active.user.id, context: request.clientContext)
                var response = Response.redirect(to: "/sign-in?signed_out=1")
                response.setCookie(reader.cookies.clearSession)
                return response
            } catch let error as AccountError {
                let message = error == .invalidCredentials ? web.texts["delete.wrong_password"] : error.text(web.texts)
                return withRetryAfter(try await deletePage(web: web, active: active, error: message, status: context.status(for: error)), error)
            }
        }
    }

    /// Deleting the account, on its own page: a fresh sign-in (``FreshSignIn``) and the email typed.
    /// A provider-only user is never asked for a password: they sign in with their provider (or passkey) again.
    func deletePage(web: WebSession, active: ActiveSession, error: String?, status: HTTPStatus = .ok) async throws -> Response {
        let t = web.texts
        return try await freshSignInPage(web: web, active: active, action: "/account/delete", title: t["delete.title"],
                                         explanation: t["delete.explanation"], back: t["delete.keep"], fields: """
            <label for="confirm_email">\(t.html("delete.confirm_label", ["email": "<strong>\(active.user.email)</strong>"]))</label>
            <input id="confirm_email" name="confirm_email" type="text" autocomplete="off" required>
            <button type="submit" class="danger">\(t["delete.submit"])</button>
            """, error: error, status: status, id: "delete")
    }

    /// The `notice` query values and the catalogue keys of their texts.
    static let notices: [String: String] = [
        "session-ended": "notice.session_ended", "others-ended": "notice.others_ended",
        "password-changed": "notice.password_changed", "email-verified": "notice.email_verified",
        "app-revoked": "notice.app_revoked", "identity-linked": "notice.identity_linked",
        "identity-unlinked": "notice.identity_unlinked", "passkey-added": "notice.passkey_added",
        "passkey-renamed": "notice.passkey_renamed", "passkey-removed": "notice.passkey_removed",
        "language-saved": "notice.language_saved",
        "name-changed": "notice.name_changed", "email-change-sent": "notice.email_change_sent",
        "email-changed": "notice.email_changed", "password-setup-sent": "notice.password_setup_sent",
        "two-factor-on": "notice.two_factor_on", "two-factor-off": "notice.two_factor_off",
        "two-factor-app-removed": "notice.two_factor_app_removed", "two-factor-keys-stopped": "notice.two_factor_keys_stopped",
    ]

    func signInRedirect(_ request: Request) -> Response {
        let target = request.path + (request.rawQuery.map { "?" + $0 } ?? "")
        return .redirect(to: "/sign-in?return_to=" + PercentDecoding.encode(target))
    }
}
