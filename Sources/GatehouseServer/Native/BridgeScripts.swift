/// The JavaScript Gatehouse serves for Hotwire Native apps. No build step: plain ES modules.
enum BridgeScripts {
    /// `/assets/gatehouse-bridge.js`: speaks the Hotwire Native bridge wire format directly. In the app
    /// (user agent names the `sign-in-with-oauth` component and a native bridge is present) it turns a
    /// "Sign in with …" form submit into a `click` message carrying `startPath` (provider, app, the
    /// S256 challenge) and `redeemPath` (with the verifier, which never leaves this web view and the app).
    /// Anywhere else it does nothing, and the form submits normally (flow F1).
    static let bridge = #"""
    // Gatehouse sign-in bridge component: "sign-in-with-oauth" (Hotwire Native wire format).
    const COMPONENT = "sign-in-with-oauth";
    const userAgent = navigator.userAgent;
    const inApp = /(Turbo|Hotwire) Native/.test(userAgent) && new RegExp("bridge-components: \\[[^\\]]*\\b" + COMPONENT + "\\b").test(userAgent);
    let counter = 0;

    function base64url(bytes) {
      let text = "";
      for (const byte of bytes) text += String.fromCharCode(byte);
      return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    }

    async function makeVerifier() {
      const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
      const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
      return { verifier, challenge: base64url(digest) };
    }

    function send(message) {
      const adapter = window.nativeBridge;
      if (adapter && typeof adapter.supportsComponent === "function" && adapter.supportsComponent(COMPONENT)) {
        adapter.receive(message);
        return true;
      }
      const handler = window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.bridge;
      if (handler) { handler.postMessage(message); return true; }
      const android = window.BridgeComponentsNative;
      if (android && typeof android.bridgeDidReceiveMessage === "function") {
        android.bridgeDidReceiveMessage(JSON.stringify(message));
        return true;
      }
      return false;
    }

    function nativeBridgeAvailable() {
      return Boolean((window.nativeBridge && window.nativeBridge.supportsComponent && window.nativeBridge.supportsComponent(COMPONENT))
        || (window.webkit && window.webkit.messageHandlers && window.webkit.messageHandlers.bridge)
        || window.BridgeComponentsNative);
    }

    export async function startNativeSignIn(form) {
      const provider = form.dataset.provider || form.getAttribute("action").split("/")[2];
      // The app names itself in its user agent ("Gatehouse-App/<client_id>"), or the page says which app it is for.
      const app = (userAgent.match(/Gatehouse-App\/([A-Za-z0-9._-]+)/) || [])[1] || document.documentElement.dataset.nativeApp || form.dataset.app;
      const { verifier, challenge } = await makeVerifier();
      sessionStorage.setItem("gatehouse.verifier", verifier);
      const returnTo = (form.querySelector('input[name="return_to"]') || {}).value || "";
      const start = new URLSearchParams({ provider, app: app || "", challenge });
      if (returnTo) start.set("return_to", returnTo);
      const redeem = new URLSearchParams({ verifier });
      if (app) redeem.set("app", app);
      return send({
        id: String(++counter),
        component: COMPONENT,
        event: "click",
        data: { startPath: "/native/start?" + start.toString(), redeemPath: "/native/redeem?" + redeem.toString(),
                provider, metadata: { url: location.href } },
      });
    }

    if (inApp) {
      document.addEventListener("submit", (event) => {
        const form = event.target;
        if (!(form instanceof HTMLFormElement)) return;
        const action = form.getAttribute("action") || "";
        if (!/^\/auth\/[a-z0-9_-]+$/.test(action) || !nativeBridgeAvailable()) return;
        event.preventDefault();
        startNativeSignIn(form).then((sent) => { if (!sent) form.submit(); });
      }, true);
    }
    """#

    /// `/assets/gatehouse-bridge-stimulus.js`: the same component for apps that already use
    /// `@hotwired/hotwire-native-bridge` (import map or bundler resolves it).
    static let stimulus = #"""
    import { BridgeComponent } from "@hotwired/hotwire-native-bridge";

    function base64url(bytes) {
      let text = "";
      for (const byte of bytes) text += String.fromCharCode(byte);
      return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
    }

    // <form action="/auth/google" data-controller="bridge--sign-in-with-oauth" data-action="submit->bridge--sign-in-with-oauth#start">
    export default class extends BridgeComponent {
      static component = "sign-in-with-oauth";

      async start(event) {
        if (!this.enabled) return;   // outside the app: the form submits normally
        event.preventDefault();
        const form = this.element;
        const provider = form.getAttribute("action").split("/")[2];
        const app = form.dataset.app || document.documentElement.dataset.nativeApp || "";
        const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
        const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
        sessionStorage.setItem("gatehouse.verifier", verifier);
        const returnTo = (form.querySelector('input[name="return_to"]') || {}).value || "";
        const start = new URLSearchParams({ provider, app, challenge: base64url(digest) });
        if (returnTo) start.set("return_to", returnTo);
        this.send("click", { startPath: "/native/start?" + start, redeemPath: "/native/redeem?" + new URLSearchParams({ verifier, app }), provider });
      }
    }
    """#

    /// `/assets/native-start.js`: submits the start page's form at once (the button stays for no-JS).
    static let autoSubmit = #"""
    const form = document.getElementById("native-start");
    if (form) form.submit();
    """#
}
