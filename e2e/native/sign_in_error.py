"""The app-side view of a failed sign-in, mirrored from the Swift package's `GatehouseSignInError`
(Sources/GatehouseClient/NativeSignIn/GatehouseSignInError.swift, tested in Swift by NativeSignInErrorTests), so the
emulated component reports failures to the app and the page exactly as the Swift component does.
`test_sign_in_error_mirror.py` checks that the messages and code sets here are the Swift file's."""

MISCONFIGURED = {"misconfigured", "invalid_client", "unauthorized_client", "unsupported_provider", "invalid_scope", "invalid_request"}
NETWORK = {"provider_unavailable", "provider_timeout", "temporarily_unavailable", "server_error"}
SUPPORTED_NATIVE = {"apple", "google"}
PROVIDER_NAMES = {"apple": "Apple", "google": "Google", "github": "GitHub"}

CANCELLED_MESSAGE = "You closed the sign-in."
ACCOUNT_EXISTS_MESSAGE = "An account with this email already exists. Sign in to it, then link this provider from your account."
NETWORK_MESSAGE = "Signing in is unavailable right now. Try again later."


def default_message(code):
    if code == "account_exists":
        return ACCOUNT_EXISTS_MESSAGE
    if code in NETWORK:
        return NETWORK_MESSAGE
    return f"Signing in did not complete ({code})."


class SignInError:
    """`kind` is the Swift case (`cancelled`, `accountExists`, `network`, `misconfigured`, `nativeProviderUnavailable`,
    `refused`); `code` and `message` are what the page receives in the bridge reply and what the app may show."""

    def __init__(self, kind, code, message):
        self.kind, self.code, self.message = kind, code, message

    @classmethod
    def from_code(cls, code, description=None, from_callback=False):
        message = description or default_message(code)
        if code == "cancelled" or (from_callback and code == "access_denied"):
            return cls.cancelled()
        if code == "account_exists":
            return cls("accountExists", code, message)
        if code in NETWORK:
            return cls("network", "temporarily_unavailable", message)
        if code in MISCONFIGURED:
            return cls("misconfigured", code, message)
        return cls("refused", code, message)

    @classmethod
    def cancelled(cls):
        return cls("cancelled", "cancelled", CANCELLED_MESSAGE)

    @classmethod
    def native_provider_unavailable(cls, provider):
        return cls("nativeProviderUnavailable", "unsupported_provider",
                   f"Sign in with {PROVIDER_NAMES.get(provider, provider)} isn't available in this app.")

    def reply_data(self):
        return {"error": self.code, "error_description": self.message}


def validate_native_providers(names, has_google_provider):
    """`NativeProviders.init`: the error the app sees for a provider list it cannot honour, or None."""
    unknown = sorted(set(names) - SUPPORTED_NATIVE)
    if unknown:
        return SignInError("misconfigured", "unsupported_provider",
                           f"{unknown[0]} has no native sign-in at Gatehouse (apple, google).")
    if "google" in names and not has_google_provider:
        return SignInError.native_provider_unavailable("google")
    return None
