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
            return resetPage(web: web, token: request.pathParameters["token"] ?? "", error: nil)
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
        router.get("/email/verify/{token}") { request async throws in
            let web = try await reader.read(request)
            do {
                let presented = web.token.flatMap { token in web.user.map { (token: token, userId: $0.id) } }
                let user = try await links.verifyEmail(token: request.pathParameters["token"] ?? "", presentedSession: presented,
                                                       context: request.clientContext)
                return web.user?.id == user.id ? .redirect(to: "/account?notice=email-verified")
                    : context.page("Email confirmed", #"<p>Your email address is confirmed. <a href="/sign-in">Sign in</a></p>"#, web: web)
            } catch let error as AccountError {
                return context.page("Link not valid", PageLayout.notice(error.message), web: web, status: .badRequest)
            }
        }
    }

    func forgotPage(web: WebSession, email: String, error: String?, status: HTTPStatus = .ok, invalid: Set<String> = []) -> Response {
        context.page("Reset your password", """
            \(PageLayout.notice(error))
            <form method="post" action="/password/forgot">\(context.hidden("csrf_token", reader.token(for: web)))
            <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required value="\(email)"\(PageLayout.invalid("email", in: invalid))>
            <button type="submit">Send reset link</button></form>
            """, web: web, status: status)
    }

    func resetPage(web: WebSession, token: String, error: String?, status: HTTPStatus = .ok, invalid: Set<String> = []) -> Response {
        context.page("Choose a new password", """
            \(PageLayout.notice(error))
            <form method="post" action="/password/reset/\(PercentDecoding.encode(token))">\(context.hidden("csrf_token", reader.token(for: web)))
            <label for="new_password">New password</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" minlength="10" required\(PageLayout.invalid("new_password", in: invalid))>
            <button type="submit">Set password</button></form>
            """, web: web, status: status)
    }
}
