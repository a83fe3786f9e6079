"""What the journey tests need besides the emulator: the example Rails stack (ORIGIN's fixture, one
origin: the app at /, Gatehouse under /auth behind nginx) and a user playing the system browser."""
import pathlib
import sys
import urllib.parse

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "rails"))
sys.path.insert(0, str(HERE.parent))

from rails_app import RailsStack  # noqa: E402

from emulator import HotwireApp, SignInWithOAuthComponent  # noqa: E402
from emulator.auth_session import AuthenticationSessionClosed  # noqa: E402

DEMO_APP = "demo-native"            # registered by demo mode
DEMO_SCHEME = "gatehouse-demo"


class SystemBrowserUser:
    """Plays the person in ASWebAuthenticationSession: picks an account at the simulated provider
    (or cancels there), and answers Gatehouse's confirmation step (Continue, or Cancel)."""

    def __init__(self, email, name="Journey User", at_provider="allow", confirm="continue"):
        self.email = email
        self.name = name
        self.at_provider = at_provider
        self.confirm = confirm
        self.seen = []

    def __call__(self, session):
        try:
            for _ in range(6):
                if not self.step(session):
                    return
        except AuthenticationSessionClosed:
            return   # the callback was reached meanwhile

    def step(self, session):
        """One page; False when there is nothing more to do (callback reached, or stuck on an error page)."""
        if not session.wait_for_page("document.querySelector('#email') || document.querySelector('button[name=decision]')"
                                     " || document.querySelector('[role=alert]')", timeout=20):
            return False
        url = session.current_url()
        self.seen.append(url)
        if session.evaluate("!!document.querySelector('#email')"):
            if self.at_provider == "cancel":
                session.click("button[value=cancel]")
            else:
                session.evaluate("document.querySelector('#email').value = %r; document.querySelector('#name').value = %r;"
                                 % (self.email, self.name))
                session.click("button[value=allow]")
        elif session.evaluate("!!document.querySelector('button[name=decision]')"):
            session.click(f"button[name=decision][value={self.confirm}]")
        else:
            return False   # an error page in the system browser: the user is stuck there
        return session.wait_for_page(f"location.href !== {url!r}", timeout=20)


def make_hybrid_app(browser, stack, user, register_delay=0.0, start_path="/session/new", path_configuration=()):
    component = SignInWithOAuthComponent(callback_scheme=DEMO_SCHEME, act=user)
    app = HotwireApp(browser, stack.app_url + start_path, components={"sign-in-with-oauth": component},
                     path_configuration=path_configuration,
                     register_delay=register_delay, application_prefix=f"Gatehouse-App/{DEMO_APP}", stall_timeout=8)
    app.component = component
    return app


def query_of(url):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
