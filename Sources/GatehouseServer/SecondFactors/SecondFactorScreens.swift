import GatehouseHTTP
import GatehouseIdentity

/// The second-factor screens: the code prompt after the password, the account page's section, the
/// authenticator set-up with its QR code, and the recovery codes shown once.
extension PageContext {
    /// The prompt after the right password: an authenticator-app code or a recovery code, or the user's
    /// security key or passkey when they registered one.
    func secondStepPrompt(web: WebSession, challenge: String, userID: String, error: String?, info: String? = nil,
                          status: HTTPStatus = .ok) async throws -> Response {
        let webAuthn = try await SecondStepWebAuthn(ceremonies: passkeys).block(userID: userID, challenge: challenge, csrf: reader.token(for: web))
        return secondStepPage(web: web, challenge: challenge, error: error, info: info, status: status, webAuthn: webAuthn)
    }

    func secondStepPage(web: WebSession, challenge: String, error: String?, info: String? = nil, status: HTTPStatus = .ok,
                        webAuthn: HTML = .empty) -> Response {
        page("Two-step sign-in", """
            \(PageLayout.notice(error))\(PageLayout.notice(info, kind: "info"))
            <form method="post" action="/sign-in/second-factor">
            \(hidden("csrf_token", reader.token(for: web)))\(hidden("challenge", challenge))
            <label for="code">Code from your authenticator app</label>
            <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="32" required autofocus\(error == nil ? HTML.empty : " aria-invalid=\"true\"")>
            <p class="muted">Lost your phone? Enter one of your recovery codes instead.</p>
            <button type="submit">Continue</button>
            </form>
            \(webAuthn)
            <p><a href="/sign-in">Start over</a></p>
            """, web: web, status: status)
    }

    /// Step-up for an account without a second factor: it is never signed in at a lower level than asked
    /// for, so the way on is to set one up.
    func stepUpEnrolPage(web: WebSession) -> Response {
        page("Two-step sign-in needed", """
            \(PageLayout.notice("The application asks for a two-step sign-in, and your account has no second step yet.", kind: "info"))
            <p>Set up an authenticator app on your account page, then go back to the application and try again.</p>
            <p><a href="/account" id="set-up-two-step">Set up two-step sign-in</a></p>
            """, web: web, status: .forbidden)
    }

    /// The account page's "Two-step sign-in" section.
    static func secondFactorSection(_ status: SecondFactors.Status, csrf: HTML) -> HTML {
        guard status.isEnabled else {
            return """
                <h2>Two-step sign-in</h2>
                <p id="two-factor-status">After your password, also ask for a code from an authenticator app.</p>
                <form method="post" action="/account/two-factor/setup">\(csrf)<button type="submit">Set up an authenticator app</button></form>
                """
        }
        return """
            <h2>Two-step sign-in</h2>
            <p id="two-factor-status">On: an authenticator app is asked for after your password. \(status.recoveryCodesLeft) recovery codes left.</p>
            <form method="post" action="/account/two-factor/recovery-codes">\(csrf)<button type="submit" class="secondary">New recovery codes</button></form>
            <form method="post" action="/account/two-factor/remove">\(csrf)<button type="submit" class="secondary danger">Turn off two-step sign-in</button></form>
            """
    }

    /// Setting up an authenticator app: the QR code (drawn here), the secret to type by hand, and the first code.
    func totpSetupPage(web: WebSession, enrolment: SecondFactors.Enrolment, error: String?, status: HTTPStatus = .ok) -> Response {
        let token = reader.token(for: web)
        let qr = QRCodeSVG.svg(enrolment.uri, label: "QR code for your authenticator app") ?? .empty
        var grouped = ""
        for (index, char) in enrolment.secret.enumerated() { grouped += (index > 0 && index % 4 == 0 ? " " : "") + String(char) }
        return page("Set up an authenticator app", """
            \(PageLayout.notice(error))
            <p>Scan this code with your authenticator app (or add the key by hand), then enter the code it shows.</p>
            <figure id="totp-qr">\(qr)</figure>
            <p>Key: <code id="totp-secret">\(grouped)</code></p>
            <p class="muted"><a href="\(enrolment.uri)" id="totp-uri">Open in an authenticator app on this device</a></p>
            <form method="post" action="/account/two-factor/confirm">\(hidden("csrf_token", token))
            <label for="code">Code from the app</label>
            <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="16" required>
            <button type="submit">Turn on two-step sign-in</button></form>
            <p><a href="/account">Cancel</a></p>
            """, web: web, status: status, csrfToken: token)
    }

    /// New recovery codes, shown this once.
    func recoveryCodesPage(web: WebSession, codes: [String]) -> Response {
        let items = codes.map { code -> HTML in "<li><code>\(code)</code></li>" }.joined()
        return page("Your recovery codes", """
            <p>Keep these codes somewhere safe. Each one signs you in once if you lose your authenticator app.
            They are shown only now; earlier codes no longer work.</p>
            <ul id="recovery-codes">\(items)</ul>
            <p><a href="/account">Continue to your account</a></p>
            """, web: web)
    }
}
