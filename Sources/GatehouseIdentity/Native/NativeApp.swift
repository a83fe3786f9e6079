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

    /// Reads the registration from a client; nil when the client is not a native app (no callback scheme).
    public init?(client: OAuthClient) {
        guard let data = client.metadata.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        let schemes = (object["callback_schemes"] as? [String] ?? []).map { $0.lowercased() }
        guard !schemes.isEmpty, schemes.allSatisfy(Self.isValidScheme) else { return nil }
        clientID = client.id
        name = client.name
        callbackSchemes = schemes
        bundleIDs = object["bundle_ids"] as? [String] ?? []
        packageNames = object["package_names"] as? [String] ?? []
        appleAudiences = (object["apple_audiences"] as? [String] ?? []) + bundleIDs
    }

    /// A private-use scheme (RFC 8252 §7.1); `http(s)` and the browser-dangerous schemes are refused.
    public static func isValidScheme(_ scheme: String) -> Bool {
        guard scheme.range(of: "^[a-z][a-z0-9+.-]*$", options: .regularExpression) != nil else { return false }
        return !["http", "https", "javascript", "data", "file", "about", "blob", "vbscript"].contains(scheme)
    }

    /// Where a hand-off result goes: the app's first registered scheme.
    public func callbackURL(_ parameters: [(String, String)]) -> String {
        var components = URLComponents()
        components.scheme = callbackSchemes[0]
        components.host = "auth-callback"
        components.queryItems = parameters.map { URLQueryItem(name: $0.0, value: $0.1) }
        return components.string ?? "\(callbackSchemes[0])://auth-callback"
    }
}
