import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// Second factors on the web: the sign-in's second step (after the password step held the sign-in,
/// ``SecondStepChallenges``) and the account page's set-up, new recovery codes and removal, each
/// change after a fresh sign-in.
struct SecondFactorRoutes: Sendable {
    let context: PageContext
    let factors: SecondFactors
    let steps: SecondStepChallenges
    let accounts: AccountService
    /// How recent the session's sign-in must be to change second factors (the passkeys' window).
    let recentSignInWindow: TimeInterval

    var reader: WebSessionReader { context.reader }

    static let reauthPath = "/sign-in?reauth=1&return_to=%2Faccount"

    func register(into router: inout Router) {
        router.post("/sign-in/second-factor") { request async throws in
            let (form, web) = try await reader.postedForm(request)
            let challenge = try field(form, "challenge", max: 64), code = try field(form, "code", max: 64)
            let pending: SecondStepChallenges.Pending
            do {
                pending = try await steps.take(challenge, browserBinding: web.csrfBinding)
            } catch let refusal as SecondFactorRefusal {
                return context.signInPage(web: web, email: "", returnTo: nil, error: refusal.text(web.texts), status: .badRequest, invalid: [])
            }
            let method: SecondFactors.Method
            do {
                method = try await factors.verify(userID: pending.userID, code: code, context: request.clientContext)
            } catch let refusal as SecondFactorRefusal {
                // A new challenge for the next try (until the first one's deadline): every answer spent one.
                let next = try await steps.hold(pending)
                var response = try await context.secondStepPrompt(web: web, challenge: next, userID: pending.userID, refusal: refusal,
                                                                  status: refusal.isRateLimit ? .tooManyRequests : .unauthorized)
                if case .rateLimited(let wait) = refusal { response.headers.set("Retry-After", String(Int(wait.rounded(.up)))) }
                return response
            }
            return try await finish(pending, methods: Self.methods(pending.methods, method), secondFactor: method.rawValue,
                                    web: web, request: request)
        }
        // A security key or passkey instead of the code: the assertion the prompt's script posts.
        router.post(SecondStepWebAuthn.finishPath) { request async throws in
            let (form, web) = try await reader.postedForm(request)
            let challenge = try field(form, "challenge", max: 64)
            let pending: SecondStepChallenges.Pending
            do {
                pending = try await steps.take(challenge, browserBinding: web.csrfBinding)
            } catch let refusal as SecondFactorRefusal {
                return context.signInPage(web: web, email: "", returnTo: nil, error: refusal.text(web.texts), status: .badRequest, invalid: [])
            }
            let added: [String]
            do {
                added = try await SecondStepWebAuthn(ceremonies: context.passkeys).verify(form, challenge: challenge, userID: pending.userID,
                                                                                          context: request.clientContext)
            } catch is WebAuthnRefusal {
                let next = try await steps.hold(pending)
                return try await context.secondStepPrompt(web: web, challenge: next, userID: pending.userID,
                                                          error: web.texts["second_step.key_refused"],
                                                          status: .unauthorized)
            }
            var methods = pending.methods
            for method in added where !methods.contains(method) { methods.append(method) }
            return try await finish(pending, methods: methods, secondFactor: "webauthn", web: web, request: request)
        }
        // Step-up: an application asked for a multi-factor sign-in (acr_values, require_mfa) and the session has
        // one factor. The second step again, for the signed-in user; or, without a second factor, the way to set one up.
        router.get("/sign-in/step-up", head: .servedByGet) { request async throws in
            let web = try await reader.read(request)
            let returnTo = ReturnPath.validated(request.query["return_to"])
            guard let active = web.active else {
                return .redirect(to: "/sign-in" + (returnTo.map { "?return_to=" + PercentDecoding.encode($0) } ?? ""))
            }
            guard try await factors.isRequired(userID: active.user.id) else { return context.stepUpEnrolPage(web: web) }
            let challenge = try await steps.hold(userID: active.user.id, methods: active.session.authMethods, returnTo: returnTo,
                                                 browserBinding: web.csrfBinding)
            return try await context.secondStepPrompt(web: web, challenge: challenge, userID: active.user.id,
                                                      info: web.texts["second_step.step_up_info"])
        }
        router.post("/account/two-factor/setup") { request async throws in
            let (_, web, active) = try await reader.signedInForm(request)
            guard isRecent(active) else { return .redirect(to: Self.reauthPath) }
            do {
                let enrolment = try await factors.beginTOTP(user: active.user)
                return context.totpSetupPage(web: web, enrolment: enrolment, error: nil)
            } catch SecondFactorRefusal.alreadyEnrolled {
                return .redirect(to: "/account")
            }
        }
        router.post("/account/two-factor/confirm") { request async throws in
            let (form, web, active) = try await reader.signedInForm(request)
            let code = try field(form, "code", max: 64)
            do {
                if let codes = try await factors.confirmTOTP(user: active.user, code: code, context: request.clientContext) {
                    return context.recoveryCodesPage(web: web, codes: codes)
                }
                return .redirect(to: "/account?notice=two-factor-on")
            } catch let refusal as SecondFactorRefusal {
                guard let enrolment = try await factors.pendingTOTP(user: active.user) else { return .redirect(to: "/account") }
                return context.totpSetupPage(web: web, enrolment: enrolment, error: refusal.text(web.texts),
                                             status: refusal.isRateLimit ? .tooManyRequests : .unprocessableContent)
            }
        }
        router.post("/account/two-factor/recovery-codes") { request async throws in
            let (_, web, active) = try await reader.signedInForm(request)
            guard isRecent(active) else { return .redirect(to: Self.reauthPath) }
            guard try await factors.status(userID: active.user.id).isEnabled else { return .redirect(to: "/account") }
            return context.recoveryCodesPage(web: web, codes: try await factors.regenerateRecoveryCodes(userID: active.user.id,
                                                                                                        context: request.clientContext))
        }
        // The security keys and passkeys the user registered, as the second step (with or without an app).
        router.post("/account/two-factor/security-key") { request async throws in
            let (_, web, active) = try await reader.signedInForm(request)
            guard isRecent(active) else { return .redirect(to: Self.reauthPath) }
            do {
                if let codes = try await factors.useSecurityKeys(userID: active.user.id, context: request.clientContext) {
                    return context.recoveryCodesPage(web: web, codes: codes)
                }
                return .redirect(to: "/account?notice=two-factor-on")
            } catch let refusal as SecondFactorRefusal {
                return try await refused(refusal, web: web, active: active)
            }
        }
        for (path, factor, notice) in [("/account/two-factor/totp/remove", SecondFactorKind.totp, "two-factor-app-removed"),
                                       ("/account/two-factor/security-key/remove", .webAuthn, "two-factor-keys-stopped")] {
            router.post(path) { request async throws in
                let (_, web, active) = try await reader.signedInForm(request)
                guard isRecent(active) else { return .redirect(to: Self.reauthPath) }
                do {
                    try await factors.remove(factor, userID: active.user.id, context: request.clientContext)
                } catch let refusal as SecondFactorRefusal {
                    return try await refused(refusal, web: web, active: active)
                }
                return .redirect(to: "/account?notice=" + notice)
            }
        }
        router.post("/account/two-factor/remove") { request async throws in
            let (_, web, active) = try await reader.signedInForm(request)
            guard isRecent(active) else { return .redirect(to: Self.reauthPath) }
            do {
                _ = try await factors.turnOff(userID: active.user.id, context: request.clientContext)
            } catch let refusal as SecondFactorRefusal {
                return try await refused(refusal, web: web, active: active)
            }
            return .redirect(to: "/account?notice=two-factor-off")
        }
    }

