"""The Android component's hand-off bookkeeping (Integrations/Android: Gatehouse.kt `savePending`, `takePending`,
`onHostResumed`, `GatehouseCallbackActivity`; SignInWithOAuthComponent.kt `handleCallback`), as a clock-driven model:
Kotlin cannot be compiled here, so its logic is kept thin and mirrored by this file, which test_android_component.py
runs. Times are seconds."""
from sign_in_error import SignInError

LIFETIME = 10 * 60      # Gatehouse.LIFETIME_MS
CLOSED_GRACE = 0.7      # Gatehouse.CLOSED_GRACE_MS


class AndroidHandoff:
    def __init__(self):
        self.pending = None          # SharedPreferences "pending": (message_id, redeem, created_at)
        self.parked = None           # Gatehouse.parkedCallback
        self.component_alive = True  # Gatehouse.currentComponent != null
        self.timers = []             # Handler.postDelayed(…, CLOSED_GRACE_MS)
        self.replies = []            # replyTo("click", …) payloads
        self.routes = []             # navigator.route(…)

    def launch(self, message_id, redeem, now):
        """onReceive: the pending hand-off is saved, then the Custom Tab opens."""
        self.pending = (message_id, redeem, now)

    def take_pending(self, now):
        pending, self.pending = self.pending, None
        return pending if pending and now - pending[2] < LIFETIME else None

    def callback_arrives(self, url, now):
        """GatehouseCallbackActivity.onCreate."""
        if self.component_alive:
            self.handle_callback(url, now)
        else:
            self.parked = url

    def handle_callback(self, url, now):
        import urllib.parse
        pending = self.take_pending(now)
        if pending is None:
            return
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(url).query))
        if "token" not in query:
            error = SignInError.from_code(query.get("error", "invalid_callback"), query.get("error_description"), from_callback=True)
            self.replies.append(error.reply_data())
            return
        self.routes.append(pending[1] + ("&" if "?" in pending[1] else "?") + urllib.parse.urlencode({"token": query["token"]}))

    def host_resumed(self, now):
        """Gatehouse.onHostResumed, from the main activity's onResume."""
        if self.parked is not None:
            if not self.component_alive:
                return
            callback, self.parked = self.parked, None
            self.handle_callback(callback, now)
            return
        if self.pending is None:
            return
        self.timers.append(now + CLOSED_GRACE)

    def advance(self, now):
        """Runs the posted checks whose time has come: still pending and no callback means the tab was closed."""
        due, self.timers = [t for t in self.timers if t <= now], [t for t in self.timers if t > now]
        for _ in due:
            if self.parked is not None or self.pending is None or not self.component_alive:
                continue
            if self.take_pending(now) is None:
                continue
            self.replies.append(SignInError.cancelled().reply_data())
