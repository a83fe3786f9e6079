import Foundation
import GatehouseCrypto
import GatehouseProviderSimulator

/// The `--config` JSON file: registered clients per provider.
enum ConfigFile {
    struct AppleEntry: Decodable {
        var client_id: String
        var team_id: String
        var key_id: String
        var p8_file: String?
        var public_jwk: JWK?
        var redirect_uris: [String]
    }

    struct SecretEntry: Decodable {
        var client_id: String
        var client_secret: String
        var redirect_uris: [String]
    }

    struct File: Decodable {
        var apple: [AppleEntry]?
        var google: [SecretEntry]?
        var github: [SecretEntry]?
        var google_issuer: String?
    }

    static func load(path: String, baseURL: String) throws -> ProviderSimulator.Configuration {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch { throw UsageError("cannot read \(path)") }
        let file: File
        do { file = try JSONDecoder().decode(File.self, from: data) } catch { throw UsageError("\(path) is not a valid config: \(error)") }
        let apple = try (file.apple ?? []).map { entry throws -> AppleClient in
            if let p8 = entry.p8_file {
                let pem = try String(contentsOfFile: p8, encoding: .utf8)
                return try AppleClient(clientID: entry.client_id, teamID: entry.team_id, keyID: entry.key_id, p8PEM: pem,
                                       redirectURIs: entry.redirect_uris)
            }
            guard let jwk = entry.public_jwk else { throw UsageError("apple client \(entry.client_id) needs p8_file or public_jwk") }
            return AppleClient(clientID: entry.client_id, teamID: entry.team_id, keyID: entry.key_id,
                               publicKey: try VerificationKey(jwk: jwk), redirectURIs: entry.redirect_uris)
        }
        return ProviderSimulator.Configuration(
            baseURL: baseURL, appleClients: apple,
            googleClients: (file.google ?? []).map { GoogleClient(clientID: $0.client_id, clientSecret: $0.client_secret, redirectURIs: $0.redirect_uris) },
            githubClients: (file.github ?? []).map { GitHubClient(clientID: $0.client_id, clientSecret: $0.client_secret, redirectURIs: $0.redirect_uris) },
            googleIssuer: file.google_issuer ?? GoogleSimulator.httpsIssuer)
    }
}

/// The demo's Gatehouse-side settings as one JSON line.
enum DemoSettingsJSON {
    static func render(_ demo: DemoSetup) -> String {
        let object: [String: JSONValue] = [
            "apple": .object([
                "client_id": .string(demo.apple.clientID), "team_id": .string(demo.apple.teamID), "key_id": .string(demo.apple.keyID),
                "private_key_pem": .string(demo.apple.privateKeyPEM), "issuer": .string(demo.apple.issuer),
                "authorization_endpoint": .string(demo.apple.authorizationEndpoint), "token_endpoint": .string(demo.apple.tokenEndpoint),
                "jwks_uri": .string(demo.apple.jwksURI), "revocation_endpoint": .string(demo.apple.revocationEndpoint),
                "redirect_uri": .string(demo.apple.redirectURI),
            ]),
            "google": .object([
                "client_id": .string(demo.google.clientID), "client_secret": .string(demo.google.clientSecret),
                "issuer": .string(demo.google.issuer), "discovery_url": .string(demo.google.discoveryURL),
                "authorization_endpoint": .string(demo.google.authorizationEndpoint), "token_endpoint": .string(demo.google.tokenEndpoint),
                "jwks_uri": .string(demo.google.jwksURI), "userinfo_endpoint": .string(demo.google.userinfoEndpoint),
                "redirect_uri": .string(demo.google.redirectURI),
            ]),
            "github": .object([
                "client_id": .string(demo.github.clientID), "client_secret": .string(demo.github.clientSecret),
                "authorization_endpoint": .string(demo.github.authorizationEndpoint), "token_endpoint": .string(demo.github.tokenEndpoint),
                "api_base_url": .string(demo.github.apiBaseURL), "redirect_uri": .string(demo.github.redirectURI),
            ]),
        ]
        return String(decoding: JSONValue.object(object).jsonBytes, as: UTF8.self)
    }
}
