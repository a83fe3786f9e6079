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
                try await links.requestPasswordReset(email: email, context: request.clientContext)
            } catch let error as AccountError {
                return withRetryAfter(forgotPage(web: web, email: email, error: error.message, status: context.status(for: error), invalid: error.fields), error)
            }
            // The same answer whether or not the address has an account.
            return context.page("Check your email", """
                <p>If an account uses <strong>\(email)</strong>, we have sent it a link to choose a new password.
                The link works once, for 30 minutes.</p><p><a href="/sign-in">Back to sign in</a></p>
                """, web: web)
        }
        router.get("/password/reset/{token}") { request async throws in
            let web = try await reader.read(request)
            let confirmed = request.query["confirmed"] == "1"
                ? "Your email address is confirmed. The password chosen at sign-up was removed with everything attached to the account: choose yours."
                : nil
            return resetPage(web: web, token: request.pathParameters["token"] ?? "", error: nil, info: confirmed)
        }
        router.post("/password/reset/{token}") { request async throws in
            let (form, web) = try await reader.postedForm(request)
            let token = request.pathParameters["token"] ?? ""
            do {
                _ = try await links.resetPassword(token: token, newPassword: try field(form, "new_password"),
                                                  context: request.clientContext)
                return context.page("Password changed", """
                    <p>Your password has changed and every session of the account has ended.</p>
                    <p><a href="/sign-in">Sign in with the new password</a></p>
                    """, web: web)
            } catch let error as AccountError {
                return withRetryAfter(resetPage(web: web, token: token, error: error.message, status: context.status(for: error), invalid: error.fields), error)
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
                        : context.page("Email confirmed", #"<p>Your email address is confirmed. <a href="/sign-in">Sign in</a></p>"#, web: web)
                case .passwordCleared(_, let resetToken):
                    // The prover holds the address but not the password: they choose one now.
                    return .redirect(to: "/password/reset/" + PercentDecoding.encode(resetToken) + "?confirmed=1")
                case .wrongPassword(let retry):
                    return verifyPage(web: web, token: retry, error: "That is not the account's password. Enter it again, or leave it empty.",
                                      status: .unauthorized)
                }
            } catch let error as AccountError {
                let status: HTTPStatus = if case .rateLimited = error { .tooManyRequests } else { .badRequest }
                return withRetryAfter(context.page("Link not valid", PageLayout.notice(error.message), web: web, status: status), error)
            }
        }
    }

    func verifyPage(web: WebSession, token: String, error: String?, status: HTTPStatus = .ok) -> Response {
        let signedIn = web.user != nil
        var response = context.page("Confirm your email address", """
            \(PageLayout.notice(error))
            <form method="post" action="/email/verify/\(PercentDecoding.encode(token))">\(context.hidden("csrf_token", reader.token(for: web)))
            \(signedIn ? HTML.empty : """
            <label for="password">Password <span class="muted">(the one you chose when you signed up)</span></label>
            <input id="password" name="password" type="password" autocomplete="current-password">
            <p class="muted">Did someone else create this account with your address, or do you not remember the password?
            Leave it empty: confirming then removes the password and everything attached to the account, and you choose a new password.</p>
            <p class="muted" id="verify-with-passkey">Created the account with a passkey? <a href="/sign-in?return_to=\(PercentDecoding.encode("/email/verify/" + token))">Sign in with it</a>
            first: confirming while signed in keeps it.</p>
            """)
            <button type="submit">Confirm my email address</button></form>
            """, web: web, status: status)
        response.noStore()
        return response
    }

    func forgotPage(web: WebSession, email: String, error: String?, status: HTTPStatus = .ok, invalid: Set<String> = []) -> Response {
        context.page("Reset your password", """
            \(PageLayout.notice(error))
            <form method="post" action="/password/forgot">\(context.hidden("csrf_token", reader.token(for: web)))
            <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required value="\(email)"\(PageLayout.invalid("email", in: invalid))>
            <button type="submit">Send reset link</button></form>
            """, web: web, status: status)
    }

    func resetPage(web: WebSession, token: String, error: String?, info: String? = nil, status: HTTPStatus = .ok, invalid: Set<String> = []) -> Response {
        context.page("Choose a new password", """
            \(PageLayout.notice(error))\(PageLayout.notice(info, kind: "info"))
            <form method="post" action="/password/reset/\(PercentDecoding.encode(token))">\(context.hidden("csrf_token", reader.token(for: web)))
            <label for="new_password">New password</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="10" required\(PageLayout.invalid("new_password", in: invalid))>
            <button type="submit">Set password</button></form>
            """, web: web, status: status)
    }
}
