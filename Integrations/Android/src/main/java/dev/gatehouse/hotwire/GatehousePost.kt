package dev.gatehouse.hotwire

import android.net.Uri
import android.webkit.CookieManager
import java.io.IOException
import java.net.HttpURLConnection
import java.net.URL
import org.json.JSONObject

/**
 * The one JSON POST the native endpoints take (`/native/google`, `/native/passkey/options`, `/native/passkey`): a
 * refusal's RFC 6749 `{"error", "error_description"}` becomes a [SignInError], and with [storeCookies] the session
 * cookie of a `response=session` answer goes into the web view's CookieManager. Call off the main thread.
 */
internal object GatehousePost {
    fun json(url: Uri, body: JSONObject, storeCookies: Boolean = false): JSONObject {
        val connection = try {
            (URL(url.toString()).openConnection() as HttpURLConnection).apply {
                requestMethod = "POST"
                connectTimeout = 10_000
                readTimeout = 10_000
                doOutput = true
                setRequestProperty("Content-Type", "application/json")
                setRequestProperty("Accept", "application/json")
                outputStream.use { it.write(body.toString().toByteArray()) }
            }
        } catch (error: IOException) {
            throw SignInError.fromCode("temporarily_unavailable", null)
        }
        try {
            val status = try { connection.responseCode } catch (error: IOException) { throw SignInError.fromCode("temporarily_unavailable", null) }
            if (status !in 200..299) {
                val json = runCatching { JSONObject(connection.errorStream.bufferedReader().readText()) }.getOrNull()
                throw SignInError.fromCode(json?.optString("error")?.takeIf { it.isNotEmpty() } ?: "invalid_callback",
                    json?.optString("error_description")?.takeIf { it.isNotEmpty() })
            }
            if (storeCookies) {
                val cookies = CookieManager.getInstance()
                val origin = url.buildUpon().encodedPath("/").encodedQuery(null).build().toString()
                connection.headerFields.filterKeys { it?.equals("Set-Cookie", ignoreCase = true) == true }.values.flatten()
                    .forEach { cookies.setCookie(origin, it) }
                cookies.flush()
            }
            return runCatching { JSONObject(connection.inputStream.bufferedReader().readText()) }.getOrDefault(JSONObject())
        } finally {
            connection.disconnect()
        }
    }
}