    /// A change the rules refuse: the account page again, saying why (409: nothing changed).
    func refused(_ refusal: SecondFactorRefusal, web: WebSession, active: ActiveSession) async throws -> Response {
        try await context.accountPage(web: web, active: active, error: refusal.text(web.texts), status: .conflict)
    }

    /// The second step passed: a new session (any the browser had ends) with the methods proven, and on to where it was going.
    func finish(_ pending: SecondStepChallenges.Pending, methods: [String], secondFactor: String, web: WebSession,
                request: Request) async throws -> Response {
        if let old = web.token { try await context.sessions.end(token: old) }
        let issued = try await context.sessions.start(userId: pending.userID, methods: methods, context: request.clientContext)
        await context.audit.record(.signInSucceeded, userId: pending.userID, context: request.clientContext,
                                   details: ["method": "password", "second_factor": secondFactor])
        var response = Response.redirect(to: pending.returnTo ?? ReturnPath.fallback)
        response.setCookie(reader.cookies.sessionCookie(token: issued.token))
        return response
    }

    /// RFC 8176 methods of a password sign-in with its second step: `otp` for an authenticator-app code,
    /// and `mfa` for either (a recovery code is a second thing the person holds, but no one-time password).
    static func methods(_ proven: [String], _ second: SecondFactors.Method) -> [String] {
        var methods = proven
        for method in second == .totp ? ["otp", "mfa"] : ["mfa"] where !methods.contains(method) { methods.append(method) }
        return methods
    }

    func isRecent(_ active: ActiveSession) -> Bool {
        context.clock.now().timeIntervalSince(active.session.createdAt) < recentSignInWindow
    }

    func field(_ form: URLEncodedForm, _ name: String, max: Int) throws(HTTPError) -> String {
        let value = form[name] ?? ""
        guard value.utf8.count <= max else { throw HTTPError(.payloadTooLarge, "The \(name) is too long.") }
        return value
    }
}

extension SecondFactorRefusal {
    var isRateLimit: Bool { if case .rateLimited = self { true } else { false } }
}
