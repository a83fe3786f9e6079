(() => {
  "use strict";
  const decode = (text) => {
    const base64 = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)).buffer;
  };
  const encode = (buffer) => btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const run = async (section) => {
    const options = JSON.parse(section.dataset.options).publicKey;
    const credential = await navigator.credentials.get({ publicKey: {
      challenge: decode(options.challenge), rpId: options.rpId, timeout: options.timeout,
      userVerification: options.userVerification,
      allowCredentials: options.allowCredentials.map((c) => ({ type: "public-key", id: decode(c.id), transports: c.transports })),
    } });
    const r = credential.response;
    const fields = {
      credential_id: encode(credential.rawId), client_data_json: encode(r.clientDataJSON),
      authenticator_data: encode(r.authenticatorData), signature: encode(r.signature),
      user_handle: r.userHandle ? encode(r.userHandle) : "",
    };
    const form = document.createElement("form");
    form.method = "post";
    form.action = section.dataset.finishUrl;
    section.querySelectorAll('input[type="hidden"]').forEach((input) => form.appendChild(input.cloneNode()));
    for (const [name, value] of Object.entries(fields)) {
      const input = document.createElement("input");
      input.type = "hidden"; input.name = name; input.value = value;
      form.appendChild(input);
    }
    document.body.appendChild(form);
    form.submit();
  };
  const setup = () => {
    const section = document.getElementById("second-step-webauthn");
    if (section && window.PublicKeyCredential) section.hidden = false;
  };
  document.addEventListener("click", (event) => {
    if (!event.target.closest("#second-step-webauthn-button")) return;
    event.preventDefault();
    const section = document.getElementById("second-step-webauthn");
    run(section).catch((error) => {
      const slot = section.querySelector("[data-second-step-error]");
      slot.textContent = error && error.name === "NotAllowedError"
        ? "The security key request was cancelled or timed out." : "The security key could not be used.";
      slot.hidden = false;
    });
  });
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setup); else setup();
})();
