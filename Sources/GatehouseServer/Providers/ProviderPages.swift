import Foundation
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// The provider parts of the account pages: sign-in buttons, the "Sign-in methods" list with link and
/// unlink forms, and the hooks account deletion calls. Empty when no provider is enabled.
struct ProviderPages: Sendable {
    /// (id, label) per enabled provider, in button order.
    let buttons: [(id: String, label: String)]
    /// Whether any provider is enabled (without one, no linked identity is listed).
    let enabled: Bool
    let revocations: ProviderTokenRevocations?

    static let none = ProviderPages(buttons: [], enabled: false, revocations: nil)

    func label(_ provider: String) -> String { buttons.first { $0.id == provider }?.label ?? provider }

    /// One plain POST form per provider (no JavaScript), carrying the CSRF token and `return_to`;
    /// `only`: just these providers (those an account has linked, to sign in again with).
    func signInButtons(csrf: String, returnTo: String?, texts t: Texts, only: Set<String>? = nil) -> HTML {
        let shown = only.map { only in buttons.filter { only.contains($0.id) } } ?? buttons
        guard !shown.isEmpty else { return .empty }
        let forms = shown.map { button -> HTML in
            """
            <form method="post" action="/auth/\(button.id)" class="provider"\(Self.bridgeMessages(t))><input type="hidden" name="csrf_token" value="\(csrf)">\
            \(returnTo.map { PageLayout.hidden("return_to", $0) } ?? .empty)\
            <button type="submit" class="provider-button provider-\(button.id)">\(t("providers.sign_in_with", ["provider": button.label]))</button></form>
            """
        }
        return #"<div id="providers"><p class="muted">\#(t["providers.or"])</p>"# + forms.joined(separator: "\n") + "</div>"
    }

    /// The list items of "Sign-in methods" and the link forms for providers not linked yet, from the
    /// user's linked `identities` (read with the rest of the account page); none shown without providers.
    func methods(user: User, identities linked: [ExternalIdentity], csrf: String, texts t: Texts) -> (items: HTML, linkForms: HTML) {
        let identities = enabled ? linked : []
        let count = identities.count + (user.passwordHash != nil ? 1 : 0)
        var items: HTML = user.passwordHash != nil ? "<li>\(t["field.password"])</li>" : .empty
        let token = PageLayout.hidden("csrf_token", csrf)
        for identity in identities {
            let detail: HTML = identity.email.map { " · \($0)" } ?? .empty
            // The last way in cannot be removed: the user would lock themselves out.
            let unlink: HTML = count > 1 ? """
                <form method="post" action="/account/identities/unlink" class="inline">\(token)\
                <input type="hidden" name="provider" value="\(identity.provider)"><input type="hidden" name="subject" value="\(identity.subject)">\
                <button type="submit" class="link">\(t["providers.remove"])</button></form>
                """ : .empty
            items += "<li data-provider=\"\(identity.provider)\">\(label(identity.provider))<span class=\"muted\">\(detail)</span> \(unlink)</li>"
        }
        let linked = Set(identities.map(\.provider))
        let forms = buttons.filter { !linked.contains($0.id) }.map { button -> HTML in
            """
            <form method="post" action="/auth/\(button.id)/link" class="provider"\(Self.bridgeMessages(t))>\(token)\
            <button type="submit" class="secondary">\(t("providers.link", ["provider": button.label]))</button></form>
            """
        }.joined(separator: "\n")
        return (items, forms)
    }

    /// What the app bridge's script (gatehouse-bridge.js) may have to say next to a provider form, in the page's
    /// language: it holds no words of its own. `{error}` is the code the app reported.
    static func bridgeMessages(_ t: Texts) -> HTML {
        #" data-sign-in-incomplete="\#(t["bridge.sign_in_incomplete"])" data-link-failed="\#(t["bridge.link_failed"])""#
    }

    /// Before an account is deleted: the provider tokens to revoke afterwards (its identities go with it).
    func tokensToRevoke(userId: String) async throws -> [PendingRevocation] {
        guard let revocations else { return [] }
        return try await revocations.prepare(userId: userId)
    }

    /// After the account is deleted: queue the revocations (the maintenance job runner attempts them).
    func accountDeleted(revoking pending: [PendingRevocation], userId: String, context: ClientContext) async {
        guard let revocations, !pending.isEmpty else { return }
        await revocations.enqueue(pending, userId: userId, context: context)
    }
}
