import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseStore

/// The passkey parts of the shared screens: the sign-in page's button (hidden until the script finds
/// WebAuthn) and the account page's list with rename, remove and add.
enum PasskeyScreens {
    static let script: HTML = #"<script src="/assets/gatehouse-passkeys.js" defer></script>"#

    /// The "Sign in with a passkey" block; the email field beside it carries `autocomplete="username webauthn"`.
    static func signInButton(csrf: String, returnTo: String?) -> HTML {
        """
        <section id="passkey-sign-in" data-passkey hidden data-options-url="/passkeys/sign-in/options" data-finish-url="/passkeys/sign-in" data-return-to="\(returnTo ?? "")">
        \(PageLayout.hidden("csrf_token", csrf))
        <button type="button" id="passkey-sign-in-button" class="secondary">Sign in with a passkey</button>
        <p class="notice error" role="alert" data-passkey-error hidden></p>
        </section>
        \(script)
        """
    }

    /// The sign-up page's second way: an account with a passkey and no password (hidden until the script
    /// finds WebAuthn; the password form above works without it).
    static func signUpForm(csrf: String) -> HTML {
        """
        <section id="passkey-sign-up" data-passkey hidden>
        <h2>Or use a passkey instead of a password</h2>
        <form id="passkey-sign-up-form" method="post" action="/sign-up/passkey" data-options-url="/sign-up/passkey/options">
        \(PageLayout.hidden("csrf_token", csrf))
        <label for="passkey-email">Email</label><input id="passkey-email" name="email" type="email" autocomplete="email" required>
        <label for="passkey-display-name">Name <span class="muted">(optional)</span></label><input id="passkey-display-name" name="name" type="text" autocomplete="name">
        <button type="submit" class="secondary">Create account with a passkey</button>
        <p class="notice error" role="alert" data-passkey-error hidden></p>
        </form>
        </section>
        \(script)
        """
    }

    /// The account page's "Passkeys" section.
    static func accountSection(_ credentials: [WebAuthnCredential], csrf: HTML) -> HTML {
        let rows = credentials.map { credential -> HTML in
            let id = Base64URL.encode(credential.credentialID)
            let lastUsed = credential.lastUsedAt.map { "last used \(PageContext.format($0))" } ?? "never used"
            let kind = credential.backedUp ? "synced" : credential.backupEligible ? "can be synced" : "on this device only"
            return """
                <tr data-passkey-id="\(id)"><td><strong>\(credential.name)</strong><br>
                <span class="muted">added \(PageContext.format(credential.createdAt)) · \(lastUsed) · \(kind)</span></td>
                <td><form method="post" action="/account/passkeys/\(id)/rename">\(csrf)
                <input id="rename-\(id)" name="name" maxlength="64" required value="\(credential.name)" aria-label="New name for \(credential.name)">
                <button type="submit" class="secondary">Rename</button></form>
                <form method="post" action="/account/passkeys/\(id)/delete">\(csrf)
                <button type="submit" class="secondary" aria-label="Remove \(credential.name)">Remove</button></form></td></tr>
                """
        }
        let list: HTML = credentials.isEmpty ? #"<p class="muted" id="no-passkeys">No passkeys yet.</p>"#
            : #"<table id="passkeys">"# + rows.joined(separator: "\n") + "</table>"
        return """
            <h2>Passkeys</h2>
            \(list)
            <form id="passkey-add" data-passkey hidden method="post" action="/account/passkeys" data-options-url="/account/passkeys/options">\(csrf)
            <label for="passkey-name">Name for the new passkey</label><input id="passkey-name" name="name" maxlength="64" value="Passkey">
            <button type="submit">Add a passkey</button>
            <p class="notice error" role="alert" data-passkey-error hidden></p></form>
            \(script)
            """
    }
}
