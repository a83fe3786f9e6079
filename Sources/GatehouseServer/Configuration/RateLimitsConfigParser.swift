import Foundation
import GatehouseIdentity

/// The `rate_limits` section: every rule of `RateLimitPolicy` can be replaced.
///
/// ```json
/// "rate_limits": { "enabled": true, "ipv6_prefix_length": 64,
///                  "sign_in_per_ip": [{ "limit": 10, "window_seconds": 180 }],
///                  "sign_in_per_account": [{ "limit": 5, "window_seconds": 60 }, { "limit": 10, "window_seconds": 900 }] }
/// ```
/// A list replaces that rule's defaults; an empty list turns that rule off.
enum RateLimitsConfigParser {
    /// Config key → (policy property, bucket prefix).
    static var ruleKeys: [(key: String, path: WritableKeyPath<RateLimitPolicy, [RateLimitRule]>, bucket: String)] { [
        ("sign_in_per_ip", \.signInPerIP, "sign_in.ip"),
        ("sign_in_per_account", \.signInPerAccount, "sign_in.account"),
        ("sign_in_per_account_any_client", \.signInPerAccountAnyClient, "sign_in.account_any"),
        ("sign_up_per_ip", \.signUpPerIP, "sign_up.ip"),
        ("password_forgot_per_ip", \.passwordForgotPerIP, "password_forgot.ip"),
        ("password_forgot_per_account", \.passwordForgotPerAccount, "password_forgot.account"),
        ("password_reset_per_ip", \.passwordResetPerIP, "password_reset.ip"),
        ("current_password_per_account", \.currentPasswordPerAccount, "password_check.account"),
        ("admin_api_per_client", \.adminAPIPerClient, "admin_api.client"),
        ("native_passkey_per_ip", \.nativePasskeyPerIP, "native_passkey.ip"),
        ("already_registered_per_recipient", \.alreadyRegisteredPerRecipient, "already_registered.recipient"),
    ] }

    static var knownKeys: Set<String> { Set(["enabled", "ipv6_prefix_length"] + ruleKeys.map(\.key)) }

    static func apply(_ section: ConfigFile.Section, to policy: inout RateLimitPolicy) throws(ConfigurationError) {
        if let value = section.values["enabled"] {
            guard let enabled = value as? Bool, isJSONBoolean(value) else {
                throw ConfigurationError(key: "rate_limits.enabled", problem: "must be true or false")
            }
            if !enabled { policy = RateLimitPolicy.disabled; return }
        }
        if let v = try section.integer("ipv6_prefix_length", 32...128) { policy.ipv6PrefixLength = v }
        for (key, path, bucket) in ruleKeys {
            guard let value = section.values[key] else { continue }
            guard let list = value as? [Any] else {
                throw ConfigurationError(key: "rate_limits.\(key)", problem: "must be an array of {\"limit\", \"window_seconds\"} objects")
            }
            var rules: [RateLimitRule] = []
            for (index, item) in list.enumerated() {
                let name = "rate_limits.\(key)[\(index)]"
                guard let object = item as? [String: Any] else { throw ConfigurationError(key: name, problem: "must be an object") }
                for unknown in object.keys where unknown != "limit" && unknown != "window_seconds" {
                    throw ConfigurationError(key: "\(name).\(unknown)", problem: "unknown setting (expected limit, window_seconds)")
                }
                let rule = ConfigFile.Section(name: name, values: object)
                guard let limit = try rule.integer("limit", 1...1_000_000) else {
                    throw ConfigurationError(key: "\(name).limit", problem: "is required")
                }
                guard let window = try rule.integer("window_seconds", 1...(7 * 86_400)) else {
                    throw ConfigurationError(key: "\(name).window_seconds", problem: "is required")
                }
                rules.append(RateLimitRule(bucket: "\(bucket).\(index + 1)", limit: limit, window: TimeInterval(window)))
            }
            policy[keyPath: path] = rules
        }
    }
}
