import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseStore

/// The passkey parts of the shared screens: the sign-in page's button (hidden until the script finds
/// WebAuthn) and the account page's list with rename, remove and add.
enum PasskeyScreens {
    static let script: HTML = #"<script src="/assets/gatehouse-passkeys.js" defer></script>"#

    /// The script's words in the page's language: a ceremony cancelled (or timed out) and one that failed.
    /// `securityKey`: the second step's words ("security key"), else the passkey ceremonies'.
    static func scriptWords(_ t: Texts, securityKey: Bool = false) -> HTML {
        let cancelled = t[securityKey ? "second_step.key_cancelled" : "passkeys.script_cancelled"]
        let failed = t[securityKey ? "second_step.key_failed" : "passkeys.script_failed"]
        return #" data-cancelled="\#(cancelled)" data-failed="\#(failed)""#
    }

    /// The "Sign in with a passkey" block; the email field beside it carries `autocomplete="username webauthn"`.
    static func signInButton(csrf: String, returnTo: String?, texts t: Texts) -> HTML {
        """
        <section id="passkey-sign-in" data-passkey hidden data-options-url="/passkeys/sign-in/options" data-finish-url="/passkeys/sign-in" data-return-to="\(returnTo ?? "")"\(scriptWords(t))>
        \(PageLayout.hidden("csrf_token", csrf))
        <button type="button" id="passkey-sign-in-button" class="secondary">\(t["passkeys.sign_in"])</button>
        <p class="notice error" role="alert" data-passkey-error hidden></p>
        </section>
        \(script)
        """
    }

    /// The sign-up page's second way: an account with a passkey and no password (hidden until the script
    /// finds WebAuthn; the password form above works without it).
    static func signUpForm(csrf: String, texts t: Texts) -> HTML {
        """
        <section id="passkey-sign-up" data-passkey hidden>
        <h2>\(t["passkeys.sign_up_title"])</h2>
        <form id="passkey-sign-up-form" method="post" action="/sign-up/passkey" data-options-url="/sign-up/passkey/options"\(scriptWords(t))>
        \(PageLayout.hidden("csrf_token", csrf))
        <label for="passkey-email">\(t["field.email"])</label><input id="passkey-email" name="email" type="email" autocomplete="email" required>
        <label for="passkey-display-name">\(t["field.name"]) <span class="muted">\(t["field.optional"])</span></label><input id="passkey-display-name" name="name" type="text" autocomplete="name">
        <button type="submit" class="secondary">\(t["passkeys.sign_up_submit"])</button>
        <p class="notice error" role="alert" data-passkey-error hidden></p>
        </form>
        </section>
        \(script)
        """
    }

    /// The account page's "Passkeys" section.
    static func accountSection(_ credentials: [WebAuthnCredential], csrf: HTML, texts t: Texts) -> HTML {
        let rows = credentials.map { credential -> HTML in
            let id = Base64URL.encode(credential.credentialID)
            let lastUsed = credential.lastUsedAt.map { t.html("passkeys.last_used", ["time": PageContext.time($0, t)]) } ?? "\(t["passkeys.never_used"])"
            let kind = t[credential.backedUp ? "passkeys.synced" : credential.backupEligible ? "passkeys.syncable" : "passkeys.device_only"]
            return """
                <tr data-passkey-id="\(id)"><td><strong>\(credential.name)</strong><br>
                <span class="muted">\(t.html("passkeys.added", ["time": PageContext.time(credential.createdAt, t)])) · \(lastUsed) · \(kind)</span></td>
                <td><form method="post" action="/account/passkeys/\(id)/rename">\(csrf)
                <input id="rename-\(id)" name="name" maxlength="64" required value="\(credential.name)" aria-label="\(t("passkeys.rename_label", ["name": credential.name]))">
                <button type="submit" class="secondary">\(t["passkeys.rename"])</button></form>
                <form method="post" action="/account/passkeys/\(id)/delete">\(csrf)
                <button type="submit" class="secondary" aria-label="\(t("passkeys.remove_label", ["name": credential.name]))">\(t["passkeys.remove"])</button></form></td></tr>
                """
        }
        let list: HTML = credentials.isEmpty ? #"<p class="muted" id="no-passkeys">\#(t["passkeys.none"])</p>"#
            : #"<table id="passkeys">"# + rows.joined(separator: "\n") + "</table>"
        return """
            <h2>\(t["passkeys.title"])</h2>
            \(list)
            <form id="passkey-add" data-passkey hidden method="post" action="/account/passkeys" data-options-url="/account/passkeys/options"\(scriptWords(t))>\(csrf)
            <label for="passkey-name">\(t["passkeys.new_name"])</label><input id="passkey-name" name="name" maxlength="64" value="\(t["passkeys.default_name"])">
            <button type="submit">\(t["passkeys.add"])</button>
            <p class="notice error" role="alert" data-passkey-error hidden></p></form>
            \(script)
            """
    }
}
