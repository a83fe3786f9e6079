// Gatehouse sign-in bridge component "sign-in-with-oauth" (Hotwire Native wire format). A classic script in
// the head, run before the body is parsed: no tap can reach a provider form before the handler is there.
(() => {
const COMPONENT = "sign-in-with-oauth";
const STORAGE_KEY = "gatehouse.handoff";
const BASE = new URL("..", document.currentScript.src).pathname;   // "/" or "/auth/" (one-origin prefix)
const userAgent = navigator.userAgent;
// Whether the app's native side registers `component` (its user agent lists it, as Hotwire Native's does).
const inAppFor = (component) => /(Turbo|Hotwire) Native/.test(userAgent)
  && new RegExp("bridge-components: \\[[^\\]]*\\b" + component + "\\b").test(userAgent);
const inApp = inAppFor(COMPONENT);

// A minimal web bridge, used only when the page has no Hotwire Native bridge library.
class QueueingWebBridge {
  constructor() { this.adapter = null; this.pending = []; this.callbacks = new Map(); this.lastId = 0; }
  setAdapter(adapter) {
    this.adapter = adapter;
    if (adapter && adapter.platform) document.documentElement.dataset.bridgePlatform = adapter.platform;
    this.flush();
  }
  adapterDidUpdateSupportedComponents() { this.flush(); }
  supportsComponent(component) { return Boolean(this.adapter && this.adapter.supportsComponent(component)); }
  send({ component, event, data, callback }) {
    const id = String(++this.lastId);
    if (callback) this.callbacks.set(id, callback);
    this.pending.push({ id, component, event, data });
    this.flush();
    return id;
  }
  flush() {
    if (!this.adapter) return;
    const waiting = [];
    for (const message of this.pending) {
      if (this.adapter.supportsComponent(message.component)) this.adapter.receive(message); else waiting.push(message);
    }
    this.pending = waiting;
  }
  receive(message) {
    const callback = this.callbacks.get(message.id);
    if (callback) callback(message);
  }
}

function webBridge() {
  if (!window.HotwireNative && !window.Strada) {
    window.HotwireNative = { web: new QueueingWebBridge() };
    document.dispatchEvent(new Event("web-bridge:ready"));
  }
  return (window.HotwireNative || window.Strada).web;
}

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

function appID(form) {
  return (userAgent.match(/Gatehouse-App\/([A-Za-z0-9._-]+)/) || [])[1] || document.documentElement.dataset.nativeApp || form.dataset.app || "";
}

function showError(form, text) {
  let notice = form.parentElement.querySelector(".notice.native-error");
  if (!notice) {
    notice = document.createElement("p");
    notice.className = "notice error native-error";
    notice.setAttribute("role", "alert");
    form.parentElement.insertBefore(notice, form);
  }
  notice.textContent = text;
}

// "/auth/google" → {provider: "google", link: false}; "/auth/google/link" → link; anything else → null.
function providerAction(form) {
  let path;
  try { path = new URL(form.getAttribute("action") || "", location.href).pathname; } catch { return null; }
  if (!path.startsWith(BASE + "auth/")) return null;
  const match = path.slice(BASE.length + 5).match(/^([a-z0-9_-]+)(\/link)?$/);
  return match ? { provider: match[1], link: Boolean(match[2]) } : null;
}

async function linkTicket(form, app, challenge) {
  const body = new URLSearchParams({ csrf_token: (form.querySelector('input[name="csrf_token"]') || {}).value || "", app, challenge });
  const response = await fetch(BASE + "native/link-ticket", { method: "POST", body, credentials: "same-origin", referrerPolicy: "same-origin",
                                                              headers: { Accept: "application/json" } });
  const json = await response.json().catch(() => ({}));
  if (!response.ok || !json.ticket) throw new Error(json.error_description || form.dataset.linkFailed || "");
  return json.ticket;
}

async function startNativeSignIn(form) {
  const action = providerAction(form);
  if (!action) return false;
  const app = appID(form);
  const { verifier, challenge } = await makeVerifier();
  const start = new URLSearchParams({ provider: action.provider, app, challenge });
  const returnTo = (form.querySelector('input[name="return_to"]') || {}).value || "";
  if (returnTo) start.set("return_to", returnTo);
  if (action.link) start.set("link", await linkTicket(form, app, challenge));
  localStorage.setItem(STORAGE_KEY, JSON.stringify({ verifier, challenge, app, created: Date.now() }));
  const data = { startPath: BASE + "native/start?" + start.toString(), redeemPath: BASE + "native/redeem",
                 provider: action.provider, metadata: { url: location.href } };
  // Where the web view goes once signed in some other way (native Sign in with Apple): the pending
  // authorize, as a public path.
  if (returnTo) data.continuePath = BASE + returnTo.slice(1);
  webBridge().send({ component: COMPONENT, event: "click", data, callback: (reply) => {
    const error = reply && reply.data && reply.data.error;
    // The words come from the page (its language); the app's own description wins when it sends one.
    if (error && error !== "cancelled") {
      showError(form, reply.data.error_description || (form.dataset.signInIncomplete || "{error}").replace("{error}", error));
    }
  } });
  return true;
}

// The redeem page (reached from the app after the system browser): post the verifier this origin holds.
function finishRedeem() {
  const form = document.querySelector("form[data-gatehouse-redeem]");
  if (!form || form.dataset.submitted) return;
  form.dataset.submitted = "1";
  let pending = null;
  try { pending = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null"); } catch { pending = null; }
  if (!pending || !pending.verifier || Date.now() - pending.created > 15 * 60 * 1000) {
    const message = document.getElementById("redeem-unbound");
    if (message) message.hidden = false;
    return;
  }
  localStorage.removeItem(STORAGE_KEY);
  form.querySelector('input[name="verifier"]').value = pending.verifier;
  // Gatehouse pages answer with Referrer-Policy: no-referrer, under which a form POST says "Origin: null";
  // the redeem is refused without this origin, so this document switches to same-origin first.
  const policy = document.createElement("meta");
  policy.name = "referrer";
  policy.content = "same-origin";
  document.head.appendChild(policy);
  form.submit();
}

// The product asked for one provider (`/oauth/authorize?…&provider=google`, its "Sign in with Google"
// button; the sign-in page then has `?provider=google`): in the app that provider starts at once, through
// the bridge — once per pending request, so a cancel leaves the user on this page with every choice.
function autostart() {
  const hinted = new URLSearchParams(location.search).get("provider");
  if (!hinted) return;
  for (const form of document.querySelectorAll("form")) {
    const action = providerAction(form);
    const returnTo = (form.querySelector('input[name="return_to"]') || {}).value || "";
    if (!action || action.link || !returnTo.startsWith("/oauth/authorize?")) continue;
    const key = "gatehouse.autostart:" + returnTo;
    if (hinted !== action.provider || sessionStorage.getItem(key)) continue;
    sessionStorage.setItem(key, "1");
    startNativeSignIn(form).catch((error) => showError(form, error.message));
    return;
  }
}

if (inApp) {
  webBridge();
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", autostart); else autostart();
  document.addEventListener("turbo:load", autostart);
  document.addEventListener("submit", (event) => {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !providerAction(form)) return;
    event.preventDefault();
    startNativeSignIn(form).catch((error) => showError(form, error.message));
  }, true);
}
// The passkey component (gatehouse-passkeys.js sends its message) needs the web bridge from the start too.
if (!inApp && inAppFor("passkey-sign-in")) webBridge();
document.addEventListener("turbo:load", finishRedeem);
if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", finishRedeem); else finishRedeem();
window.GatehouseBridge = { startNativeSignIn, inAppFor, base: BASE, send: (message) => webBridge().send(message) };
})();