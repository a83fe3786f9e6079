import GatehouseHTTP
import GatehouseIdentity

/// The second-factor screens: the code prompt after the password, the account page's section, the
/// authenticator set-up with its QR code, and the recovery codes shown once. Every word comes from the
/// catalogues (`second_step.*`, `step_up.*`, `two_step.*`, `totp_setup.*`, `recovery.*`).
extension PageContext {
    /// The prompt after the right password: an authenticator-app code or a recovery code, and the user's
    /// security key or passkey when they registered one. With security keys as the only second step the
    /// key comes first and the field takes recovery codes. `refusal`: why the last answer was refused.
    func secondStepPrompt(web: WebSession, challenge: String, userID: String, refusal: SecondFactorRefusal? = nil, error: String? = nil,
                          info: String? = nil, status: HTTPStatus = .ok) async throws -> Response {
        let factors = try await secondFactors.status(userID: userID)
        let webAuthn = try await SecondStepWebAuthn(ceremonies: passkeys).block(userID: userID, challenge: challenge, csrf: reader.token(for: web),
                                                                                texts: web.texts)
        return secondStepPage(web: web, challenge: challenge, hasApp: factors.totp || !factors.webAuthn,
                              error: refusal.map { $0.text(web.texts, hasApp: factors.totp) } ?? error, info: info, status: status,
                              webAuthn: webAuthn)
    }

    /// `hasApp`: the code field asks for the authenticator app's code (else for a recovery code, the key above it).
    func secondStepPage(web: WebSession, challenge: String, hasApp: Bool = true, error: String?, info: String? = nil,
                        status: HTTPStatus = .ok, webAuthn: HTML = .empty) -> Response {
        let t = web.texts
        return page(t["second_step.title"], """
            \(PageLayout.notice(error))\(PageLayout.notice(info, kind: "info"))
            \(hasApp ? HTML.empty : webAuthn)
            <form method="post" action="/sign-in/second-factor">
            \(hidden("csrf_token", reader.token(for: web)))\(hidden("challenge", challenge))
            <label for="code">\(t[hasApp ? "second_step.code_label" : "second_step.recovery_label"])</label>
            <input id="code" name="code" type="text" inputmode="\(hasApp ? "numeric" : "text")" autocomplete="one-time-code" maxlength="32" required\(hasApp ? " autofocus" : "")\(error == nil ? HTML.empty : " aria-invalid=\"true\"")>
            <p class="muted">\(t[hasApp ? "second_step.code_hint" : "second_step.recovery_hint"])</p>
            <button type="submit">\(t["second_step.continue"])</button>
            </form>
            \(hasApp ? webAuthn : HTML.empty)
            <p><a href="/sign-in">\(t["second_step.start_over"])</a></p>
            """, web: web, status: status)
    }

    /// Step-up for an account without a second factor: it is never signed in at a lower level than asked
    /// for, so the way on is to set one up.
    func stepUpEnrolPage(web: WebSession) -> Response {
        let t = web.texts
        return page(t["step_up.title"], """
            \(PageLayout.notice(t["step_up.notice"], kind: "info"))
            <p>\(t["step_up.body"])</p>
            <p><a href="/account" id="set-up-two-step">\(t["step_up.link"])</a></p>
            """, web: web, status: .forbidden)
    }

    /// The account page's "Two-step sign-in" section. `hasSecurityKey`: a passkey or security key is
    /// registered (it can then be the second step).
    static func secondFactorSection(_ status: SecondFactors.Status, hasSecurityKey: Bool, csrf: HTML, texts t: Texts) -> HTML {
        let useKeys: HTML = hasSecurityKey
            ? #"<form method="post" action="/account/two-factor/security-key">\#(csrf)<button type="submit" class="secondary">\#(t["two_step.use_keys"])</button></form>"#
            : #"<p class="muted">\#(t["two_step.keys_hint"])</p>"#
        let setUpApp: HTML = #"<form method="post" action="/account/two-factor/setup">\#(csrf)<button type="submit">\#(t["two_step.set_up_app"])</button></form>"#
        guard status.isEnabled else {
            return """
                <h2>\(t["two_step.title"])</h2>
                <p id="two-factor-status">\(t["two_step.off"])</p>
                \(setUpApp)
                \(useKeys)
                """
        }
        let state = t[status.totp && status.webAuthn ? "two_step.on_both" : status.totp ? "two_step.on_app" : "two_step.on_keys"]
        var changes: HTML = #"<form method="post" action="/account/two-factor/recovery-codes">\#(csrf)<button type="submit" class="secondary">\#(t["two_step.new_codes"])</button></form>"#
        if !status.totp { changes += setUpApp }
        if !status.webAuthn && hasSecurityKey { changes += useKeys }
        // Each factor's own removal, offered where it is not the last (the route refuses the last all the same).
        if status.totp && status.webAuthn {
            changes += """
                <form method="post" action="/account/two-factor/totp/remove">\(csrf)<button type="submit" class="secondary">\(t["two_step.remove_app"])</button></form>
                <form method="post" action="/account/two-factor/security-key/remove">\(csrf)<button type="submit" class="secondary">\(t["two_step.stop_keys"])</button></form>
                """
        }
        return """
            <h2>\(t["two_step.title"])</h2>
            <p id="two-factor-status">\(state) \(t.count("two_step.codes_left", status.recoveryCodesLeft))</p>
            \(changes)
            <form method="post" action="/account/two-factor/remove">\(csrf)<button type="submit" class="secondary danger">\(t["two_step.turn_off"])</button></form>
            """
    }

    /// Setting up an authenticator app: the QR code (drawn here), the secret to type by hand, and the first code.
    func totpSetupPage(web: WebSession, enrolment: SecondFactors.Enrolment, error: String?, status: HTTPStatus = .ok) -> Response {
        let t = web.texts
        let token = reader.token(for: web)
        let qr = QRCodeSVG.svg(enrolment.uri, label: t["totp_setup.qr_label"]) ?? .empty
        var grouped = ""
        for (index, char) in enrolment.secret.enumerated() { grouped += (index > 0 && index % 4 == 0 ? " " : "") + String(char) }
        return page(t["totp_setup.title"], """
            \(PageLayout.notice(error))
            <p>\(t["totp_setup.intro"])</p>
            <figure id="totp-qr">\(qr)</figure>
            <p>\(t["totp_setup.key"]) <code id="totp-secret">\(grouped)</code></p>
            <p class="muted"><a href="\(enrolment.uri)" id="totp-uri">\(t["totp_setup.open"])</a></p>
            <form method="post" action="/account/two-factor/confirm">\(hidden("csrf_token", token))
            <label for="code">\(t["totp_setup.code_label"])</label>
            <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="16" required>
            <button type="submit">\(t["totp_setup.submit"])</button></form>
            <p><a href="/account">\(t["totp_setup.cancel"])</a></p>
            """, web: web, status: status, csrfToken: token)
    }

    /// New recovery codes, shown this once.
    func recoveryCodesPage(web: WebSession, codes: [String]) -> Response {
        let t = web.texts
        let items = codes.map { code -> HTML in "<li><code>\(code)</code></li>" }.joined()
        return page(t["recovery.title"], """
            <p>\(t["recovery.intro"])</p>
            <ul id="recovery-codes">\(items)</ul>
            <p><a href="/account">\(t["recovery.continue"])</a></p>
            """, web: web)
    }
}
