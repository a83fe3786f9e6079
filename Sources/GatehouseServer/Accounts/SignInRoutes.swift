import GatehouseHTTP
import GatehouseIdentity

extension AccountPages {
    func registerSignIn(into router: inout Router) {
        router.get("/sign-in", head: .servedByGet) { request async throws in
            let web = try await reader.read(request)
            let returnTo = ReturnPath.validated(request.query["return_to"])
            // reauth=1: an application asked for a fresh sign-in (prompt=login, max_age), so show the form.
            let reauth = request.query["reauth"] == "1"
            if web.user != nil && !reauth { return .redirect(to: returnTo ?? ReturnPath.fallback) }
            let notice = request.query["signed_out"] != nil ? web.texts["sign_in.signed_out"]
                : reauth && web.user != nil ? web.texts["sign_in.again"] : nil
            return context.signInPage(web: web, email: request.query["login_hint"] ?? "", returnTo: returnTo, error: nil, info: notice)
        }
        router.post("/sign-in") { request async throws in
            let (form, web) = try await reader.postedForm(request)
            let email = try field(form, "email", max: 320), password = try field(form, "password", max: 1024)
            let returnTo = ReturnPath.validated(form["return_to"])
            do {
                let device = request.cookies[reader.cookies.name("device")]
                let user = try await accounts.authenticate(email: email, password: password, context: request.clientContext,
                                                           deviceCookie: device)
                // An account with a second factor gets no session yet: the sign-in waits for its code.
                if try await context.secondFactors.isRequired(userID: user.id) {
                    let challenge = try await context.secondSteps.hold(userID: user.id, methods: ["pwd"], returnTo: returnTo,
                                                                       browserBinding: web.csrfBinding)
                    return try await context.secondStepPrompt(web: web, challenge: challenge, userID: user.id)
                }
                // A new session id at every sign-in; any session the browser had is ended.
                if let old = web.token { try await sessions.end(token: old) }
                let issued = try await sessions.start(userId: user.id, methods: ["pwd"], context: request.clientContext)
                await accountsAudit(.signInSucceeded, user.id, request)
                var response = Response.redirect(to: returnTo ?? ReturnPath.fallback)
                response.setCookie(reader.cookies.sessionCookie(token: issued.token))
                // This browser is now a known device of the account: strangers' failures no longer hold it back.
                response.setCookie(reader.cookies.deviceCookie(value: accounts.deviceCookie(for: user, existing: device)))
                return response
            } catch let error as AccountError {
                return withRetryAfter(context.signInPage(web: web, email: email, returnTo: returnTo, error: error.text(web.texts),
                                                 status: context.status(for: error), invalid: error.fields), error)
            }
        }
        router.post("/sign-out") { request async throws in
            let form = try request.form()
            let web = try await reader.read(request)
            if let active = web.active, let token = web.token {
                try reader.requireCSRF(form, web)
                try await sessions.end(token: token)
                await accountsAudit(.signOut, active.user.id, request)
            }
            var response = Response.redirect(to: "/sign-in?signed_out=1")
            // Only a browser that presented a session cookie gets the clearing one.
            if request.cookies[reader.cookies.sessionCookie] != nil { response.setCookie(reader.cookies.clearSession) }
            return response
        }
    }

    func accountsAudit(_ type: AuditEventType, _ userId: String, _ request: Request) async {
        await audit.record(type, userId: userId, context: request.clientContext)
    }
}
