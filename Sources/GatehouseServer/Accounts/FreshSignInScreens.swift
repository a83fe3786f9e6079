import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// The "confirm it is you" part of the pages whose action must not ride on a session left open (deleting the
/// account, downloading its data): a fresh sign-in by whatever the account has (``RecentAuthentication``).
///
/// - a session that began with a provider or passkey sign-in within the window proves it as it is: the form
///   has no password field;
/// - otherwise an account with a password types it, or signs in again;
/// - an account without a password is never asked for one: it signs in again with a provider it linked or a
///   passkey, which brings the browser back to the page with a fresh session.
///
/// A posted `password` field is always a password proof: a blank password is a blank password, never
/// "signed in recently enough".
struct FreshSignIn {
    /// The form's proof fields (nil: none possible yet, sign in again first) and the ways to sign in again.
    let fields: HTML?
    let again: HTML
}

extension AccountPages {
    func freshSignIn(web: WebSession, active: ActiveSession, csrf: String, returnTo: String) async throws -> FreshSignIn {
        let t = web.texts
        let methods = RecentAuthentication(accounts: accounts, clock: clock).methods(user: active.user, session: active.session)
        let linked = Set(try await context.sessions.accountOverview(userId: active.user.id).identities.map(\.provider))
        let hasPasskey = !(try await context.passkeys.credentials(of: active.user.id)).isEmpty
        let buttons = providers.signInButtons(csrf: csrf, returnTo: returnTo, texts: t, only: linked)
            + (hasPasskey ? PasskeyScreens.signInButton(csrf: csrf, returnTo: returnTo, texts: t) : .empty)
        if methods.sessionIsRecent {
            return FreshSignIn(fields: """
                <p class="muted">\(t["delete.recent_sign_in"])</p>
                """, again: .empty)
        }
        if methods.password {
            return FreshSignIn(fields: """
                <label for="fresh_password">\(t["delete.your_password"])</label><input id="fresh_password" name="password" type="password" autocomplete="current-password" required>
                """, again: buttons.isEmpty ? .empty : "<p>\(t["fresh.or_sign_in_again"])</p>\(buttons)")
        }
        return FreshSignIn(fields: nil, again: "<p>\(t["fresh.sign_in_again"])</p>\(buttons)")
    }

    /// A page of its own whose one form needs a fresh sign-in: `fields` follow the proof fields inside the form
    /// (the submit button last), `back` is the link back to the account page. Without a possible proof yet, the
    /// form is left out and only the ways to sign in again are shown.
    func freshSignInPage(web: WebSession, active: ActiveSession, action: String, title: String, explanation: String, back: String,
                         fields extra: HTML, error: String?, status: HTTPStatus, id: String?) async throws -> Response {
        let csrf = reader.token(for: web)
        let fresh = try await freshSignIn(web: web, active: active, csrf: csrf, returnTo: action)
        let form: HTML = fresh.fields.map { fields in """
            <form method="post" action="\(action)">\(context.hidden("csrf_token", csrf))
            \(fields)
            \(extra)</form>
            """ } ?? .empty
        return context.page(title, """
            \(PageLayout.notice(error))
            <p>\(explanation)</p>
            \(form)\(fresh.again)
            <p><a href="/account">\(back)</a></p>
            """, web: web, status: status, csrfToken: csrf, id: id)
    }

    /// The proof a posted form carries: its password when it has that field (even blank), else the session itself.
    func proof(_ form: URLEncodedForm, active: ActiveSession) throws -> RecentAuthentication.Proof {
        form["password"] != nil ? .password(try field(form, "password")) : .signIn(active.session)
    }
}
