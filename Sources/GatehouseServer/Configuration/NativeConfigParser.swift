import Foundation
import GatehouseIdentity

/// The `native` object of a configured client, checked whole at start-up so a typo or a wrong type
/// stops the server with one line naming the key, instead of a native app that silently never signs in
/// (`NativeApp` ignores what it cannot read).
///
/// Every key is declared once in `fields`; adding one is adding a line there.
enum NativeConfigParser {
    enum Kind { case schemes, identifiers, strings }

    static let fields: [String: Kind] = [
        "callback_schemes": .schemes,    // private-use URL schemes the app handles (RFC 8252 §7.1)
        "bundle_ids": .identifiers,      // iOS bundle ids: audiences of native Sign in with Apple
        "package_names": .identifiers,   // Android application ids
        "apple_audiences": .strings,     // extra Apple identity-token audiences
        // The rest of what NativeApp reads (docs/integrations/hotwire-native.md, "Registering the app").
        "callback_urls": .strings,       // claimed https callbacks (NativeApp keeps only absolute https URLs)
        "google_client_ids": .strings,   // aud/azp of native Google ID tokens
        "apple_app_ids": .strings,       // TEAMID.bundle.id for apple-app-site-association
        "android_cert_fingerprints": .strings, // SHA-256 signing-certificate fingerprints for assetlinks.json
    ]

    /// Validates `value` (the client's `native`) and returns it as the client's metadata JSON.
    static func parse(_ value: Any, key prefix: String) throws(ConfigurationError) -> String {
        guard let object = value as? [String: Any] else { throw ConfigurationError(key: prefix, problem: "must be an object") }
        for key in object.keys.sorted() where fields[key] == nil {
            throw ConfigurationError(key: "\(prefix).\(key)",
                                     problem: "unknown setting (known: \(fields.keys.sorted().joined(separator: ", ")))")
        }
        for (key, kind) in fields.sorted(by: { $0.key < $1.key }) {
            guard let raw = object[key] else { continue }
            let name = "\(prefix).\(key)"
            guard let list = raw as? [Any], list.allSatisfy({ $0 is String }), let items = list as? [String] else {
                throw ConfigurationError(key: name, problem: "must be an array of strings")
            }
            guard !items.isEmpty else { throw ConfigurationError(key: name, problem: "must not be empty (leave the key out instead)") }
            for (index, item) in items.enumerated() {
                if let problem = problem(item, kind) { throw ConfigurationError(key: "\(name)[\(index)]", problem: problem) }
            }
        }
        let schemes = object["callback_schemes"] as? [String] ?? []
        for key in ["bundle_ids", "package_names"] where object[key] != nil && schemes.isEmpty {
            throw ConfigurationError(key: "\(prefix).\(key)",
                                     problem: "needs callback_schemes: without one the app cannot receive a sign-in")
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
            throw ConfigurationError(key: prefix, problem: "must be a JSON object")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func problem(_ item: String, _ kind: Kind) -> String? {
        switch kind {
        case .schemes:
            let lower = item.lowercased()
            if ["http", "https"].contains(lower) {
                return "\"\(item)\" is not a private-use scheme: use the app's own scheme (e.g. com.example.app); https links need claimed domains"
            }
            if item.contains(":") || item.contains("/") { return "must be a scheme name only (myapp, not myapp://…)" }
            guard item == lower else { return "must be lower case (\(lower))" }
            guard NativeApp.isValidScheme(item) else {
                return "\"\(item)\" is not a usable URL scheme (letters, digits, + . -, starting with a letter; not javascript, data, file…)"
            }
            return nil
        case .identifiers:
            guard item.range(of: "^[A-Za-z0-9-]+(\\.[A-Za-z0-9_-]+)+$", options: .regularExpression) != nil else {
                return "\"\(item)\" is not a reverse-DNS identifier such as com.example.app"
            }
            return nil
        case .strings:
            return item.isEmpty ? "must not be empty" : nil
        }
    }
}
