import Foundation
import GatehouseCrypto
import GatehouseProviders

/// Reads the `providers` section:
///
/// ```json
/// "providers": {
///   "link_verified_emails": false, "timeout_seconds": 10,
///   "apple":  { "client_id": "com.example.web", "team_id": "ABCDE12345", "key_id": "KEY1234567",
///               "private_key_file": "/etc/gatehouse/AuthKey_KEY1234567.p8", "audiences": ["com.example.app"],
///               "account_delete": "delete", "endpoints": { "authorization": "…", "token": "…", "jwks": "…", "revocation": "…" } },
///   "google": { "client_id": "….apps.googleusercontent.com", "client_secret_env": "GOOGLE_SECRET", "hosted_domain": "example.com",
///               "discovery_url": "…", "endpoints": { "authorization": "…", "token": "…", "jwks": "…" } },
///   "github": { "client_id": "Ov23…", "client_secret_env": "GITHUB_SECRET",
///               "endpoints": { "authorization": "…", "token": "…", "api": "…" } },
///   "oidc": [ { "id": "okta", "name": "Okta", "issuer": "https://example.okta.com", "client_id": "…", "client_secret": "…",
///               "scopes": ["openid", "email", "profile"], "discovery_url": "…", "endpoints": { … }, "trusted_email": false } ],
///   "link_max_sign_in_age_seconds": 600
/// }
/// ```
/// Every error names the exact key (`providers.apple.team_id`).
enum ProvidersConfigParser {
    static func parse(_ value: Any, environment: [String: String], baseDirectory: String) throws(ConfigurationError) -> ProvidersConfiguration {
        let root = try Object(value, "providers", known: ["link_verified_emails", "timeout_seconds", "link_max_sign_in_age_seconds",
                                                          "apple", "google", "github", "oidc"])
        var result = ProvidersConfiguration()
        if let flag = try root.bool("link_verified_emails") { result.linkVerifiedEmails = flag }
        if let seconds = try root.integer("link_max_sign_in_age_seconds", 30...86_400) { result.linkMaxSignInAge = TimeInterval(seconds) }
        if let seconds = try root.integer("timeout_seconds", 1...120) { result.timeoutSeconds = seconds }
        if let apple = root.values["apple"] {
            let o = try Object(apple, "providers.apple", known: ["client_id", "team_id", "key_id", "private_key", "private_key_file",
                                                                 "audiences", "scopes", "account_delete", "endpoints"])
            var pem = try o.string("private_key")
            if let file = try o.string("private_key_file") {
                let path = file.hasPrefix("/") ? file : baseDirectory + "/" + file
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw ConfigurationError(key: "providers.apple.private_key_file", problem: "cannot read \(path)")
                }
                pem = String(decoding: data, as: UTF8.self)
            }
            guard let pem else {
                throw ConfigurationError(key: "providers.apple.private_key_file", problem: "is required (the .p8 key from Apple)")
            }
            var settings = AppleSettings(clientID: try o.required("client_id"), teamID: try o.required("team_id"),
                                         keyID: try o.required("key_id"), privateKeyPEM: pem, extraAudiences: try o.strings("audiences") ?? [])
            guard settings.teamID.count == 10 else { throw ConfigurationError(key: "providers.apple.team_id", problem: "must be Apple's 10-character team id") }
            guard (try? SigningKey(pem: pem)).map({ $0.algorithm == .es256 }) == true else {
                throw ConfigurationError(key: "providers.apple.private_key_file", problem: "must hold Apple's .p8 key (PKCS#8 PEM, P-256)")
            }
            if let scopes = try o.strings("scopes") { settings.scopes = scopes }
            if let endpoints = try o.object("endpoints", known: ["authorization", "token", "jwks", "revocation"]) {
                if let url = try endpoints.url("authorization") { settings.authorizationEndpoint = url }
                if let url = try endpoints.url("token") { settings.tokenEndpoint = url }
                if let url = try endpoints.url("jwks") { settings.jwksURI = url }
                if let url = try endpoints.url("revocation") { settings.revocationEndpoint = url }
            }
            if let policy = try o.string("account_delete") {
                guard let parsed = ProvidersConfiguration.AppleAccountDeletion(rawValue: policy) else {
                    throw ConfigurationError(key: "providers.apple.account_delete", problem: "must be \"delete\" or \"disable\"")
                }
                result.appleAccountDeletion = parsed
            }
            result.apple = settings
        }
        if let google = root.values["google"] {
            let o = try Object(google, "providers.google", known: ["client_id", "client_secret", "client_secret_env", "hosted_domain",
                                                                   "scopes", "discovery_url", "issuer", "endpoints"])
            let endpoints = try o.object("endpoints", known: ["authorization", "token", "jwks"])
            result.google = GoogleSettings.make(
                clientID: try o.required("client_id"), clientSecret: try o.secret(environment), hostedDomain: try o.string("hosted_domain"),
                scopes: try o.strings("scopes") ?? ["openid", "email", "profile"], discoveryURL: try o.url("discovery_url"),
                authorizationEndpoint: try endpoints?.url("authorization"), tokenEndpoint: try endpoints?.url("token"),
                jwksURI: try endpoints?.url("jwks"), issuer: try o.string("issuer") ?? GoogleSettings.issuer)
        }
        if let github = root.values["github"] {
            let o = try Object(github, "providers.github", known: ["client_id", "client_secret", "client_secret_env", "scopes", "endpoints"])
            var settings = GitHubSettings(clientID: try o.required("client_id"), clientSecret: try o.secret(environment))
            if let scopes = try o.strings("scopes") { settings.scopes = scopes }
            if let endpoints = try o.object("endpoints", known: ["authorization", "token", "api"]) {
                if let url = try endpoints.url("authorization") { settings.authorizationEndpoint = url }
                if let url = try endpoints.url("token") { settings.tokenEndpoint = url }
                if let url = try endpoints.url("api") { settings.apiBaseURL = url }
            }
            result.github = settings
        }
        if let list = root.values["oidc"] {
            guard let entries = list as? [Any] else { throw ConfigurationError(key: "providers.oidc", problem: "must be an array") }
            for (index, entry) in entries.enumerated() {
                let o = try Object(entry, "providers.oidc[\(index)]", known: ["id", "name", "issuer", "client_id", "client_secret",
                                                                              "client_secret_env", "scopes", "discovery_url", "audiences", "endpoints",
                                                                              "trusted_email"])
                let id = try o.required("id")
                if try o.bool("trusted_email") == true { result.oidcTrustedForEmail.insert(id) }
                guard id.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 45 }), id.count <= 32,
                      !["apple", "google", "github", "link"].contains(id) else {
                    throw ConfigurationError(key: "providers.oidc[\(index)].id",
                                             problem: "must be lower-case letters, digits and '-' (at most 32), and not apple, google or github")
                }
                guard !result.oidc.contains(where: { $0.id == id }) else {
                    throw ConfigurationError(key: "providers.oidc[\(index)].id", problem: "\"\(id)\" is used twice")
                }
                let issuer = try o.required("issuer")
                guard let issuerURL = URL(string: issuer), issuerURL.scheme == "https" || issuerURL.host == "127.0.0.1" || issuerURL.host == "localhost" else {
                    throw ConfigurationError(key: "providers.oidc[\(index)].issuer", problem: "must be an https URL (http only on loopback)")
                }
                let endpoints = try o.object("endpoints", known: ["authorization", "token", "jwks", "userinfo"])
                result.oidc.append(OIDCSettings(
                    id: id, displayName: try o.string("name") ?? id, issuer: issuer, clientID: try o.required("client_id"),
                    clientSecret: try o.secret(environment), scopes: try o.strings("scopes") ?? ["openid", "email", "profile"],
                    discoveryURL: try o.url("discovery_url"), authorizationEndpoint: try endpoints?.url("authorization"),
                    tokenEndpoint: try endpoints?.url("token"), jwksURI: try endpoints?.url("jwks"),
                    userinfoEndpoint: try endpoints?.url("userinfo"), extraAudiences: try o.strings("audiences") ?? []))
            }
        }
        return result
    }

    /// A JSON object with its dotted name, for errors naming the exact key.
    struct Object {
        let name: String
        let values: [String: Any]

        init(_ value: Any, _ name: String, known: Set<String>) throws(ConfigurationError) {
            guard let object = value as? [String: Any] else { throw ConfigurationError(key: name, problem: "must be an object") }
            for key in object.keys.sorted() where !known.contains(key) {
                throw ConfigurationError(key: "\(name).\(key)", problem: "unknown setting")
            }
            self.name = name
            self.values = object
        }

        func string(_ key: String) throws(ConfigurationError) -> String? {
            guard let value = values[key] else { return nil }
            guard let text = value as? String, !text.isEmpty else { throw ConfigurationError(key: "\(name).\(key)", problem: "must be a non-empty string") }
            return text
        }

        func required(_ key: String) throws(ConfigurationError) -> String {
            guard let text = try string(key) else { throw ConfigurationError(key: "\(name).\(key)", problem: "is required") }
            return text
        }

        func strings(_ key: String) throws(ConfigurationError) -> [String]? {
            guard let value = values[key] else { return nil }
            guard let list = value as? [String], list.allSatisfy({ !$0.isEmpty }) else {
                throw ConfigurationError(key: "\(name).\(key)", problem: "must be an array of non-empty strings")
            }
            return list
        }

        func bool(_ key: String) throws(ConfigurationError) -> Bool? {
            guard let value = values[key] else { return nil }
            guard let number = value as? NSNumber, String(cString: number.objCType) == "c" || type(of: number) == type(of: NSNumber(value: true)) else {
                throw ConfigurationError(key: "\(name).\(key)", problem: "must be true or false")
            }
            return number.boolValue
        }

        func integer(_ key: String, _ range: ClosedRange<Int>) throws(ConfigurationError) -> Int? {
            guard let value = values[key] else { return nil }
            guard let number = value as? Int, range.contains(number) else {
                throw ConfigurationError(key: "\(name).\(key)", problem: "must be an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return number
        }

        func url(_ key: String) throws(ConfigurationError) -> URL? {
            guard let text = try string(key) else { return nil }
            guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw ConfigurationError(key: "\(name).\(key)", problem: "must be an absolute http(s) URL")
            }
            return url
        }

        func object(_ key: String, known: Set<String>) throws(ConfigurationError) -> Object? {
            guard let value = values[key] else { return nil }
            return try Object(value, "\(name).\(key)", known: known)
        }

        /// `client_secret`, or the environment variable `client_secret_env` names.
        func secret(_ environment: [String: String]) throws(ConfigurationError) -> String {
            if let variable = try string("client_secret_env") {
                guard let secret = environment[variable], !secret.isEmpty else {
                    throw ConfigurationError(key: "\(name).client_secret_env", problem: "the environment variable \(variable) is not set")
                }
                return secret
            }
            guard let secret = try string("client_secret") else {
                throw ConfigurationError(key: "\(name).client_secret", problem: "is required (or client_secret_env)")
            }
            return secret
        }
    }
}
