package dev.gatehouse.hotwire

import android.content.Context
import android.net.Uri
import androidx.browser.customtabs.CustomTabsIntent
import androidx.lifecycle.lifecycleScope
import dev.hotwire.core.bridge.BridgeComponent
import dev.hotwire.core.bridge.BridgeDelegate
import dev.hotwire.core.bridge.Message
import dev.hotwire.navigation.destinations.HotwireDestination
import kotlinx.coroutines.launch
import org.json.JSONObject

/**
 * Where this app's Gatehouse lives and how hand-offs come back — pinned in the app, never taken from the page.
 * Set once in Application.onCreate, with Hotwire.config.applicationUserAgentPrefix = configuration.userAgentMarker.
 */
data class GatehouseConfiguration(
    /** Gatehouse's public URL, e.g. https://app.example/auth (one origin). */
    val gatehouseUrl: Uri,
    /** The app's client id at Gatehouse. */
    val appId: String,
    /** The registered private-use scheme ("myapp" for myapp://auth-callback); also the manifest placeholder. */
    val callbackScheme: String,
    /** A verified App Link registered as a callback_url: no "Continue to …?" page is needed with it. */
    val httpsCallback: Uri? = null,
    /** Providers signed in natively instead of in a Custom Tab: "google" (Credential Manager). */
    val nativeProviders: Set<String> = emptySet(),
    /** Google's web (server) client id for Credential Manager's ID token option; required for native "google". */
    val googleServerClientId: String? = null,
) {
    val userAgentMarker: String get() = "Gatehouse-App/$appId"

    /** A listed provider the app cannot use is an error the app sees, never a silent fallback to the Custom Tab. */
    fun nativeProviderError(): SignInError? {
        val unknown = (nativeProviders - setOf("apple", "google")).sorted().firstOrNull()
        if (unknown != null) return SignInError("misconfigured", "unsupported_provider", "$unknown has no native sign-in at Gatehouse (apple, google).")
        if ("apple" in nativeProviders) return SignInError.nativeProviderUnavailable("apple") // Android has no native Apple sheet
        if ("google" in nativeProviders && googleServerClientId == null) return SignInError.nativeProviderUnavailable("google")
        return null
    }
}

/**
 * Hotwire Native bridge component "sign-in-with-oauth" (same wire format as iOS, docs/integrations/hotwire-native.md):
 * `click` with startPath, redeemPath, provider and continuePath opens startPath in a Custom Tab (never the web view:
 * Google refuses embedded web views), or signs in with Google through Credential Manager for native "google". The
 * callback arrives in [GatehouseCallbackActivity]; the web view then visits redeemPath?token=…, whose page posts the
 * verifier only the web view holds. The pending hand-off is kept in SharedPreferences, so it survives the process being
 * killed while the Custom Tab is in front; closing the tab replies `cancelled` ([Gatehouse.onHostResumed]). Every
 * failure is replied to the page as {"error", "error_description"} (org.json) and given to [onError].
 */
class SignInWithOAuthComponent(name: String, private val delegate: BridgeDelegate<HotwireDestination>) :
    BridgeComponent<HotwireDestination>(name, delegate) {

    companion object {
        /** The app's hook for every sign-in that did not complete (typed like the Swift package's errors). */
        var onError: ((SignInError) -> Unit)? = null
    }

    override fun onReceive(message: Message) {
        if (message.event != "click") return
        val (configuration, data) = try { Gatehouse.click(message, delegate.destination.location) } catch (error: SignInError) { return fail(error) }
        val refused = SignInError.refusedPage()
        val start = Gatehouse.resolve(data.optString("startPath"), configuration) ?: return fail(refused)
        val redeem = Gatehouse.resolve(data.optString("redeemPath"), configuration) ?: return fail(refused)
        configuration.nativeProviderError()?.let { return fail(it) }
        val provider = data.optString("provider").takeIf { it.isNotEmpty() }
        val continuePath = data.optString("continuePath").takeIf { it.isNotEmpty() }
        if (provider != null && provider in configuration.nativeProviders) return signInWithGoogle(configuration, continuePath)
        val startUrl = configuration.httpsCallback?.let { start.buildUpon().appendQueryParameter("callback", it.toString()).build() } ?: start
        val context = delegate.destination.fragment.requireContext()
        Gatehouse.savePending(context, Gatehouse.Pending(messageId = message.id, redeem = redeem.toString(), createdAt = System.currentTimeMillis()))
        Gatehouse.currentComponent = this
        CustomTabsIntent.Builder().build().launchUrl(context, startUrl)
    }

    /** Called by [GatehouseCallbackActivity] (or at the next start, after process death) with the callback URL. */
    fun handleCallback(context: Context, callback: Uri) {
        val pending = Gatehouse.takePending(context) ?: return
        val token = callback.getQueryParameter("token")
        if (token == null) {
            fail(SignInError.fromCode(callback.getQueryParameter("error") ?: "invalid_callback", callback.getQueryParameter("error_description"),
                fromCallback = true))
            return
        }
        val redeem = Uri.parse(pending.redeem).buildUpon().appendQueryParameter("token", token).build()
        // A same-host route is a Turbo visit of Gatehouse's redeem page in this web view.
        delegate.destination.navigator.route(redeem.toString())
    }

    private fun signInWithGoogle(configuration: GatehouseConfiguration, continuePath: String?) {
        val fragment = delegate.destination.fragment
        fragment.lifecycleScope.launch {
            try {
                NativeGoogle.signIn(fragment.requireActivity(), configuration)
                val target = continuePath?.let { Gatehouse.resolve(it, configuration) } ?: configuration.gatehouseUrl
                delegate.destination.navigator.route(target.toString())
            } catch (error: SignInError) {
                fail(error)
            }
        }
    }

    /** Tells the page (the bridge reply, shown next to the form unless `cancelled`) and the app ([onError]). */
    fun fail(error: SignInError) {
        onError?.invoke(error)
        replyTo("click", error.toReply())
    }
}
