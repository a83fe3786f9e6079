import GatehouseHTTP
import GatehouseIdentity

extension AccountPages {
    func registerSignUp(into router: inout Router) {
        router.get("/sign-up", head: .servedByGet) { request async throws in
            let web = try await reader.read(request)
            if web.user != nil { return .redirect(to: ReturnPath.fallback) }
            return signUpPage(web: web, email: "", name: "", error: nil)
        }
        router.get("/sign-up/check-email", head: .servedByGet) { request async throws in checkEmailPage(web: try await reader.read(request)) }
        router.post("/sign-up") { request async throws in
            let (form, web) = try await reader.postedForm(request)
            let email = try field(form, "email", max: 320), name = try field(form, "name", max: 200)
            let password = try field(form, "password", max: 1024)
            do {
                // The same answer whether or not the address had an account: no session
                // either way; the owner of the address learns which by mail.
                switch try await accounts.signUp(email: email, password: password, displayName: name, context: request.clientContext) {
                case .created(let user): try? await links.sendVerification(to: user, language: web.texts.tag)
                case .alreadyRegistered(let owner): try? await links.sendAlreadyRegistered(to: owner, language: web.texts.tag)
                }
                return .redirect(to: "/sign-up/check-email")
            } catch let error as AccountError {
                return withRetryAfter(signUpPage(web: web, email: email, name: name, error: error.text(web.texts),
                                                 status: context.status(for: error), invalid: error.fields), error)
            }
        }
    }

    func checkEmailPage(web: WebSession) -> Response {
        let t = web.texts
        return context.page(t["check_email.title"], """
            <p>\(t.html("check_email.sent", ["sign_in": #"<a href="/sign-in">\#(t["check_email.sign_in"])</a>"#]))</p>
            <p class="muted">\(t.html("check_email.no_message", ["try_again": #"<a href="/sign-up">\#(t["check_email.try_again"])</a>"#]))</p>
            """, web: web, id: "check-email")
    }

    func signUpPage(web: WebSession, email: String, name: String, error: String?, status: HTTPStatus = .ok,
                    invalid: Set<String> = []) -> Response {
        let t = web.texts
        return context.page(t["sign_up.title"], """
            \(PageLayout.notice(error))
            <form method="post" action="/sign-up">
            \(context.hidden("csrf_token", reader.token(for: web)))
            <label for="email">\(t["field.email"])</label><input id="email" name="email" type="email" autocomplete="email" required value="\(email)"\(PageLayout.invalid("email", in: invalid))>
            <label for="name">\(t["field.name"]) <span class="muted">\(t["field.optional"])</span></label><input id="name" name="name" type="text" autocomplete="name" value="\(name)">
            <label for="password">\(t["field.password"])</label><input id="password" name="password" type="password" autocomplete="new-password" minlength="10" required\(invalid.contains("password") ? #" aria-invalid="true" aria-describedby="form-error password-hint""# : #" aria-describedby="password-hint""# as HTML)>
            <p class="muted" id="password-hint">\(t["sign_up.password_hint"])</p>
            <button type="submit">\(t["sign_up.submit"])</button>
            </form>
            \(PasskeyScreens.signUpForm(csrf: reader.token(for: web), texts: t))
            <p>\(t.html("sign_up.have_account", ["sign_in": #"<a href="/sign-in">\#(t["sign_up.sign_in"])</a>"#]))</p>
            """, web: web, status: status, id: "sign-up")
    }
}
