import Foundation
import GatehouseCrypto
import GatehouseStore

extension WebAuthnCeremonies {
    /// The same ceremonies with a relying party that accepts exactly `origins` in `clientDataJSON.origin`
    /// (same RP ID, name and algorithms): a native app's ceremony accepts that app's origins, not the web's.
    public func accepting(origins: Set<String>) -> WebAuthnCeremonies {
        var copy = self
        copy.relyingParty = WebAuthnRelyingParty(id: relyingParty.id, name: relyingParty.name, origins: origins,
                                                 algorithms: relyingParty.algorithms)
        return copy
    }
}

/// Passkey sign-in from an app's own screen: iOS `ASAuthorizationPlatformPublicKeyCredentialProvider` or
/// Android Credential Manager run the ceremony, the app posts the assertion.
///
/// The platforms write their own origin into `clientDataJSON` (never the web page's): iOS the RP's
/// `https://<rp id>` (only for an app the site's apple-app-site-association names under `webcredentials`),
/// Android `android:apk-key-hash:<base64url SHA-256 of the signing certificate>`. Each app's ceremony accepts
/// only the origins its registration allows, and its challenge is bound to the app and to a ceremony secret
/// the app got with the options, so a challenge issued to a browser, another app or another run is refused.
public struct NativePasskeySignIn: Sendable {
    public let ceremonies: WebAuthnCeremonies

    public init(ceremonies: WebAuthnCeremonies) { self.ceremonies = ceremonies }

    /// A started ceremony: the secret the app sends back with the assertion, and the options for the platform.
    public struct Started: Sendable {
        public let ceremony: String
        public let options: AuthenticationOptions
    }

    /// The origins `app`'s platform ceremonies report: `https://<rp id>` when it has `apple_app_ids`, and one
    /// `android:apk-key-hash:…` per registered `android_cert_fingerprints` (for an app with a package name).
    public func origins(for app: NativeApp) -> Set<String> {
        var origins: Set<String> = []
        if !app.appleAppIDs.isEmpty { origins.insert("https://\(ceremonies.relyingParty.id)") }
        if !app.packageNames.isEmpty {
            for fingerprint in app.androidCertFingerprints {
                if let origin = Self.androidOrigin(fingerprint: fingerprint) { origins.insert(origin) }
            }
        }
        return origins
    }

    /// `android:apk-key-hash:` and the base64url (unpadded) SHA-256 of the signing certificate, from the
    /// colon-separated hex fingerprint assetlinks.json uses; nil when it is not 32 hex bytes.
    public static func androidOrigin(fingerprint: String) -> String? {
        let parts = fingerprint.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 32 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        return "android:apk-key-hash:" + Base64URL.encode(bytes)
    }

    /// The flow binding of a native ceremony: the app's client id and the ceremony secret, hashed.
    static func binding(appID: String, ceremony: String) -> TokenHash {
        TokenHash(SHA256.hash(Array("native-passkey\u{0}\(appID)\u{0}\(ceremony)".utf8)))
    }

    /// Issues a discoverable-credential challenge (UV required) for `app`; nil when the app has no origin a
    /// platform could report (no `apple_app_ids`, no package with a certificate fingerprint).
    public func start(app: NativeApp) async throws -> Started? {
        guard !origins(for: app).isEmpty else { return nil }
        let ceremony = SecureRandom.token()
        let options = try await ceremonies.startAuthentication(user: nil, flowBinding: Self.binding(appID: app.clientID, ceremony: ceremony))
        return Started(ceremony: ceremony, options: options)
    }

    /// Verifies the assertion for the ceremony `app` started with `ceremony`, with only `app`'s origins accepted.
    /// Throws ``WebAuthnRefusal`` (audited) as the web sign-in does.
    public func finish(app: NativeApp, ceremony: String, response: AssertionResponse, context: ClientContext) async throws
        -> (signIn: PasskeySignIn, user: User) {
        let signIn = try await ceremonies.accepting(origins: origins(for: app))
            .finishAuthentication(flowBinding: Self.binding(appID: app.clientID, ceremony: ceremony), response: response, context: context)
        // finishAuthentication found the user enabled a moment ago; gone since means a deletion raced this sign-in.
        guard let user = try await ceremonies.users.find(id: signIn.userID), !user.disabled else { throw WebAuthnRefusal.unknownCredential }
        return (signIn, user)
    }

    /// RFC 8176 methods of a passkey sign-in: `swk` for a synced (software-held) key, `hwk` for a device-bound
    /// one, `user` for the presence test, and `mfa` when the authenticator verified the user.
    public static func methods(_ signIn: PasskeySignIn) -> [String] {
        [signIn.credential.backupEligible ? "swk" : "hwk", "user"] + (signIn.userVerified ? ["mfa"] : [])
    }
}
