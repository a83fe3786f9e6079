(() => {
  "use strict";
  const decode = (text) => {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
  };
  const encode = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  // Gatehouse's own paths under the prefix it is served at ("/" or "/auth/"): data attributes and JSON
  // redirects are not rewritten by the server the way href/action/src are.
  const BASE = document.currentScript ? new URL("..", document.currentScript.src).pathname : "/";
  const url = (path) => (path && path.startsWith("/") ? BASE + path.slice(1) : path);
  // In a Hotwire Native app that registers the passkey bridge component, the platform runs the ceremony
  // (docs/integrations/hotwire-native.md): the web view has no autofill, and may have no WebAuthn at all.
  const NATIVE_COMPONENT = "passkey-sign-in";
  const nativeBridge = () => (window.GatehouseBridge && window.GatehouseBridge.inAppFor
    && window.GatehouseBridge.inAppFor(NATIVE_COMPONENT) ? window.GatehouseBridge : null);
  const csrf = (root) => (root.querySelector('input[name="csrf_token"]') || {}).value || "";
  // The words come from the page (data-cancelled, data-failed on each passkey element), in the page's language;
  // a refusal Gatehouse answered with says why in its own words.
  const describe = (root, error) => (error && error.name === "NotAllowedError" ? root.dataset.cancelled
    : (error && error.fromGatehouse && error.message) || root.dataset.failed);
  const post = async (url, fields) => {
    const response = await fetch(url, { method: "POST", body: new URLSearchParams(fields), credentials: "same-origin",
                                         headers: { Accept: "application/json" } });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw Object.assign(new Error(answer.error || ""), { fromGatehouse: true });
    return answer;
  };
  const showError = (root, message) => {
    const slot = root && root.querySelector("[data-passkey-error]");
    if (slot) { slot.textContent = message; slot.hidden = false; }
  };
  const fail = (root) => (error) => showError(root, describe(root, error));
  const descriptors = (list) => (list || []).map((c) => ({ type: "public-key", id: decode(c.id), transports: c.transports }));

  let pendingConditional = null;
  const signIn = async (section, mediation) => {
    const options = (await post(url(section.dataset.optionsUrl), { csrf_token: csrf(section) })).publicKey;
    const controller = new AbortController();
    if (mediation === "conditional") pendingConditional = controller;
    const credential = await navigator.credentials.get({
      mediation, signal: controller.signal,
      publicKey: { challenge: decode(options.challenge), rpId: options.rpId, timeout: options.timeout,
                   userVerification: options.userVerification, allowCredentials: descriptors(options.allowCredentials) },
    });
    const r = credential.response;
    const answer = await post(url(section.dataset.finishUrl), {
      csrf_token: csrf(section), return_to: section.dataset.returnTo || "", credential_id: encode(credential.rawId),
      client_data_json: encode(r.clientDataJSON), authenticator_data: encode(r.authenticatorData),
      signature: encode(r.signature), user_handle: r.userHandle ? encode(r.userHandle) : "",
    });
    window.location.assign(url(answer.redirect));
  };

  const register = async (form) => {
    const options = (await post(url(form.dataset.optionsUrl), { csrf_token: csrf(form) })).publicKey;
    const credential = await navigator.credentials.create({ publicKey: {
      challenge: decode(options.challenge), rp: options.rp, timeout: options.timeout, attestation: options.attestation,
      user: { id: decode(options.user.id), name: options.user.name, displayName: options.user.displayName },
      pubKeyCredParams: options.pubKeyCredParams, authenticatorSelection: options.authenticatorSelection,
      excludeCredentials: descriptors(options.excludeCredentials),
    } });
    const r = credential.response;
    const answer = await post(form.action, {
      csrf_token: csrf(form), name: form.querySelector('[name="name"]').value, credential_id: encode(credential.rawId),
      client_data_json: encode(r.clientDataJSON), attestation_object: encode(r.attestationObject),
      transports: (r.getTransports ? r.getTransports() : []).join(" "),
    });
    window.location.assign(url(answer.redirect));
  };

  // Sign-up with a passkey: the address and name go with both steps (the challenge is bound to the address).
  const signUp = async (form) => {
    const fields = { csrf_token: csrf(form), email: form.querySelector('[name="email"]').value,
                     name: form.querySelector('[name="name"]').value };
    const options = (await post(url(form.dataset.optionsUrl), fields)).publicKey;
    const credential = await navigator.credentials.create({ publicKey: {
      challenge: decode(options.challenge), rp: options.rp, timeout: options.timeout, attestation: options.attestation,
      user: { id: decode(options.user.id), name: options.user.name, displayName: options.user.displayName },
      pubKeyCredParams: options.pubKeyCredParams, authenticatorSelection: options.authenticatorSelection,
    } });
    const r = credential.response;
    const answer = await post(form.action, { ...fields, credential_id: encode(credential.rawId),
      client_data_json: encode(r.clientDataJSON), attestation_object: encode(r.attestationObject),
      transports: (r.getTransports ? r.getTransports() : []).join(" ") });
    window.location.assign(url(answer.redirect));
  };

  // A security key or passkey answering the password's second step: the prompt carries the options (bound to the
  // held sign-in), and the assertion is posted as a form beside the code form, so the answer is a page.
  const secondStep = async (section) => {
    const options = JSON.parse(section.dataset.options).publicKey;
    const credential = await navigator.credentials.get({ publicKey: {
      challenge: decode(options.challenge), rpId: options.rpId, timeout: options.timeout,
      userVerification: options.userVerification, allowCredentials: descriptors(options.allowCredentials),
    } });
    const r = credential.response;
    const form = document.createElement("form");
    form.method = "post";
    form.action = url(section.dataset.finishUrl);
    section.querySelectorAll('input[type="hidden"]').forEach((input) => form.appendChild(input.cloneNode()));
    const fields = { credential_id: encode(credential.rawId), client_data_json: encode(r.clientDataJSON),
                     authenticator_data: encode(r.authenticatorData), signature: encode(r.signature),
                     user_handle: r.userHandle ? encode(r.userHandle) : "" };
    for (const [name, value] of Object.entries(fields)) {
      const input = document.createElement("input");
      input.type = "hidden"; input.name = name; input.value = value;
      form.appendChild(input);
    }
    document.body.appendChild(form);
    form.submit();
  };

  // The native ceremony: the app posts the assertion to /native/passkey (response=session), copies the session
  // cookie into the web view and loads continuePath — the pending authorize — exactly as native Apple sign-in does.
  const nativeSignIn = (bridge, section) => {
    const returnTo = section.dataset.returnTo || "";
    const data = { optionsPath: bridge.base + "native/passkey/options", finishPath: bridge.base + "native/passkey",
                   continuePath: returnTo ? url(returnTo) : bridge.base + "account", metadata: { url: location.href } };
    bridge.send({ component: NATIVE_COMPONENT, event: "click", data, callback: (reply) => {
      const error = reply && reply.data && reply.data.error;
      if (error && error !== "cancelled") showError(section, reply.data.error_description || section.dataset.failed);
    } });
  };

  const setup = () => {
    const bridge = nativeBridge();
    const signInSection = document.getElementById("passkey-sign-in");
    if (bridge && signInSection) signInSection.hidden = false;
    if (!window.PublicKeyCredential) return;
    document.querySelectorAll("[data-passkey]").forEach((element) => { element.hidden = false; });
    const section = document.getElementById("passkey-sign-in");
    if (!bridge && section && !section.dataset.conditional && PublicKeyCredential.isConditionalMediationAvailable) {
      section.dataset.conditional = "started";
      PublicKeyCredential.isConditionalMediationAvailable().then((available) => {
        if (available) signIn(section, "conditional").catch((error) => {
          if (error.name !== "AbortError") showError(section, describe(section, error));
        });
      });
    }
  };

  document.addEventListener("click", (event) => {
    if (event.target.closest("#second-step-webauthn-button")) {
      event.preventDefault();
      const section = document.getElementById("second-step-webauthn");
      secondStep(section).catch(fail(section));
      return;
    }
    if (!event.target.closest("#passkey-sign-in-button")) return;
    event.preventDefault();
    const section = document.getElementById("passkey-sign-in");
    const bridge = nativeBridge();
    if (bridge) return nativeSignIn(bridge, section);
    if (pendingConditional) { pendingConditional.abort(); pendingConditional = null; }
    signIn(section, "optional").catch(fail(section));
  });
  document.addEventListener("submit", (event) => {
    const joining = event.target.closest("#passkey-sign-up-form");
    if (joining) {
      event.preventDefault();
      signUp(joining).catch(fail(joining));
      return;
    }
    const form = event.target.closest("#passkey-add");
    if (!form) return;
    event.preventDefault();
    register(form).catch(fail(form));
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup); else setup();
  document.addEventListener("turbo:load", setup);
})();