"""The emulated component's error mirror (sign_in_error.py) says what the Swift package says: the same messages and
the same code sets, read from the Swift source."""
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import sign_in_error  # noqa: E402

SOURCES = pathlib.Path(__file__).resolve().parent.parent.parent / "Sources" / "GatehouseClient" / "NativeSignIn"
SWIFT = (SOURCES / "GatehouseSignInError.swift").read_text()


def swift_set(name):
    return set(re.findall(r'"([a-z_]+)"', re.search(rf"static let {name}: Set<String> = \[(.*?)\]", SWIFT, re.S)[1]))


def test_code_sets_are_the_swift_ones():
    assert swift_set("misconfiguredCodes") == sign_in_error.MISCONFIGURED
    assert swift_set("networkCodes") == sign_in_error.NETWORK
    google = (SOURCES / "NativeGoogleSignIn.swift").read_text()
    supported = re.search(r"static let supported: Set<String> = \[(.*?)\]", google)[1]
    assert set(re.findall(r'"([a-z]+)"', supported)) == sign_in_error.SUPPORTED_NATIVE


def test_messages_are_the_swift_ones():
    for message in [sign_in_error.CANCELLED_MESSAGE, sign_in_error.ACCOUNT_EXISTS_MESSAGE, sign_in_error.NETWORK_MESSAGE]:
        assert f'"{message}"' in SWIFT, message
    assert '"Sign in with \\(Self.providerName(provider)) isn\'t available in this app."' in SWIFT
    assert sign_in_error.SignInError.native_provider_unavailable("google").message == "Sign in with Google isn't available in this app."
    assert '"Signing in did not complete (\\(code))."' in SWIFT
    assert sign_in_error.default_message("expired_flow") == "Signing in did not complete (expired_flow)."


def test_sorting_matches_the_swift_tests_expectations():
    # The same cases Tests/GatehouseClientTests/NativeSignInErrorTests.swift checks in Swift.
    assert sign_in_error.SignInError.from_code("access_denied", "no", from_callback=True).kind == "cancelled"
    assert sign_in_error.SignInError.from_code("access_denied", "no").kind == "refused"
    assert sign_in_error.SignInError.from_code("provider_timeout").message == sign_in_error.NETWORK_MESSAGE
    assert sign_in_error.SignInError.from_code("invalid_client", "x").kind == "misconfigured"
    assert sign_in_error.validate_native_providers({"apple", "google"}, False).kind == "nativeProviderUnavailable"
    assert sign_in_error.validate_native_providers({"github"}, True).code == "unsupported_provider"
    assert sign_in_error.validate_native_providers({"apple", "google"}, True) is None
