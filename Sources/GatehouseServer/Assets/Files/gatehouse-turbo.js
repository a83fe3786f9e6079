// Gatehouse's Turbo adapter surface for Hotwire Native (no third-party code).
if (!window.Turbo) {
  const uuid = () => crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2);
  let adapter = null;
  let currentVisit = null;
  const dispatch = (name) => document.dispatchEvent(new Event(name, { bubbles: true }));
  const isGatehousePage = (doc) => Boolean(doc.querySelector('meta[name="gatehouse-page"]'));

  class Visit {
    constructor(location, restorationIdentifier, options) {
      this.identifier = uuid();
      this.location = new URL(location, window.location.href);
      this.restorationIdentifier = restorationIdentifier || uuid();
      this.action = (options && options.action) || "advance";
      this.isPageRefresh = false;
      this.state = "started";
      this.response = null;
      this.controller = new AbortController();
    }
    hasCachedSnapshot() { return false; }
    loadCachedSnapshot() {}
    changeHistory() {
      const state = { turbo: { restorationIdentifier: this.restorationIdentifier } };
      if (this.action === "replace") history.replaceState(state, "", this.location.href);
      else history.pushState(state, "", this.location.href);
      navigator.restorationIdentifier = this.restorationIdentifier;
    }
    async issueRequest() {
      if (adapter) adapter.visitRequestStarted(this);
      try {
        const response = await fetch(this.location.href, { credentials: "same-origin", redirect: "follow", signal: this.controller.signal,
                                                           headers: { Accept: "text/html, application/xhtml+xml" } });
        if (this.state === "canceled") return;
        const html = await response.text();
        if (!response.ok) {
          if (adapter) adapter.visitRequestFailedWithStatusCode(this, response.status);
        } else {
          this.response = { html, url: response.url || this.location.href };
          if (adapter) adapter.visitRequestCompleted(this);
        }
      } catch (error) {
        if (this.state !== "canceled" && adapter) adapter.visitRequestFailedWithStatusCode(this, 0);
      }
      if (this.state !== "canceled" && adapter) adapter.visitRequestFinished(this);
    }
    loadResponse() {
      if (!this.response) return;
      const doc = new DOMParser().parseFromString(this.response.html, "text/html");
      const state = { turbo: { restorationIdentifier: this.restorationIdentifier } };
      const finalURL = this.response.url;
      if (!isGatehousePage(doc) || new URL(finalURL).origin !== window.location.origin) {
        // Not ours to imitate (the product's page, with its own Turbo): a redirect there is proposed to
        // the app as a visit of its own; a visit straight to it makes the app load it for real (as Turbo
        // does when tracked assets change). The second cannot loop: that visit is not redirected.
        this.state = "completed";
        if (adapter && finalURL !== this.location.href) adapter.visitProposedToLocation(new URL(finalURL), { action: "replace" });
        else if (adapter) adapter.pageInvalidated();
        else window.location.replace(finalURL);
        return;
      }
      if (finalURL !== window.location.href) history.replaceState(state, "", finalURL);
      document.title = doc.title;
      document.body.replaceWith(document.adoptNode(doc.body));
      this.state = "completed";
      dispatch("turbo:load");
      if (adapter) { adapter.visitRendered(this); adapter.visitCompleted(this); }
    }
    cancel() { this.state = "canceled"; this.controller.abort(); }
  }

  const navigator = {
    restorationIdentifier: uuid(),
    get location() { return new URL(window.location.href); },
    locationWithActionIsSamePage(location, action) {
      const url = new URL(location, window.location.href);
      return action !== "replace" && url.hash !== "" && url.origin === window.location.origin
        && url.pathname === window.location.pathname && url.search === window.location.search;
    },
    startVisit(location, restorationIdentifier, options) {
      if (currentVisit && currentVisit.state === "started") currentVisit.cancel();
      currentVisit = new Visit(location, restorationIdentifier, options);
      if (adapter) adapter.visitStarted(currentVisit);
      else { currentVisit.changeHistory(); currentVisit.issueRequest().then(() => currentVisit.loadResponse()); }
    },
    view: {
      scrollToAnchorFromLocation(location) {
        const id = decodeURIComponent(new URL(location, window.location.href).hash.slice(1));
        const target = id && document.getElementById(id);
        if (target) target.scrollIntoView();
      },
    },
  };

  window.Turbo = {
    navigator,
    session: { clearCache() {}, view: { cacheSnapshot() {} } },
    registerAdapter(value) { adapter = value; },
    visit(location, options) {
      const url = new URL(location, window.location.href);
      if (adapter) adapter.visitProposedToLocation(url, Object.assign({ action: "advance" }, options || {}));
      else window.location.assign(url.href);
    },
  };

  // Same-origin link taps are proposed to the app (as Turbo Drive does); elsewhere links just work.
  document.addEventListener("click", (event) => {
    if (!adapter || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target.closest && event.target.closest("a[href]");
    if (!link || link.target || link.hasAttribute("download") || link.closest('[data-turbo="false"]')) return;
    const url = new URL(link.href, window.location.href);
    if (url.origin !== window.location.origin) return;
    event.preventDefault();
    window.Turbo.visit(url);
  });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => dispatch("turbo:load"));
  else dispatch("turbo:load");
}