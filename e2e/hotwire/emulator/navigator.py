"""Navigator and Router (Source/Turbo/Navigator/): proposals become routing decisions.

Router handlers in HotwireConfig's default order: AppNavigation (the start location's *host* —
not origin: ports are ignored, as in the library) → a visit in the app; SafariViewController (any
other http/https host) → out of the web view; SystemNavigation (anything else) → the system.
A visit's context comes from the path configuration: `modal` visits run in the modal session's
own web view (which cold-boots the first time), `default` ones in the main session.
"""
import urllib.parse

from .webview import host_of, scheme_of


class Navigator:
    def __init__(self, app):
        self.app = app
        self.modal_presented = False

    @property
    def events(self):
        return self.app.events

    def propose(self, session, url, options):
        properties = self.app.path_configuration.properties(url)
        self.events.record("visit_proposed", session.name if session else None, url=url,
                           action=(options or {}).get("action"), context=properties.get("context", "default"))
        response = (options or {}).get("response") or {}
        if response.get("redirected"):
            self.pop(session)
        self.route(url, options, properties)

    def decide_route(self, url):
        if host_of(url) == self.app.start_host:
            return "navigate"
        if scheme_of(url) in ("http", "https"):
            return "safari"
        if host_of(self.app.start_location) != host_of(url):
            return "system"
        return "cancel"

    def route(self, url, options=None, properties=None):
        url = urllib.parse.urljoin(self.app.start_location, url)
        decision = self.decide_route(url)
        if decision == "safari":
            self.events.record("routed_to_safari", url=url)
            self.app.open_safari(url)
            return
        if decision == "system":
            self.events.record("routed_to_system", url=url)
            self.app.open_system(url)
            return
        if decision == "cancel":
            self.events.record("route_cancelled", url=url)
            return
        properties = properties if properties is not None else self.app.path_configuration.properties(url)
        options = dict(options or {"action": "advance"})
        options.setdefault("action", "advance")
        presentation = properties.get("presentation", "default")
        context = properties.get("context", "default")
        self.events.record("routed_in_app", url=url, context=context, presentation=presentation)
        if presentation in ("pop", "none") and properties.get("historical_location"):
            if presentation == "pop":
                self.pop(None)
            return
        if context == "modal":
            if not self.modal_presented:
                self.modal_presented = True
                self.events.record("modal_presented", url=url)
            self.app.modal_session.visit(url, options)
            self.app.modal_session.visitable_will_appear()
        else:
            if self.modal_presented:
                self.dismiss_modal()
            self.app.main_session.visit(url, options)
            self.app.main_session.visitable_will_appear()

    def pop(self, session):
        if self.modal_presented and (session is None or session is self.app.modal_session):
            self.dismiss_modal()

    def dismiss_modal(self):
        self.modal_presented = False
        self.events.record("modal_dismissed")

    def reload(self):
        self.active_session.reload()

    @property
    def active_session(self):
        return self.app.modal_session if self.modal_presented else self.app.main_session

    def visit_did_fail(self, session, visit, error):
        # NavigatorDelegate.visitableDidFailRequest: the default shows an error screen with "Retry".
        self.events.record("error_screen", session.name, location=visit.location, error=error)
