package dev.gatehouse.hotwire

import android.app.Activity
import android.net.Uri
import androidx.credentials.CredentialManager
import androidx.credentials.GetCredentialRequest
import androidx.credentials.GetPublicKeyCredentialOption
import androidx.credentials.PublicKeyCredential
import androidx.credentials.exceptions.GetCredentialCancellationException
import androidx.credentials.exceptions.GetCredentialException
import androidx.credentials.exceptions.NoCredentialException
import androidx.lifecycle.lifecycleScope
import dev.hotwire.core.bridge.BridgeComponent
import dev.hotwire.core.bridge.BridgeDelegate
import dev.hotwire.core.bridge.Message
import dev.hotwire.navigation.destinations.HotwireDestination
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import org.json.JSONObject

/**
 * Hotwire Native bridge component "passkey-sign-in" (same wire format as iOS, docs/integrations/hotwire-native.md):
 * `click` with optionsPath, finishPath and continuePath. Gatehouse's options (POST /native/passkey/options) go to
 * Credential Manager as a [GetPublicKeyCredentialOption]; its assertion — whose clientDataJSON origin is
 * `android:apk-key-hash:<base64url SHA-256 of the signing certificate>`, checked against the app's registered
 * `android_cert_fingerprints` — is posted to POST /native/passkey with response=session, the session cookie goes into
 * the web view's CookieManager, and the web view routes to continuePath (the pending authorize). The site's
 * assetlinks.json must grant the app `delegate_permission/common.get_login_creds` (Gatehouse serves it from the
 * registration). Every failure is replied to the page and given to [onError].
 */
class PasskeySignInComponent(name: String, private val delegate: BridgeDelegate<HotwireDestination>) :
    BridgeComponent<HotwireDestination>(name, delegate) {

    companion object {
        var onError: ((SignInError) -> Unit)? = null
    }

    override fun onReceive(message: Message) {
        if (message.event != "click") return
        val (configuration, data) = try { Gatehouse.click(message, delegate.destination.location) } catch (error: SignInError) { return fail(error) }
        val refused = SignInError.refusedPage()
        val options = Gatehouse.resolve(data.optString("optionsPath"), configuration) ?: return fail(refused)
        val finish = Gatehouse.resolve(data.optString("finishPath"), configuration) ?: return fail(refused)
        val continuePath = data.optString("continuePath").takeIf { it.isNotEmpty() }
        val fragment = delegate.destination.fragment
        fragment.lifecycleScope.launch {
            try {
                signIn(fragment.requireActivity(), configuration, options, finish)
                val target = continuePath?.let { Gatehouse.resolve(it, configuration) } ?: configuration.gatehouseUrl
                delegate.destination.navigator.route(target.toString())
            } catch (error: SignInError) {
                fail(error)
            }
        }
    }

    private suspend fun signIn(activity: Activity, configuration: GatehouseConfiguration, options: Uri, finish: Uri) {
        val issued = withContext(Dispatchers.IO) { GatehousePost.json(options, JSONObject().put("app", configuration.appId)) }
        val ceremony = issued.optString("ceremony")
        val request = issued.optJSONObject("publicKey") ?: throw SignInError.fromCode("invalid_request", "Gatehouse sent no passkey options.")
        val credential = try {
            CredentialManager.create(activity)
                .getCredential(activity, GetCredentialRequest.Builder().addCredentialOption(GetPublicKeyCredentialOption(request.toString())).build())
                .credential
        } catch (error: GetCredentialCancellationException) {
            throw SignInError.cancelled()
        } catch (error: NoCredentialException) {
            throw SignInError.fromCode("invalid_grant", "There is no passkey for this app on the device.")
        } catch (error: GetCredentialException) {
            throw SignInError.fromCode("invalid_grant", error.message)
        }
        if (credential !is PublicKeyCredential) throw SignInError("misconfigured", "misconfigured", "The system answered with another kind of credential.")
        // WebAuthn's AuthenticationResponseJSON: binary members base64url, as Gatehouse takes them.
        val answer = JSONObject(credential.authenticationResponseJson)
        val response = answer.getJSONObject("response")
        val body = JSONObject().put("app", configuration.appId).put("ceremony", ceremony).put("response", "session")
            .put("credential_id", answer.getString("rawId")).put("client_data_json", response.getString("clientDataJSON"))
            .put("authenticator_data", response.getString("authenticatorData")).put("signature", response.getString("signature"))
            .put("user_handle", response.optString("userHandle"))
        withContext(Dispatchers.IO) { GatehousePost.json(finish, body, storeCookies = true) }
    }

    fun fail(error: SignInError) {
        onError?.invoke(error)
        replyTo("click", error.toReply())
    }
}
