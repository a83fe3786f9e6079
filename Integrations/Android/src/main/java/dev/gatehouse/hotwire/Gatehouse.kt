package dev.gatehouse.hotwire

import android.app.Activity
import android.content.Context
import android.net.Uri
import android.os.Bundle
import android.os.Handler
import android.os.Looper
import dev.hotwire.core.bridge.Message
import org.json.JSONObject

/** Shared state of the Gatehouse component: the configuration, the pending hand-off (persisted), the live component. */
object Gatehouse {
    var configuration: GatehouseConfiguration? = null
    internal var currentComponent: SignInWithOAuthComponent? = null
    /** A callback that arrived while no component was alive (process death); delivered when the web view is back. */
    internal var parkedCallback: Uri? = null

    private const val PREFERENCES = "gatehouse.handoff"
    private const val LIFETIME_MS = 10 * 60 * 1000L
    /** How long after the app is back in front a callback may still arrive before the Custom Tab counts as closed. */
    internal const val CLOSED_GRACE_MS = 700L

    data class Pending(val messageId: String, val redeem: String, val createdAt: Long) {
        fun toJson(): String = JSONObject().put("messageId", messageId).put("redeem", redeem).put("createdAt", createdAt).toString()

        companion object {
            fun fromJson(text: String): Pending? = runCatching {
                val json = JSONObject(text)
                Pending(json.getString("messageId"), json.getString("redeem"), json.getLong("createdAt"))
            }.getOrNull()
        }
    }

    internal fun savePending(context: Context, pending: Pending) {
        context.getSharedPreferences(PREFERENCES, Context.MODE_PRIVATE).edit().putString("pending", pending.toJson()).apply()
    }

    private fun hasPending(context: Context) = context.getSharedPreferences(PREFERENCES, Context.MODE_PRIVATE).contains("pending")

    /** The pending hand-off, once: a callback without one (a link from elsewhere) is ignored. */
    internal fun takePending(context: Context): Pending? {
        val preferences = context.getSharedPreferences(PREFERENCES, Context.MODE_PRIVATE)
        val pending = preferences.getString("pending", null)?.let(Pending::fromJson)
        preferences.edit().remove("pending").apply()
        return pending?.takeIf { System.currentTimeMillis() - it.createdAt < LIFETIME_MS }
    }

    internal fun sameOrigin(a: Uri, b: Uri) = a.scheme == b.scheme && a.host == b.host && a.port == b.port

    /** What every component's `click` checks first: Gatehouse is configured, the message carries JSON data, and the
     *  page that sent it ([page], the web view's location) is Gatehouse's own. Throws the [SignInError] to reply. */
    internal fun click(message: Message, page: String): Pair<GatehouseConfiguration, JSONObject> {
        val configuration = configuration ?: throw SignInError("misconfigured", "misconfigured", "Gatehouse is not configured in the app.")
        val data = runCatching { JSONObject(message.jsonData) }.getOrNull() ?: throw SignInError.refusedPage()
        if (!sameOrigin(Uri.parse(page), configuration.gatehouseUrl)) throw SignInError.refusedPage()
        return configuration to data
    }

    /** `path` resolved against Gatehouse's URL, only on its origin and under its path, compared segment by decoded
     *  segment (a string prefix let `/authx` and `/auth/../x` through); a dot segment in any encoding is refused. */
    internal fun resolve(path: String, configuration: GatehouseConfiguration): Uri? {
        val base = configuration.gatehouseUrl
        val url = if (path.startsWith("/")) base.buildUpon().encodedPath(null).encodedQuery(null).build().toString().trimEnd('/') + path else path
        val uri = Uri.parse(url)
        val segments = uri.pathSegments
        val baseSegments = base.pathSegments
        val clean = segments.none { it == "." || it == ".." || it.contains('/') || it.contains('\\') }
        return uri.takeIf {
            sameOrigin(it, base) && clean && segments.size >= baseSegments.size && segments.subList(0, baseSegments.size) == baseSegments
        }
    }

    /**
     * Call from the main activity's onResume. Delivers a callback that arrived while the process was restarting; and
     * when the user came back without a callback (the Custom Tab was closed), replies `cancelled` to the page once the
     * grace period has passed — a callback arriving in that time wins. Mirrored by e2e/native/android_handoff.py.
     */
    fun onHostResumed(context: Context) {
        parkedCallback?.let { callback ->
            val component = currentComponent ?: return
            parkedCallback = null
            component.handleCallback(context, callback)
            return
        }
        if (!hasPending(context)) return
        val appContext = context.applicationContext
        Handler(Looper.getMainLooper()).postDelayed({
            if (parkedCallback != null || !hasPending(appContext)) return@postDelayed
            val component = currentComponent ?: return@postDelayed
            takePending(appContext) ?: return@postDelayed
            component.fail(SignInError.cancelled())
        }, CLOSED_GRACE_MS)
    }

    /** Former name of [onHostResumed]. */
    fun deliverParkedCallback(context: Context) = onHostResumed(context)
}

/**
 * Why a sign-in did not end signed in: the same sorting and messages as the Swift package's GatehouseSignInError
 * (mirrored and checked by e2e/native/sign_in_error.py). [kind] is the Swift case name.
 */
class SignInError(val kind: String, val code: String, override val message: String) : Exception(message) {
    fun toReply(): String = JSONObject().put("error", code).put("error_description", message).toString()

    companion object {
        private val misconfigured = setOf("misconfigured", "invalid_client", "unauthorized_client", "unsupported_provider", "invalid_scope", "invalid_request")
        private val network = setOf("provider_unavailable", "provider_timeout", "temporarily_unavailable", "server_error")
        private val providerNames = mapOf("apple" to "Apple", "google" to "Google", "github" to "GitHub")

        fun cancelled() = SignInError("cancelled", "cancelled", "You closed the sign-in.")

        /** A message from a page that is not Gatehouse's, or a path outside it. */
        fun refusedPage() = fromCode("invalid_request", "This page may not start a sign-in.")

        fun nativeProviderUnavailable(provider: String) = SignInError("nativeProviderUnavailable", "unsupported_provider",
            "Sign in with ${providerNames[provider] ?: provider} isn't available in this app.")

        fun fromCode(code: String, description: String?, fromCallback: Boolean = false): SignInError {
            val message = description ?: defaultMessage(code)
            return when {
                code == "cancelled" || (fromCallback && code == "access_denied") -> cancelled()
                code == "account_exists" -> SignInError("accountExists", code, message)
                code in network -> SignInError("network", "temporarily_unavailable", message)
                code in misconfigured -> SignInError("misconfigured", code, message)
                else -> SignInError("refused", code, message)
            }
        }

        private fun defaultMessage(code: String) = when (code) {
            "account_exists" -> "An account with this email already exists. Sign in to it, then link this provider from your account."
            in network -> "Signing in is unavailable right now. Try again later."
            else -> "Signing in did not complete ($code)."
        }
    }
}

/** Receives <scheme>://auth-callback?… and the App Link, hands them to the component, and finishes at once. */
class GatehouseCallbackActivity : Activity() {
    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        intent?.data?.let { callback ->
            val component = Gatehouse.currentComponent
            if (component != null) component.handleCallback(this, callback) else Gatehouse.parkedCallback = callback
        }
        finish()
    }
}
