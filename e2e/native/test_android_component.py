"""Integrations/Android: what can be checked without an Android SDK. The manifest takes the scheme and App Link from
placeholders (nothing app-specific hard-coded), replies are built with org.json, native Google goes through Credential
Manager, and the hand-off logic — including the `cancelled` reply when the user closes the Custom Tab — behaves as its
Python mirror (android_handoff.py) does, whose constants and messages are read from the Kotlin source."""
import pathlib
import re
import sys
import xml.etree.ElementTree as ElementTree

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import android_handoff  # noqa: E402
from android_handoff import AndroidHandoff  # noqa: E402

ANDROID = pathlib.Path(__file__).resolve().parent.parent.parent / "Integrations" / "Android"
KOTLIN = {path.name: path.read_text() for path in (ANDROID / "src/main/java/dev/gatehouse/hotwire").glob("*.kt")}
NS = "{http://schemas.android.com/apk/res/android}"
REDEEM = "https://app.example/auth/native/redeem"


def test_the_manifest_uses_placeholders_the_library_defines():
    manifest = ElementTree.parse(ANDROID / "src/main/AndroidManifest.xml")
    data = [(d.get(NS + "scheme"), d.get(NS + "host"), d.get(NS + "path")) for d in manifest.iter("data")]
    assert data == [("${gatehouseCallbackScheme}", "auth-callback", None),
                    ("https", "${gatehouseAppLinkHost}", "${gatehouseAppLinkPath}")]
    gradle = (ANDROID / "build.gradle.kts").read_text()
    for name in ["gatehouseCallbackScheme", "gatehouseAppLinkHost", "gatehouseAppLinkPath"]:
        assert f'manifestPlaceholders["{name}"]' in gradle
        assert f'manifestPlaceholders["{name}"]' in (ANDROID / "README.md").read_text(), "the README shows the app's lines"
    text = (ANDROID / "src/main/AndroidManifest.xml").read_text()
    assert "myapp" not in text.split("-->")[-1] and "app.example" not in text.split("-->")[-1]


def test_replies_are_built_with_org_json_not_by_concatenation():
    source = "\n".join(KOTLIN.values())
    assert "import org.json.JSONObject" in KOTLIN["Gatehouse.kt"]
    assert 'replyTo("click", error.toReply())' in KOTLIN["SignInWithOAuthComponent.kt"]
    assert not re.search(r'replyTo\([^)]*"""', source) and '\\"error\\"' not in source and '{"error":' not in source
    assert "kotlinx.serialization" not in source


def test_native_google_goes_through_credential_manager_and_posts_to_native_google():
    google = KOTLIN["NativeGoogle.kt"]
    assert "CredentialManager.create(activity).getCredential" in google and "GetGoogleIdOption.Builder()" in google
    assert ".setNonce(nonce)" in google and '"$base/native/google"' in google and 'put("response", "session")' in google
    assert "GetCredentialCancellationException" in google and "SignInError.cancelled()" in google
    gradle = (ANDROID / "build.gradle.kts").read_text()
    assert "androidx.credentials:credentials:" in gradle and "identity.googleid:googleid:" in gradle


def test_the_mirror_uses_the_kotlin_constants_and_messages():
    gatehouse = KOTLIN["Gatehouse.kt"]
    assert re.search(r"CLOSED_GRACE_MS = (\d+)L", gatehouse)[1] == str(int(android_handoff.CLOSED_GRACE * 1000))
    assert re.search(r"LIFETIME_MS = 10 \* 60 \* 1000L", gatehouse) and android_handoff.LIFETIME == 600
    import sign_in_error
    for message in [sign_in_error.CANCELLED_MESSAGE, sign_in_error.ACCOUNT_EXISTS_MESSAGE, sign_in_error.NETWORK_MESSAGE]:
        assert f'"{message}"' in gatehouse, message
    for code in sign_in_error.MISCONFIGURED | sign_in_error.NETWORK:
        assert f'"{code}"' in gatehouse, code


def test_closing_the_custom_tab_replies_cancelled_after_the_grace_period():
    handoff = AndroidHandoff()
    handoff.launch("7", REDEEM, now=0)
    handoff.host_resumed(now=30)          # the user closed the tab: the app is in front, no callback
    handoff.advance(now=30.5)
    assert handoff.replies == [], "a callback may still arrive within the grace period"
    handoff.advance(now=30.8)
    assert handoff.replies == [{"error": "cancelled", "error_description": "You closed the sign-in."}]
    assert handoff.pending is None and handoff.routes == []
    handoff.advance(now=60)
    assert len(handoff.replies) == 1, "replied once"


def test_a_callback_within_the_grace_period_wins_over_the_closed_tab():
    handoff = AndroidHandoff()
    handoff.launch("8", REDEEM, now=0)
    handoff.host_resumed(now=10)
    handoff.callback_arrives("myapp://auth-callback?token=tok", now=10.2)
    handoff.advance(now=11)
    assert handoff.routes == [REDEEM + "?token=tok"] and handoff.replies == []


def test_an_error_callback_is_typed_and_a_parked_callback_survives_process_death():
    handoff = AndroidHandoff()
    handoff.launch("9", REDEEM, now=0)
    handoff.callback_arrives("myapp://auth-callback?error=access_denied&error_description=No", now=5)
    assert handoff.replies == [{"error": "cancelled", "error_description": "You closed the sign-in."}], "Cancel on Continue"
    restarted = AndroidHandoff()
    restarted.launch("10", REDEEM, now=0)
    restarted.component_alive = False     # the process was killed while the tab was in front
    restarted.callback_arrives("myapp://auth-callback?token=t2", now=20)
    restarted.host_resumed(now=21)
    assert restarted.routes == [] and restarted.parked
    restarted.component_alive = True
    restarted.host_resumed(now=22)
    assert restarted.routes == [REDEEM + "?token=t2"] and not restarted.timers


def test_a_stale_pending_hand_off_is_dropped():
    handoff = AndroidHandoff()
    handoff.launch("11", REDEEM, now=0)
    handoff.callback_arrives("myapp://auth-callback?token=late", now=601)
    assert handoff.routes == [] and handoff.replies == []
