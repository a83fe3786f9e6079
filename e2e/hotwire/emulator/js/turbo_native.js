// The native side's Turbo adapter, as hotwire-native-ios injects it (Source/Turbo/WebView/turbo.js,
// WKUserScript at document end, main frame only). Written for this emulator from the contract that
// file encodes: register as Turbo's (or Turbolinks') adapter once it exists, report the loaded page,
// forward every adapter callback to webkit.messageHandlers.turbo, and report pageLoadFailed when
// neither library appears within TURBO_LOAD_TIMEOUT.
(() => {
  if (window !== window.top) return;
  const TURBO_LOAD_TIMEOUT = __HOTWIRE_EMU_TURBO_LOAD_TIMEOUT__;

  const post = (name, data = {}) => {
    data.timestamp = Date.now();
    window.webkit.messageHandlers.turbo.postMessage({ name, data });
  };
  const postAfterRepaint = (name, data) => {
    if (document.hidden) return post(name, data);
    requestAnimationFrame(() => requestAnimationFrame(() => post(name, data)));
  };

  const adapter = {
    registerAdapter() {
      if (window.Turbo) { window.Turbo.registerAdapter(this); post("turboIsReady", { isReady: true }); }
      else if (window.Turbolinks) { window.Turbolinks.controller.adapter = this; post("turboIsReady", { isReady: true }); }
      else throw new Error("no Turbo to register the native adapter with");
    },
    pageLoaded() {
      const restorationIdentifier = window.Turbo ? window.Turbo.navigator.restorationIdentifier
        : (window.Turbolinks ? window.Turbolinks.controller.restorationIdentifier : "");
      postAfterRepaint("pageLoaded", { restorationIdentifier });
    },
    // Called by the native side (JavaScriptVisit.startVisit).
    visitLocationWithOptionsAndRestorationIdentifier(location, options, restorationIdentifier) {
      if (window.Turbo) {
        const samePage = window.Turbo.navigator.locationWithActionIsSamePage(new URL(location), options.action);
        window.Turbo.navigator.startVisit(location, restorationIdentifier, samePage ? { action: "replace" } : options);
      } else if (window.Turbolinks) {
        const controller = window.Turbolinks.controller;
        if (controller.startVisitToLocationWithAction) controller.startVisitToLocationWithAction(location, options.action, restorationIdentifier);
        else controller.startVisitToLocation(location, restorationIdentifier, options);
      }
      // Neither: nothing happens, and the native visit waits for a visitStarted that never comes.
    },
    cancelVisitWithIdentifier(identifier) {
      if (this.currentVisit && identifier == this.currentVisit.identifier) this.currentVisit.cancel();
    },
    clearSnapshotCache() { if (window.Turbo) window.Turbo.session.clearCache(); },
    cacheSnapshot() { if (window.Turbo) window.Turbo.session.view.cacheSnapshot(); },

    // Turbo's adapter interface.
    visitProposedToLocation(location, options) {
      if (window.Turbo && window.Turbo.navigator.locationWithActionIsSamePage(location, options.action)) {
        post("visitProposalScrollingToAnchor", { location: location.toString(), options });
        window.Turbo.navigator.view.scrollToAnchorFromLocation(location);
      } else if (window.Turbo && window.Turbo.navigator.location && window.Turbo.navigator.location.href === location.href) {
        post("visitProposalRefreshingPage", { location: location.toString(), options });
        this.visitLocationWithOptionsAndRestorationIdentifier(location, options, window.Turbo.navigator.restorationIdentifier);
      } else {
        post("visitProposed", { location: location.toString(), options });
      }
    },
    visitProposedToLocationWithAction(location, action) { this.visitProposedToLocation(location, { action }); },
    visitStarted(visit) {
      this.currentVisit = visit;
      post("visitStarted", { identifier: visit.identifier, hasCachedSnapshot: visit.hasCachedSnapshot(), isPageRefresh: visit.isPageRefresh || false });
      if (visit.identifier == this.currentVisit.identifier) {
        visit.issueRequest();
        visit.changeHistory();
        visit.loadCachedSnapshot();
      }
    },
    visitRequestStarted(visit) { post("visitRequestStarted", { identifier: visit.identifier }); },
    visitRequestCompleted(visit) {
      post("visitRequestCompleted", { identifier: visit.identifier });
      if (this.currentVisit && visit.identifier == this.currentVisit.identifier) visit.loadResponse();
    },
    visitRequestFailedWithStatusCode(visit, statusCode) {
      const location = visit.location.toString();
      post(statusCode <= 0 ? "visitRequestFailedWithNonHttpStatusCode" : "visitRequestFailed",
           { location, identifier: visit.identifier, statusCode });
    },
    visitRequestFinished(visit) { post("visitRequestFinished", { identifier: visit.identifier }); },
    visitRendered(visit) { postAfterRepaint("visitRendered", { identifier: visit.identifier }); },
    visitCompleted(visit) { post("visitCompleted", { identifier: visit.identifier, restorationIdentifier: visit.restorationIdentifier }); },
    formSubmissionStarted(submission) { post("formSubmissionStarted", { location: submission.location.toString() }); },
    formSubmissionFinished(submission) { post("formSubmissionFinished", { location: submission.location.toString() }); },
    pageInvalidated() { post("pageInvalidated"); },
    linkPrefetchingIsEnabledForLocation() { return false; },
    log(message) { post("log", { message }); },
  };

  addEventListener("error", (event) => {
    post("errorRaised", { error: `${event.message} (${event.filename}:${event.lineno}:${event.colno})` });
  }, false);

  window.turboNative = adapter;

  const setup = () => {
    document.removeEventListener("turbo:load", setup);
    document.removeEventListener("turbolinks:load", setup);
    adapter.registerAdapter();
    adapter.pageLoaded();
  };

  const atDocumentEnd = () => {
    if (window.Turbo || window.Turbolinks) return setup();
    document.addEventListener("turbo:load", setup);
    document.addEventListener("turbolinks:load", setup);
    setTimeout(() => {
      if (!window.Turbo && !window.Turbolinks) {
        post("turboIsReady", { isReady: false });
        post("pageLoadFailed");
      }
    }, TURBO_LOAD_TIMEOUT);
  };

  // WKUserScriptInjectionTime.atDocumentEnd: once the document has been parsed.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", atDocumentEnd, { once: true });
  else atDocumentEnd();
})();
