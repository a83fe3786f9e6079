// The native side's bridge adapter, as hotwire-native-ios injects it (Source/Bridge/bridge.js,
// WKUserScript at document start, main frame only), written for this emulator from that contract:
// window.nativeBridge posts "ready"; the web library (window.HotwireNative ?? window.Strada) fires
// web-bridge:ready, and only once native has called register() does the adapter set itself on the
// web library, which until then queues what components send. Web → native: receive(message);
// native → web: replyWith(message).
(() => {
  if (window !== window.top) return;
  let resolveRegistered;
  const registered = new Promise((resolve) => { resolveRegistered = resolve; });
  const webLibrary = () => window.HotwireNative || window.Strada;
  const webBridge = () => (window.HotwireNative && window.HotwireNative.web) || (window.Strada && window.Strada.web);

  const adapter = {
    supportedComponents: [],
    register(component) {
      this.supportedComponents = this.supportedComponents.concat(Array.isArray(component) ? component : [component]);
      resolveRegistered();
      this.notifyBridgeOfSupportedComponentsUpdate();
    },
    unregister(component) {
      const index = this.supportedComponents.indexOf(component);
      if (index !== -1) {
        this.supportedComponents.splice(index, 1);
        this.notifyBridgeOfSupportedComponentsUpdate();
      }
    },
    notifyBridgeOfSupportedComponentsUpdate() {
      if (webLibrary()) webBridge().adapterDidUpdateSupportedComponents();
    },
    supportsComponent(component) { return this.supportedComponents.includes(component); },
    replyWith(message) { if (webLibrary()) webBridge().receive(message); },
    receive(message) { this.postMessage(message); },
    get platform() { return "ios"; },
    postMessage(message) { window.webkit.messageHandlers.bridge.postMessage(message); },
  };

  document.addEventListener("web-bridge:ready", async () => {
    await registered;
    webBridge().setAdapter(adapter);
  });

  window.nativeBridge = adapter;
  adapter.postMessage("ready");
})();
