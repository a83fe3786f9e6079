import GatehouseHTTP

/// The JavaScript Gatehouse serves, each script a file of `Assets/Files` embedded by the EmbedAssets plugin.
/// No build step, no third-party code: plain scripts written for the wire formats they speak
/// (docs/integrations/hotwire-native.md, docs/webauthn.md).
enum ScriptAssets {
    /// `/assets/gatehouse-bridge.js`: the `sign-in-with-oauth` component, web side.
    ///
    /// - It is the page's web bridge when the page has none (`window.HotwireNative.web`): it announces
    ///   `web-bridge:ready`, so the native adapter calls `setAdapter` once its components are registered;
    ///   until then messages wait in a queue (a tap before `register()` is delivered after it, never lost
    ///   and never posted to an adapter that does not know the component). On a page that already has the
    ///   real `@hotwired/hotwire-native-bridge`, that library's `web` is used instead.
    /// - In the app (user agent names the component, `Gatehouse-App/<client_id>` names the app), a
    ///   "Sign in with …" or "Link …" submit becomes a `click` message with `startPath` (provider, app, the
    ///   S256 challenge, the pending `return_to`), `redeemPath` (no secret in it) and `provider`. The
    ///   verifier stays in this origin's storage; the redeem page posts it (a POST with CSRF token and
    ///   Origin), so a redeem link minted for someone else's account does nothing in this web view.
    /// - Replies from native (`data.error`, `data.error_description`) are shown next to the form.
    /// - Paths are relative to where this script is served, so a path prefix (one-origin) just works.
    static let bridge = file("gatehouse-bridge.js")

    /// `/assets/gatehouse-bridge-stimulus.js`: the same component for product pages that already use
    /// `@hotwired/hotwire-native-bridge` (import map or bundler resolves it). Gatehouse's base path comes
    /// from `<meta name="gatehouse-base" content="/auth/">` (default `/`).
    static let stimulus = file("gatehouse-bridge-stimulus.js")

    /// `/assets/gatehouse-turbo.js`: the part of Turbo Drive that Hotwire Native's injected `turbo.js` drives,
    /// written for Gatehouse's own pages (which must load Turbo to appear in the app's web view).
    ///
    /// It provides `window.Turbo` with `registerAdapter`, `navigator` (`restorationIdentifier`, `location`,
    /// `startVisit`, `locationWithActionIsSamePage`, `view.scrollToAnchorFromLocation`) and `session`
    /// (`clearCache`, `view.cacheSnapshot`), dispatches `turbo:load`, proposes same-origin link taps to the
    /// adapter, and runs visits with `fetch` calling the adapter back in Turbo's order. A visit whose answer
    /// is another Gatehouse page is rendered in place; any other page (the product's, which loads its own
    /// Turbo) is not imitated: the address changes to it and the adapter is told the page is invalidated,
    /// so the app reloads it for real. Forms are never intercepted — a Gatehouse form is a plain
    /// submission, which Hotwire Native lets through, so redirects to providers or custom schemes never
    /// meet Turbo's `fetch` (the CORS trap).
    static let turboAdapter = file("gatehouse-turbo.js")

    /// `/assets/native-start.js`: submits the start page's form at once (the button stays for no-JS).
    static let nativeStart = file("native-start.js")

    /// `/assets/gatehouse-passkeys.js`: the page side of the WebAuthn ceremonies. The sign-in page's
    /// "Sign in with a passkey" button and conditional mediation (the browser offers passkeys in the email
    /// field's autofill), the account page's "Add a passkey" form, and a security key or passkey answering
    /// the sign-in's second step (the prompt's own options, the answer posted as a form beside the code
    /// form). Options come from and answers go to Gatehouse as forms carrying the page's CSRF token; without
    /// WebAuthn the passkey parts stay hidden. Its words come from the page's data attributes.
    static let passkeys = file("gatehouse-passkeys.js")

    /// Serves every script at its path (outside the no-store group: the scripts change only with a release).
    static func register(into router: inout Router) {
        for (path, bytes) in [("/assets/gatehouse-bridge.js", bridge), ("/assets/gatehouse-bridge-stimulus.js", stimulus),
                              ("/assets/gatehouse-turbo.js", turboAdapter), ("/assets/native-start.js", nativeStart),
                              ("/assets/gatehouse-passkeys.js", passkeys)] {
            register(path, bytes, into: &router)
        }
    }

    /// Serves `bytes` as JavaScript at `path`, cacheable for five minutes (the scripts change only with a release).
    private static func register(_ path: String, _ bytes: [UInt8], into router: inout Router) {
        router.get(path) { _ in
            var response = Response(status: .ok, headers: ["Content-Type": "text/javascript; charset=utf-8"], body: bytes)
            response.headers.set("Cache-Control", "public, max-age=300")
            return response
        }
    }

    private static func file(_ name: String) -> [UInt8] {
        // The plugin embeds every file of the folder; a missing one is a broken build, not a request's fault.
        guard let text = EmbeddedAssets.files[name] else { preconditionFailure("Assets/Files/\(name) is not embedded") }
        return Array(text.utf8)
    }
}
