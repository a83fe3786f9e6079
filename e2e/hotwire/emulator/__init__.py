"""A Hotwire Native iOS emulator on headless Chromium (DevTools protocol). See e2e/hotwire/README.md."""
from .app import HotwireApp, SignInWithOAuthComponent, hotwire_user_agent, TURBO_LOAD_TIMEOUT_MS
from .auth_session import AuthenticationCancelled
from .cdp import Browser

__all__ = ["Browser", "HotwireApp", "SignInWithOAuthComponent", "hotwire_user_agent", "TURBO_LOAD_TIMEOUT_MS",
           "AuthenticationCancelled"]
