import GatehouseHTTP
import GatehouseIdentity

extension AccountPages {
    func registerPasswordReset(into router: inout Router) {
        router.get("/password/forgot", head: .servedByGet) { request async throws in
            let web = try await reader.read(request)
            return forgotPage(web: web, email: "", error: nil)
        }
        router.post("/password/forgot") { request async throws in
            let (form, web) = try await reader.postedForm(request)
            let email = try field(form, "email", max: 320)
            do {
                try await links.requestPasswordReset(email: email, context: request.clientContext, language: web.texts.tag)
            } catch let error as AccountError {
                return withRetryAfter(forgotPage(web: web, email: email, error: error.text(web.texts), status: context.status(for: error), invalid: error.fields), error)
            }
            // The same answer whether or not the address has an account.
            let t = web.texts
            return context.page(t["check_email.title"], """
                <p>\(t.html("forgot.sent", ["email": "<strong>\(email)</strong>"]))</p><p><a href="/sign-in">\(t["forgot.back"])</a></p>
                """, web: web, id: "forgot-sent")
        }
        router.get("/password/reset/{token}") { request async throws in
            let web = try await reader.read(request)
            let confirmed = request.query["confirmed"] == "1" ? web.texts["reset.confirmed"] : nil
            return resetPage(web: web, token: request.pathParameters["token"] ?? "", error: nil, info: confirmed)
        }
        router.post("/password/reset/{token}") { request async throws in
            let (form, web) = try await reader.postedForm(request)
            let token = request.pathParameters["token"] ?? ""
            do {
                _ = try await links.resetPassword(token: token, newPassword: try field(form, "new_password"),
                                                  context: request.clientContext)
                let t = web.texts
                return context.page(t["reset.done_title"], """
                    <p>\(t["reset.done"])</p>
                    <p><a href="/sign-in">\(t["reset.sign_in"])</a></p>
                    """, web: web, id: "reset-done")
            } catch let error as AccountError {
                return withRetryAfter(resetPage(web: web, token: token, error: error.text(web.texts), status: context.status(for: error), invalid: error.fields), error)
            }
        }
        // The link only shows a page: mail scanners open links (without cookies) and must prove nothing.
        router.get("/email/verify/{token}") { request async throws in
            let web = try await reader.read(request)
            return verifyPage(web: web, token: request.pathParameters["token"] ?? "", error: nil)
        }
        router.post("/email/verify/{token}") { request async throws in
            let (form, web) = try await reader.postedForm(request)
            do {
                let presented = web.token.flatMap { token in web.user.map { (token: token, userId: $0.id) } }
                switch try await links.verifyEmail(token: request.pathParameters["token"] ?? "", presentedSession: presented,
                                                   password: try field(form, "password"), context: request.clientContext) {
                case .verified(let user):
                    return web.user?.id == user.id ? .redirect(to: "/account?notice=email-verified")
                        : context.page(web.texts["verify.done_title"], #"<p>\#(web.texts["notice.email_verified"]) <a href="/sign-in">\#(web.texts["verify.sign_in"])</a></p>"#, web: web, id: "verify-done")
                case .passwordCleared(_, let resetToken):
                    // The prover holds the address but not the password: they choose one now.
                    return .redirect(to: "/password/reset/" + PercentDecoding.encode(resetToken) + "?confirmed=1")
                case .wrongPassword(let retry):
                    return verifyPage(web: web, token: retry, error: web.texts["verify.wrong_password"],
                                      status: .unauthorized)
                }
            } catch let error as AccountError {
                let status: HTTPStatus = if case .rateLimited = error { .tooManyRequests } else { .badRequest }
                return withRetryAfter(context.page(web.texts["verify.invalid_title"], PageLayout.notice(error.text(web.texts)), web: web, status: status), error)
            }
        }
    }

    func verifyPage(web: WebSession, token: String, error: String?, status: HTTPStatus = .ok) -> Response {
        let t = web.texts
        let signedIn = web.user != nil
        let response = context.page(t["verify.title"], """
            \(PageLayout.notice(error))
            <form method="post" action="/email/verify/\(PercentDecoding.encode(token))">\(context.hidden("csrf_token", reader.token(for: web)))
            \(signedIn ? HTML.empty : """
            <label for="password">\(t["field.password"]) <span class="muted">\(t["verify.password_hint"])</span></label>
            <input id="password" name="password" type="password" autocomplete="current-password">
            <p class="muted">\(t["verify.explanation"])</p>
            <p class="muted" id="verify-with-passkey">\(t.html("verify.passkey", ["sign_in": #"<a href="/sign-in?return_to=\#(PercentDecoding.encode("/email/verify/" + token))">\#(t["verify.passkey_sign_in"])</a>"#]))</p>
            """)
            <button type="submit">\(t["verify.submit"])</button></form>
            """, web: web, status: status, id: "verify")
        return response
    }

    func forgotPage(web: WebSession, email: String, error: String?, status: HTTPStatus = .ok, invalid: Set<String> = []) -> Response {
        let t = web.texts
        return context.page(t["forgot.title"], """
            \(PageLayout.notice(error))
            <form method="post" action="/password/forgot">\(context.hidden("csrf_token", reader.token(for: web)))
            <label for="email">\(t["field.email"])</label><input id="email" name="email" type="email" autocomplete="email" required value="\(email)"\(PageLayout.invalid("email", in: invalid))>
            <button type="submit">\(t["forgot.submit"])</button></form>
            """, web: web, status: status, id: "forgot")
    }

    func resetPage(web: WebSession, token: String, error: String?, info: String? = nil, status: HTTPStatus = .ok, invalid: Set<String> = []) -> Response {
        let t = web.texts
        return context.page(t["reset.title"], """
            \(PageLayout.notice(error))\(PageLayout.notice(info, kind: "info"))
            <form method="post" action="/password/reset/\(PercentDecoding.encode(token))">\(context.hidden("csrf_token", reader.token(for: web)))
            <label for="new_password">\(t["field.new_password"])</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="10" required\(PageLayout.invalid("new_password", in: invalid))>
            <button type="submit">\(t["reset.submit"])</button></form>
            """, web: web, status: status, id: "reset")
    }
}
