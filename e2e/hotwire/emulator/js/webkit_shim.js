// The web view's script-message handlers (WKScriptMessageHandler), main frame only. Each
// postMessage reaches the emulator through a DevTools binding; the body is serialised as JSON,
// the way WebKit serialises a script message body into plain objects.
(() => {
  if (window !== window.top) return;
  const handler = (binding) => ({
    postMessage(body) {
      window[binding](JSON.stringify({ body: body, href: location.href }));
    },
  });
  Object.defineProperty(window, "webkit", {
    value: Object.freeze({ messageHandlers: Object.freeze({ turbo: handler("__hotwireEmuTurbo"), bridge: handler("__hotwireEmuBridge") }) }),
    configurable: false, writable: false,
  });
})();
