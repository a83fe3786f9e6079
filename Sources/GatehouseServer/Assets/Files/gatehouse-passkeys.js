(() => {
  "use strict";
  const decode = (text) => {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
  };
  const encode = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const csrf = (root) => (root.querySelector('input[name="csrf_token"]') || {}).value || "";
  const describe = (error) => error && error.name === "NotAllowedError"
    ? "The passkey request was cancelled or timed out." : (error && error.message) || "The passkey could not be used.";
  const post = async (url, fields) => {
    const response = await fetch(url, { method: "POST", body: new URLSearchParams(fields), credentials: "same-origin",
                                         headers: { Accept: "application/json" } });
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(answer.error || "The passkey could not be used.");
    return answer;
  };
  const showError = (root, message) => {
    const slot = root && root.querySelector("[data-passkey-error]");
    if (slot) { slot.textContent = message; slot.hidden = false; }
  };
  const descriptors = (list) => (list || []).map((c) => ({ type: "public-key", id: decode(c.id), transports: c.transports }));

  let pendingConditional = null;
  const signIn = async (section, mediation) => {
    const options = (await post(section.dataset.optionsUrl, { csrf_token: csrf(section) })).publicKey;
    const controller = new AbortController();
    if (mediation === "conditional") pendingConditional = controller;
    const credential = await navigator.credentials.get({
      mediation, signal: controller.signal,
      publicKey: { challenge: decode(options.challenge), rpId: options.rpId, timeout: options.timeout,
                   userVerification: options.userVerification, allowCredentials: descriptors(options.allowCredentials) },
    });
    const r = credential.response;
    const answer = await post(section.dataset.finishUrl, {
      csrf_token: csrf(section), return_to: section.dataset.returnTo || "", credential_id: encode(credential.rawId),
      client_data_json: encode(r.clientDataJSON), authenticator_data: encode(r.authenticatorData),
      signature: encode(r.signature), user_handle: r.userHandle ? encode(r.userHandle) : "",
    });
    window.location.assign(answer.redirect);
  };

  const register = async (form) => {
    const options = (await post(form.dataset.optionsUrl, { csrf_token: csrf(form) })).publicKey;
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
    window.location.assign(answer.redirect);
  };

  const setup = () => {
    if (!window.PublicKeyCredential) return;
    document.querySelectorAll("[data-passkey]").forEach((element) => { element.hidden = false; });
    const section = document.getElementById("passkey-sign-in");
    if (section && !section.dataset.conditional && PublicKeyCredential.isConditionalMediationAvailable) {
      section.dataset.conditional = "started";
      PublicKeyCredential.isConditionalMediationAvailable().then((available) => {
        if (available) signIn(section, "conditional").catch((error) => {
          if (error.name !== "AbortError") showError(section, describe(error));
        });
      });
    }
  };

  document.addEventListener("click", (event) => {
    if (!event.target.closest("#passkey-sign-in-button")) return;
    event.preventDefault();
    if (pendingConditional) { pendingConditional.abort(); pendingConditional = null; }
    const section = document.getElementById("passkey-sign-in");
    signIn(section, "optional").catch((error) => showError(section, describe(error)));
  });
  document.addEventListener("submit", (event) => {
    const form = event.target.closest("#passkey-add");
    if (!form) return;
    event.preventDefault();
    register(form).catch((error) => showError(form, describe(error)));
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup); else setup();
  document.addEventListener("turbo:load", setup);
})();