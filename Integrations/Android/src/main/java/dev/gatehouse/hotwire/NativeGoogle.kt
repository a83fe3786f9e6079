package dev.gatehouse.hotwire

import android.app.Activity
import android.net.Uri
import androidx.credentials.CredentialManager
import androidx.credentials.CustomCredential
import androidx.credentials.GetCredentialRequest
import androidx.credentials.exceptions.GetCredentialCancellationException
import androidx.credentials.exceptions.GetCredentialException
import androidx.credentials.exceptions.NoCredentialException
import com.google.android.libraries.identity.googleid.GetGoogleIdOption
import com.google.android.libraries.identity.googleid.GoogleIdTokenCredential
import java.security.MessageDigest
import java.security.SecureRandom
import android.util.Base64
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.withContext
import org.json.JSONObject

/**
 * Native Google: Credential Manager's Google ID token (with the SHA-256 hex of a raw nonce), posted to
 * POST {gatehouse}/native/google with response=session; the session cookie goes into the web view's CookieManager.
 * Every failure is a [SignInError] (the user closing the sheet is `cancelled`).
 */
internal object NativeGoogle {
    suspend fun signIn(activity: Activity, configuration: GatehouseConfiguration) {
        val serverClientId = configuration.googleServerClientId ?: throw SignInError.nativeProviderUnavailable("google")
        val raw = ByteArray(32).also(SecureRandom()::nextBytes).let { Base64.encodeToString(it, Base64.URL_SAFE or Base64.NO_PADDING or Base64.NO_WRAP) }
        val nonce = MessageDigest.getInstance("SHA-256").digest(raw.toByteArray()).joinToString("") { "%02x".format(it) }
        val option = GetGoogleIdOption.Builder().setServerClientId(serverClientId).setFilterByAuthorizedAccounts(false).setNonce(nonce).build()
        val credential = try {
            CredentialManager.create(activity).getCredential(activity, GetCredentialRequest.Builder().addCredentialOption(option).build()).credential
        } catch (error: GetCredentialCancellationException) {
            throw SignInError.cancelled()
        } catch (error: NoCredentialException) {
            throw SignInError.nativeProviderUnavailable("google")
        } catch (error: GetCredentialException) {
            throw SignInError.fromCode("provider_error", error.message)
        }
        if (credential !is CustomCredential || credential.type != GoogleIdTokenCredential.TYPE_GOOGLE_ID_TOKEN_CREDENTIAL) {
            throw SignInError("misconfigured", "misconfigured", "Google answered with an unexpected credential.")
        }
        val idToken = GoogleIdTokenCredential.createFrom(credential.data).idToken
        withContext(Dispatchers.IO) { post(configuration, idToken, raw) }
    }

    private fun post(configuration: GatehouseConfiguration, idToken: String, rawNonce: String) {
        val base = configuration.gatehouseUrl.toString().trimEnd('/')
        val body = JSONObject().put("id_token", idToken).put("raw_nonce", rawNonce).put("app", configuration.appId).put("response", "session")
        GatehousePost.json(Uri.parse("$base/native/google"), body, storeCookies = true)
    }
}
