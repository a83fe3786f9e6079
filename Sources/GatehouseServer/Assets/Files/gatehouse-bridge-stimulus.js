import { BridgeComponent } from "@hotwired/hotwire-native-bridge";

function base64url(bytes) {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

// <form action="/auth/auth/google" data-controller="bridge--sign-in-with-oauth" data-action="submit->bridge--sign-in-with-oauth#start">
export default class extends BridgeComponent {
  static component = "sign-in-with-oauth";

  async start(event) {
    if (!this.enabled) return;   // outside the app: the form submits normally
    event.preventDefault();
    const form = this.element;
    const base = (document.querySelector('meta[name="gatehouse-base"]') || {}).content || "/";
    const path = new URL(form.getAttribute("action"), location.href).pathname.slice(base.length);
    const provider = (path.match(/^auth\/([a-z0-9_-]+)/) || [])[1];
    // The app names itself in its user agent ("Gatehouse-App/<client_id>"), else the page says which app.
    const app = (navigator.userAgent.match(/Gatehouse-App\/([A-Za-z0-9._-]+)/) || [])[1] || form.dataset.app
      || document.documentElement.dataset.nativeApp || "";
    const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
    const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
    localStorage.setItem("gatehouse.handoff", JSON.stringify({ verifier, challenge, app, created: Date.now() }));
    const start = new URLSearchParams({ provider, app, challenge });
    const returnTo = (form.querySelector('input[name="return_to"]') || {}).value || "";
    if (returnTo) start.set("return_to", returnTo);
    const data = { startPath: base + "native/start?" + start, redeemPath: base + "native/redeem", provider };
    if (returnTo) data.continuePath = returnTo;
    this.send("click", data, (reply) => {
      const error = reply.data && reply.data.error;
      if (error && error !== "cancelled") form.dataset.error = reply.data.error_description || error;
    });
  }
}