import Foundation
import GatehouseHTTP

/// Hotwire Native path configuration (`/configurations/ios_v1.json`, `android_v1.json`): Gatehouse's own
/// sign-in pages open modally; rules from the `native.path_rules` config come first. Both libraries
/// reject a whole file whose `patterns` is not an array of strings or whose `properties` is not an object,
/// so rules are validated when the configuration is read.
struct PathConfiguration: Sendable {
    struct Rule: Sendable {
        let patterns: [String]
        let properties: [String: String]
    }

    let rules: [Rule]

    static let gatehouseRules: [Rule] = [
        Rule(patterns: ["/sign-in$", "/sign-up$", "/password/.*", "/oauth/authorize.*"],
             properties: ["context": "modal", "pull_to_refresh_enabled": "false"]),
        // The hand-off lands where the app is (default context), replacing the sign-in screen.
        Rule(patterns: ["/native/redeem"], properties: ["context": "default", "presentation": "replace",
                                                        "pull_to_refresh_enabled": "false"]),
        Rule(patterns: ["/account$"], properties: ["context": "default", "pull_to_refresh_enabled": "true"]),
    ]

    func document(platform: String) -> [UInt8] {
        var rules: [[String: Any]] = [["patterns": [".*"], "properties": ["context": "default", "pull_to_refresh_enabled": true]]]
        for rule in Self.gatehouseRules + self.rules {
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
        let document: [String: Any] = ["settings": [String: Any](), "rules": rules]
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
