import Foundation
import GatehouseHTTP

/// Hotwire Native path configuration (`/configurations/ios_v1.json`, `android_v1.json`): Gatehouse's own
/// sign-in pages open modally; rules from the `native.path_rules` config come first. Both libraries
/// reject a whole file whose `patterns` is not an array of strings or whose `properties` is not an object,
/// so rules are validated when the configuration is read. `/configurations/{ios,android}_v1_rules.json` hold
/// only Gatehouse's rules, for the product to append to its own file (an app loads one file; sources never merge).
struct PathConfiguration: Sendable {
    struct Rule: Sendable {
        let patterns: [String]
        let properties: [String: String]
    }

    let rules: [Rule]
    /// Gatehouse's path on its public URL: "" on its own host, "/auth" on one origin.
    let prefix: String

    init(rules: [Rule], publicURL: URL? = nil) {
        self.rules = rules
        var path = publicURL?.path ?? ""
        while path.hasSuffix("/") { path.removeLast() }
        self.prefix = path
    }

    /// Hotwire Native matches each pattern (NSRegularExpression, unanchored) against "path?query" — its
    /// `matchQueryStrings` is on by default — so every pattern ends at `?` or the end, and starts at Gatehouse's
    /// prefix so that the product's own paths (its `/sign-in`, `/account`) are never touched.
    var gatehouseRules: [Rule] {
        let start = "^" + NSRegularExpression.escapedPattern(for: prefix)
        return [
            Rule(patterns: [start + "/sign-in(\\?|$)", start + "/sign-up(\\?|$)", start + "/password/"],
                 properties: ["context": "modal", "pull_to_refresh_enabled": "false"]),
            // A pending authorize the component continues after native Apple or Google ends on the product's page: it
            // replaces the sign-in screen in the default context, never a modal over a stale page.
            Rule(patterns: [start + "/oauth/authorize(\\?|$)"],
                 properties: ["context": "default", "presentation": "replace", "pull_to_refresh_enabled": "false"]),
            // The hand-off lands where the app is (default context), replacing the sign-in screen.
            Rule(patterns: [start + "/native/redeem(\\?|$)"],
                 properties: ["context": "default", "presentation": "replace", "pull_to_refresh_enabled": "false"]),
            Rule(patterns: [start + "/account(\\?|$)"], properties: ["context": "default", "pull_to_refresh_enabled": "true"]),
        ]
    }

    /// The whole file for an app that loads Gatehouse's: a default rule, then the configured and Gatehouse's rules.
    func document(platform: String) -> [UInt8] {
        let everything = Rule(patterns: [".*"], properties: ["context": "default", "pull_to_refresh_enabled": "true"])
        return Self.encode([everything] + gatehouseRules + rules, platform: platform, settings: true)
    }

    /// Only Gatehouse's rules (`{"rules": […]}`), to append after the product's own rules: no catch-all, so
    /// merging it changes nothing outside Gatehouse's paths.
    func mergeableRules(platform: String) -> [UInt8] {
        Self.encode(gatehouseRules + rules, platform: platform, settings: false)
    }

    private static func encode(_ list: [Rule], platform: String, settings: Bool) -> [UInt8] {
        var rules: [[String: Any]] = []
        for rule in list {
            var properties: [String: Any] = [:]
            for (key, value) in rule.properties {
                switch value {
                case "true": properties[key] = true
                case "false": properties[key] = false
                default: properties[key] = value
                }
            }
            if platform == "android", properties["uri"] == nil { properties["uri"] = "hotwire://fragment/web" }
            rules.append(["patterns": rule.patterns, "properties": properties])
        }
        var document: [String: Any] = ["rules": rules]
        if settings { document["settings"] = [String: Any]() }
        return Array((try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8))
    }

    /// Parses `native.path_rules`: an array of `{ "patterns": [regex …], "properties": { … } }`.
    static func parse(_ value: Any) throws(ConfigurationError) -> [Rule] {
        guard let list = value as? [Any] else { throw ConfigurationError(key: "native.path_rules", problem: "must be an array") }
        var rules: [Rule] = []
        for (index, item) in list.enumerated() {
            let key = "native.path_rules[\(index)]"
            guard let object = item as? [String: Any], let patterns = object["patterns"] as? [String], !patterns.isEmpty else {
                throw ConfigurationError(key: "\(key).patterns", problem: "must be a non-empty array of strings")
            }
            for pattern in patterns where (try? NSRegularExpression(pattern: pattern)) == nil {
                throw ConfigurationError(key: "\(key).patterns", problem: "\(pattern) is not a valid regular expression")
            }
            guard let properties = object["properties"] as? [String: Any] else {
                throw ConfigurationError(key: "\(key).properties", problem: "must be an object")
            }
            var values: [String: String] = [:]
            for (name, value) in properties {
                switch value {
                case let text as String: values[name] = text
                case let number as NSNumber: values[name] = CFBooleanLike.isBool(number) ? (number.boolValue ? "true" : "false") : number.stringValue
                default: throw ConfigurationError(key: "\(key).properties.\(name)", problem: "must be a string, number or boolean")
                }
            }
            rules.append(Rule(patterns: patterns, properties: values))
        }
        return rules
    }
}

enum CFBooleanLike {
    static func isBool(_ number: NSNumber) -> Bool { type(of: number) == type(of: NSNumber(value: true)) }
}
