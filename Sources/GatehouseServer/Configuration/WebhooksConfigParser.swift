import Foundation
import GatehouseIdentity

/// The `webhooks` array: `[{"url": "https://app.example/gatehouse/webhooks", "secret_env": "GATEHOUSE_WEBHOOK_SECRET",
/// "events": ["user.deleted", …]}]` (`secret` directly, or `secret_env`; `events` omitted: every event).
enum WebhooksConfigParser {
    static func parse(_ value: Any, environment: [String: String], allowPlainHTTP: (URL) -> Bool) throws(ConfigurationError) -> [WebhookEndpoint] {
        guard let list = value as? [Any] else { throw ConfigurationError(key: "webhooks", problem: "must be an array") }
        var endpoints: [WebhookEndpoint] = []
        for (index, entry) in list.enumerated() {
            let prefix = "webhooks[\(index)]"
            guard let object = entry as? [String: Any] else { throw ConfigurationError(key: prefix, problem: "must be an object") }
            for key in object.keys where !["url", "secret", "secret_env", "events"].contains(key) {
                throw ConfigurationError(key: "\(prefix).\(key)", problem: "unknown setting")
            }
            guard let text = object["url"] as? String, let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                  url.host != nil, scheme == "https" || (scheme == "http" && allowPlainHTTP(url)) else {
                throw ConfigurationError(key: "\(prefix).url", problem: "must be an https URL (http only for a loopback host)")
            }
            var secret = object["secret"] as? String
            if let name = object["secret_env"] {
                guard let name = name as? String, let fromEnvironment = environment[name], !fromEnvironment.isEmpty else {
                    throw ConfigurationError(key: "\(prefix).secret_env", problem: "must name a set, non-empty environment variable")
                }
                secret = fromEnvironment
            }
            guard let secret, secret.utf8.count >= 32 else {
                throw ConfigurationError(key: "\(prefix).secret", problem: "secret or secret_env is required, at least 32 characters (openssl rand -base64 32)")
            }
            var events = Set(AccountEventType.allCases)
            if let names = object["events"] {
                guard let names = names as? [String], !names.isEmpty else {
                    throw ConfigurationError(key: "\(prefix).events", problem: "must be a non-empty array of event names")
                }
                events = []
                for name in names {
                    guard let event = AccountEventType(rawValue: name) else {
                        throw ConfigurationError(key: "\(prefix).events", problem: "unknown event \(name) (known: "
                                                 + AccountEventType.allCases.map(\.rawValue).joined(separator: ", ") + ")")
                    }
                    events.insert(event)
                }
            }
            if endpoints.contains(where: { $0.url == url }) { throw ConfigurationError(key: "\(prefix).url", problem: "is listed twice") }
            endpoints.append(WebhookEndpoint(url: url, secret: secret, events: events))
        }
        return endpoints
    }

    /// Plain http is for the loopback host only (development and tests).
    static func isLoopback(_ url: URL) -> Bool {
        ["127.0.0.1", "::1", "[::1]", "localhost"].contains(url.host?.lowercased() ?? "")
    }
}
