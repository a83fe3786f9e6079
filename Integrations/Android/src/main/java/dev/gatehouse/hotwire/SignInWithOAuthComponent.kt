package dev.gatehouse.hotwire

import android.content.Context
import android.net.Uri
import androidx.browser.customtabs.CustomTabsIntent
import dev.hotwire.core.bridge.BridgeComponent
import dev.hotwire.core.bridge.BridgeDelegate
import dev.hotwire.core.bridge.Message
import dev.hotwire.navigation.destinations.HotwireDestination
import kotlinx.serialization.SerialName
import kotlinx.serialization.Serializable

/**
 * Where this app's Gatehouse lives and how hand-offs come back — pinned in the app, never taken from the page.
 * Set once in Application.onCreate, with Hotwire.config.applicationUserAgentPrefix = configuration.userAgentMarker.
 */
data class GatehouseConfiguration(
    /** Gatehouse's public URL, e.g. https://app.example/auth (one origin). */
    val gatehouseUrl: Uri,
    /** The app's client id at Gatehouse. */
    val appId: String,
    /** The registered private-use scheme ("myapp" for myapp://auth-callback). */
    val callbackScheme: String,
    /** A verified App Link registered as a callback_url: no "Continue to …?" page is needed with it. */
    val httpsCallback: Uri? = null,
) {
    val userAgentMarker: String get() = "Gatehouse-App/$appId"
}

/**
 * Hotwire Native bridge component "sign-in-with-oauth" (same wire format as iOS, docs/integrations/hotwire-native.md):
 * `click` with startPath, redeemPath, provider and continuePath opens startPath in a Custom Tab (never the web view:
 * Google refuses embedded web views). The callback arrives in [GatehouseCallbackActivity]; the web view then visits
 * redeemPath?token=…, whose page posts the verifier only the web view holds. The pending hand-off is kept in
 * SharedPreferences, so it survives the process being killed while the Custom Tab is in front. Errors are replied to
 * the page as {"error", "error_description"}.
 */
class SignInWithOAuthComponent(name: String, private val delegate: BridgeDelegate<HotwireDestination>) :
    BridgeComponent<HotwireDestination>(name, delegate) {

    @Serializable
    data class ClickData(
        @SerialName("startPath") val startPath: String,
        @SerialName("redeemPath") val redeemPath: String,
        @SerialName("provider") val provider: String? = null,
        @SerialName("continuePath") val continuePath: String? = null,
    )

    override fun onReceive(message: Message) {
        if (message.event != "click") return
        val configuration = Gatehouse.configuration ?: return replyError("invalid_request", "Gatehouse is not configured in the app.")
        val data = message.data<ClickData>() ?: return
        val page = delegate.destination.location.let(Uri::parse)
        val start = Gatehouse.resolve(data.startPath, configuration) ?: return replyError("invalid_request", "This page may not start a sign-in.")
        val redeem = Gatehouse.resolve(data.redeemPath, configuration) ?: return replyError("invalid_request", "This page may not start a sign-in.")
        if (!Gatehouse.sameOrigin(page, configuration.gatehouseUrl)) return replyError("invalid_request", "This page may not start a sign-in.")
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
            replyError(callback.getQueryParameter("error") ?: "invalid_callback",
                callback.getQueryParameter("error_description") ?: "Signing in did not complete.")
            return
        }
        val redeem = Uri.parse(pending.redeem).buildUpon().appendQueryParameter("token", token).build()
        // A same-host route is a Turbo visit of Gatehouse's redeem page in this web view.
        delegate.destination.navigator.route(redeem.toString())
    }

    fun replyError(code: String, description: String) {
        replyTo("click", """{"error":"${code.replace("\"", "")}","error_description":"${description.replace("\"", "'")}"}""")
    }
}
