import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// The account page's self-service: the name, a new email address (proven by a link to it), a first password
/// for a provider-only account (by a mailed link), and the account's data as a JSON download.
extension AccountPages {
    func registerSelfService(into router: inout Router) {
        router.post("/account/name") { request async throws in
            let (form, web, active) = try await reader.signedInForm(request)
            do {
                try await accounts.changeName(userId: active.user.id, to: try field(form, "name", max: 400), context: request.clientContext)
                return .redirect(to: "/account?notice=name-changed")
            } catch let error as AccountError {
                return try await context.accountPage(web: web, active: active, error: error.text(web.texts), status: context.status(for: error))
            }
        }
        router.post("/account/email") { request async throws in
            let (form, web, active) = try await reader.signedInForm(request)
            do {
                // Sent, taken or suppressed: the same answer, so the page never tells whether an address has an account.
                _ = try await links.requestEmailChange(user: active.user, to: try field(form, "new_email", max: 320), context: request.clientContext,
                                                       language: web.texts.tag)
                return .redirect(to: "/account?notice=email-change-sent")
            } catch let error as AccountError {
                return try await context.accountPage(web: web, active: active, error: error == .invalidEmail
                                                     ? web.texts["self_service.email_invalid"] : error.text(web.texts),
                                                     status: context.status(for: error))
            }
        }
        // The link only shows a page: mail scanners open links and must change nothing.
        router.get("/account/email/confirm/{token}") { request async throws in
            let web = try await reader.read(request)
            return confirmEmailChangePage(web: web, token: request.pathParameters["token"] ?? "")
        }
        router.post("/account/email/confirm/{token}") { request async throws in
            let (_, web) = try await reader.postedForm(request)
            let presented = web.token.flatMap { token in web.user.map { (token: token, userId: $0.id) } }
            do {
                let user = try await links.confirmEmailChange(token: request.pathParameters["token"] ?? "", presentedSession: presented,
                                                              context: request.clientContext)
                if web.user?.id == user.id { return .redirect(to: "/account?notice=email-changed") }
                return context.page(web.texts["email_change.done_title"], """
                    <p>\(web.texts.html("email_change.done", ["email": "<strong>\(user.email)</strong>"]))</p>
                    <p><a href="/sign-in">\(web.texts["verify.sign_in"])</a></p>
                    """, web: web)
            } catch let error as AccountError {
                let message = error == .emailTaken ? web.texts["email_change.taken"] : error.text(web.texts)
                return context.page(web.texts["verify.invalid_title"], PageLayout.notice(message), web: web, status: context.status(for: error))
            }
        }
        router.post("/account/password/setup") { request async throws in
            let (_, web, active) = try await reader.signedInForm(request)
            do {
                try await links.requestPasswordSetup(user: active.user, context: request.clientContext, language: web.texts.tag)
                return .redirect(to: "/account?notice=password-setup-sent")
            } catch let error as AccountError {
                // The account has a password already: it is changed with the current one, never set by mail here.
                return try await context.accountPage(web: web, active: active, error: error == .invalidCredentials
                                                     ? web.texts["self_service.has_password"] : error.text(web.texts),
                                                     status: .conflict)
            }
        }
        router.get("/account/export", head: .servedByGet) { request async throws in
            let web = try await reader.read(request)
            guard let active = web.active else { return signInRedirect(request) }
            return try await exportPage(web: web, active: active, error: nil)
        }
        router.post("/account/export") { request async throws in
            let (form, web, active) = try await reader.signedInForm(request)
            do {
                try await RecentAuthentication(accounts: accounts, clock: clock)
                    .verify(try proof(form, active: active), user: active.user, context: request.clientContext)
                var response = Response(status: .ok, headers: ["Content-Type": "application/json; charset=utf-8"],
                                        body: try await dataExport.export(userId: active.user.id, context: request.clientContext))
                response.headers.set("Content-Disposition", #"attachment; filename="account-data.json""#)
                return response
            } catch let error as AccountError {
                let message = error == .invalidCredentials ? web.texts["export.wrong_password"] : error.text(web.texts)
                return withRetryAfter(try await exportPage(web: web, active: active, error: message, status: context.status(for: error)), error)
            }
        }
    }

    func confirmEmailChangePage(web: WebSession, token: String) -> Response {
        let t = web.texts
        let response = context.page(t["email_change.title"], """
            <p>\(t["email_change.explanation"])</p>
            <form method="post" action="/account/email/confirm/\(PercentDecoding.encode(token))">\(context.hidden("csrf_token", reader.token(for: web)))
            <button type="submit">\(t["email_change.submit"])</button></form>
            """, web: web)
        return response
    }

    /// The data download, on its own page behind a fresh sign-in: the export holds the account's whole history.
    func exportPage(web: WebSession, active: ActiveSession, error: String?, status: HTTPStatus = .ok) async throws -> Response {
        let t = web.texts
        return try await freshSignInPage(web: web, active: active, action: "/account/export", title: t["export.title"],
                                         explanation: t["export.explanation"], back: t["export.back"],
                                         fields: "<button type=\"submit\">\(t["export.submit"])</button>", error: error, status: status, id: nil)
    }
}

extension PageContext {
    /// The account page's self-service sections: the name, the address, a first password for a provider-only
    /// account (or the change form for one with a password), and the data download.
    func selfServiceSections(user: User, csrf: HTML, texts t: Texts) -> HTML {
        let password: HTML = user.passwordHash == nil ? """
            <h2>\(t["self_service.password"])</h2>
            <p class="muted">\(t["self_service.password_setup_hint"])</p>
            <form method="post" action="/account/password/setup">\(csrf)<button type="submit" class="secondary">\(t["self_service.password_setup_submit"])</button></form>
            """ : """
            <h2>\(t["account.change_password"])</h2>
            <form method="post" action="/account/password">\(csrf)
            <label for="current_password">\(t["field.current_password"])</label><input id="current_password" name="current_password" type="password" autocomplete="current-password" required>
            <label for="new_password">\(t["field.new_password"])</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="10" required>
            <button type="submit">\(t["account.change_password_submit"])</button></form>
            """
        return """
            <h2>\(t["self_service.details"])</h2>
            <form method="post" action="/account/name">\(csrf)
            <label for="name">\(t["field.name"])</label><input id="name" name="name" type="text" autocomplete="name" maxlength="100" value="\(user.displayName ?? "")">
            <button type="submit" class="secondary">\(t["self_service.name_save"])</button></form>
            <form method="post" action="/account/email">\(csrf)
            <label for="new_email">\(t["self_service.new_email"])</label><input id="new_email" name="new_email" type="email" autocomplete="email" required>
            <p class="muted">\(t("self_service.email_hint", ["email": user.email]))</p>
            <button type="submit" class="secondary">\(t["self_service.email_submit"])</button></form>
            \(password)
            <h2>\(t["self_service.data"])</h2>
            <p><a href="/account/export">\(t["self_service.data_link"])</a> <span class="muted">\(t["account.delete_hint"])</span></p>
            """
    }
}
