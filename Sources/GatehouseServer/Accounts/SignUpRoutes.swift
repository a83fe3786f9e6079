import GatehouseHTTP
import GatehouseIdentity

extension AccountPages {
    func registerSignUp(into router: inout Router) {
        router.get("/sign-up") { request async throws in
            let web = try await reader.read(request)
            if web.user != nil { return .redirect(to: ReturnPath.fallback) }
            return signUpPage(web: web, email: "", name: "", error: nil)
        }
        router.post("/sign-up") { request async throws in
            let form = try request.form()
            let web = try await reader.read(request)
            try reader.requireCSRF(form, web)
            let email = try field(form, "email", max: 320), name = try field(form, "name", max: 200)
            let password = try field(form, "password", max: 1024)
            do {
                let user = try await accounts.signUp(email: email, password: password, displayName: name, context: request.clientContext)
                try? await links.sendVerification(to: user)
                let issued = try await sessions.start(userId: user.id, methods: ["pwd"], context: request.clientContext)
                var response = Response.redirect(to: ReturnPath.fallback)
                response.setCookie(reader.cookies.sessionCookie(token: issued.token))
                return response
            } catch let error as AccountError {
                return withRetryAfter(signUpPage(web: web, email: email, name: name, error: error.message,
                                                 status: status(for: error)), error)
            }
        }
    }

    func signUpPage(web: WebSession, email: String, name: String, error: String?, status: HTTPStatus = .ok) -> Response {
        page("Create an account", """
            \(PageLayout.notice(error))
            <form method="post" action="/sign-up">
            \(hidden("csrf_token", reader.token(for: web)))
            <label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required value="\(h(email))">
            <label for="name">Name <span class="muted">(optional)</span></label><input id="name" name="name" type="text" autocomplete="name" value="\(h(name))">
            <label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required>
            <p class="muted">At least 10 characters.</p>
            <button type="submit">Create account</button>
            </form>
            <p>Already have an account? <a href="/sign-in">Sign in</a>.</p>
            """, web: web, status: status)
    }
}
