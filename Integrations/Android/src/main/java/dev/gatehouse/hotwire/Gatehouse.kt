package dev.gatehouse.hotwire

import android.app.Activity
import android.content.Context
import android.net.Uri
import android.os.Bundle
import kotlinx.serialization.Serializable
import kotlinx.serialization.encodeToString
import kotlinx.serialization.json.Json

/** Shared state of the Gatehouse component: the configuration, the pending hand-off (persisted), the live component. */
object Gatehouse {
    var configuration: GatehouseConfiguration? = null
    internal var currentComponent: SignInWithOAuthComponent? = null
    /** A callback that arrived while no component was alive (process death); delivered when the web view is back. */
    internal var parkedCallback: Uri? = null

    private const val PREFERENCES = "gatehouse.handoff"
    private const val LIFETIME_MS = 10 * 60 * 1000L

    @Serializable
    data class Pending(val messageId: String, val redeem: String, val createdAt: Long)

    internal fun savePending(context: Context, pending: Pending) {
        context.getSharedPreferences(PREFERENCES, Context.MODE_PRIVATE).edit().putString("pending", Json.encodeToString(pending)).apply()
    }

    /** The pending hand-off, once: a callback without one (a link from elsewhere) is ignored. */
    internal fun takePending(context: Context): Pending? {
        val preferences = context.getSharedPreferences(PREFERENCES, Context.MODE_PRIVATE)
        val pending = preferences.getString("pending", null)?.let { runCatching { Json.decodeFromString<Pending>(it) }.getOrNull() }
        preferences.edit().remove("pending").apply()
        return pending?.takeIf { System.currentTimeMillis() - it.createdAt < LIFETIME_MS }
    }

    internal fun sameOrigin(a: Uri, b: Uri) = a.scheme == b.scheme && a.host == b.host && a.port == b.port

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

    /** Call from the main activity's onResume: delivers a callback that arrived while the process was restarting. */
    fun deliverParkedCallback(context: Context) {
        val callback = parkedCallback ?: return
        val component = currentComponent ?: return
        parkedCallback = null
        component.handleCallback(context, callback)
    }
}

/** Receives myapp://auth-callback?… and the App Link, hands them to the component, and finishes at once. */
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
