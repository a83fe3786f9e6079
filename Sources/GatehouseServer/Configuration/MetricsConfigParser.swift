import GatehouseHTTPServer

/// The `metrics` section: `{ "listen": "127.0.0.1:9464", "bearer_token_env": "GATEHOUSE_METRICS_TOKEN" }`.
enum MetricsConfigParser {
    static let knownKeys: Set<String> = ["listen", "bearer_token_env"]

    static func apply(_ section: ConfigFile.Section, environment: [String: String],
                      to settings: inout MetricsSettings) throws(ConfigurationError) {
        if let value = section.values["listen"] {
            guard let text = value as? String, let address = ListenAddress(parsing: text) else {
                throw ConfigurationError(key: "metrics.listen", problem: "must be a numeric address and port such as 127.0.0.1:9464")
            }
            settings.listen = address
        }
        if let value = section.values["bearer_token_env"] {
            // A secret, so only by environment variable (the file is often readable by more people than the key).
            guard let name = value as? String, let token = environment[name],
                  token.utf8.count >= MetricsSettings.minimumTokenLength, !token.contains(where: \.isWhitespace) else {
                throw ConfigurationError(key: "metrics.bearer_token_env",
                                         problem: "must name a set environment variable holding at least \(MetricsSettings.minimumTokenLength) characters without spaces")
            }
            settings.bearerToken = token
        }
    }
}
