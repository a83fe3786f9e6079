import Foundation
import GatehouseStore

/// A native app registered on an OAuth client (`metadata` JSON of the client; in the config file, the
/// client's `native` object): where hand-offs may be delivered and which Apple audiences it signs in with.
public struct NativeApp: Sendable, Equatable {
    public let clientID: String
    public let name: String
    /// Private-use schemes the app handles (`myapp` → `myapp://auth-callback?token=…`).
    public let callbackSchemes: [String]
    /// iOS bundle ids: the `aud` of identity tokens from native Sign in with Apple.
    public let bundleIDs: [String]
    public let packageNames: [String]
    /// Extra audiences accepted for this app's Apple identity tokens.
    public let appleAudiences: [String]
    /// Claimed https callbacks (`ASWebAuthenticationSession` `.https(host:path:)`, Android App Links): only
    /// the app the domain names (apple-app-site-association, assetlinks.json) receives them, so a hand-off
    /// delivered there needs no "Continue to …?" step (RFC 8252 §8.6).
    public let callbackURLs: [String]
    /// Google OAuth client ids of the app's native Google sign-in (iOS / Android clients): the `aud` (or
    /// `azp`) of the ID tokens posted to `/native/google`.
    public let googleClientIDs: [String]
    /// `TEAMID.bundle.id` for apple-app-site-association.
    public let appleAppIDs: [String]
    /// SHA-256 signing-certificate fingerprints (`AA:BB:…`) for assetlinks.json.
    public let androidCertFingerprints: [String]

    /// Reads the registration from a client; nil when the client is not a native app (no callback scheme).
    public init?(client: OAuthClient) { self.init(id: client.id, name: client.name, metadata: client.metadata) }

    /// The same from a registration (configuration file), before it is stored.
    public init?(registration: ClientRegistration) {
        guard let id = registration.id else { return nil }
        self.init(id: id, name: registration.name, metadata: registration.metadata)
    }

    public init?(id: String, name: String, metadata: String) {
        guard let data = metadata.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        let schemes = (object["callback_schemes"] as? [String] ?? []).map { $0.lowercased() }
        guard !schemes.isEmpty, schemes.allSatisfy(Self.isValidScheme) else { return nil }
        clientID = id
        self.name = name
        callbackSchemes = schemes
        bundleIDs = object["bundle_ids"] as? [String] ?? []
        packageNames = object["package_names"] as? [String] ?? []
        appleAudiences = (object["apple_audiences"] as? [String] ?? []) + bundleIDs
        callbackURLs = (object["callback_urls"] as? [String] ?? []).filter(Self.isValidHTTPSCallback)
        googleClientIDs = object["google_client_ids"] as? [String] ?? []
        appleAppIDs = object["apple_app_ids"] as? [String] ?? []
        androidCertFingerprints = object["android_cert_fingerprints"] as? [String] ?? []
    }

    /// An absolute https URL without query or fragment.
    public static func isValidHTTPSCallback(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), components.scheme == "https", let host = components.host, !host.isEmpty,
              components.query == nil, components.fragment == nil, components.user == nil else { return false }
        return true
    }

    /// The callback a flow asked for: `scheme` (the first private-use scheme) or one of the registered https
    /// URLs; nil when the app did not register it.
    public func callback(named requested: String?) -> String? {
        guard let requested, !requested.isEmpty, requested != "scheme" else { return "scheme" }
        return callbackURLs.contains(requested) ? requested : nil
    }

    /// Whether hand-offs to this callback reach only this app (a claimed https URL).
    public static func isAssured(callback: String) -> Bool { callback.hasPrefix("https://") }

    /// A private-use scheme (RFC 8252 §7.1); `http(s)` and the browser-dangerous schemes are refused.
    public static func isValidScheme(_ scheme: String) -> Bool {
        guard scheme.range(of: "^[a-z][a-z0-9+.-]*$", options: .regularExpression) != nil else { return false }
        return !["http", "https", "javascript", "data", "file", "about", "blob", "vbscript"].contains(scheme)
    }

    /// Where a hand-off result goes: the app's first registered scheme, or the chosen https callback.
    public func callbackURL(_ parameters: [(String, String)], callback: String = "scheme") -> String {
        if callback != "scheme", callbackURLs.contains(callback), var components = URLComponents(string: callback) {
            components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
            if let text = components.string { return text }
        }
        var components = URLComponents()
        components.scheme = callbackSchemes[0]
        components.host = "auth-callback"
        components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.string ?? "\(callbackSchemes[0])://auth-callback"
    }
}
