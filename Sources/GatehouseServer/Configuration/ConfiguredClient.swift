import Foundation
import GatehouseIdentity
import GatehouseStore

/// A client from the `clients` array of the configuration file (Dex-style static clients). Its secret,
/// if any, is given in the file (or by the environment variable `secret_env` names) and stored hashed.
public struct ConfiguredClient: Sendable {
    public var registration: ClientRegistration
    public var secret: String?

    public init(registration: ClientRegistration, secret: String?) { self.registration = registration; self.secret = secret }

    static func parse(_ value: Any, index: Int, environment: [String: String]) throws(ConfigurationError) -> ConfiguredClient {
        let prefix = "clients[\(index)]"
        guard let object = value as? [String: Any] else { throw ConfigurationError(key: prefix, problem: "must be an object") }
        let known: Set = ["id", "name", "type", "secret", "secret_env", "redirect_uris", "post_logout_redirect_uris", "grants",
                          "scopes", "first_party", "allow_localhost", "web_origins", "native", "introspect_any",
                          "id_token_signed_response_alg", "refresh_id_token", "admin", "backchannel_logout_uri", "backchannel_logout_session_required",
                          OAuthClient.dpopBoundAccessTokensKey, PushedAuthorizationRequests.requiredKey, AuthenticationLevel.requireMFAKey]
        for key in object.keys where !known.contains(key) {
            throw ConfigurationError(key: "\(prefix).\(key)", problem: "unknown setting")
        }
        func string(_ key: String) throws(ConfigurationError) -> String? {
            guard let value = object[key] else { return nil }
            guard let text = value as? String, !text.isEmpty else { throw ConfigurationError(key: "\(prefix).\(key)", problem: "must be a non-empty string") }
            return text
        }
        func strings(_ key: String) throws(ConfigurationError) -> [String]? {
            guard let value = object[key] else { return nil }
            guard let list = value as? [String] else { throw ConfigurationError(key: "\(prefix).\(key)", problem: "must be an array of strings") }
            return list
        }
        func flag(_ key: String) throws(ConfigurationError) -> Bool {
            guard let value = object[key] else { return false }
            guard let flag = value as? Bool else { throw ConfigurationError(key: "\(prefix).\(key)", problem: "must be true or false") }
            return flag
        }
        guard let id = try string("id") else { throw ConfigurationError(key: "\(prefix).id", problem: "is required") }
        let kind: OAuthClient.Kind
        switch try string("type") ?? "public" {
        case "public": kind = .public
        case "confidential": kind = .confidential
        default: throw ConfigurationError(key: "\(prefix).type", problem: "must be public or confidential")
        }
        var secret = try string("secret")
        if let variable = try string("secret_env") {
            guard let fromEnvironment = environment[variable], !fromEnvironment.isEmpty else {
                throw ConfigurationError(key: "\(prefix).secret_env", problem: "the environment variable \(variable) is not set")
            }
            secret = fromEnvironment
        }
        if kind == .confidential, secret == nil {
            throw ConfigurationError(key: "\(prefix).secret", problem: "a confidential client needs secret or secret_env")
        }
        if kind == .public, secret != nil { throw ConfigurationError(key: "\(prefix).secret", problem: "public clients have no secret") }
        if let secret, secret.utf8.count < 32 {
            throw ConfigurationError(key: "\(prefix).secret", problem: "must be at least 32 characters (e.g. openssl rand -base64 32)")
        }
        var metadata = "{}"
        if let native = object["native"] { metadata = try NativeConfigParser.parse(native, key: "\(prefix).native") }
        if let algorithm = try string("id_token_signed_response_alg") {
            guard ["RS256", "ES256"].contains(algorithm) else {
                throw ConfigurationError(key: "\(prefix).id_token_signed_response_alg", problem: "must be RS256 or ES256")
            }
            metadata = ClientMetadata.setting(ClientMetadata.idTokenSigningAlgorithmKey, to: algorithm, in: metadata)
        }
        // Refresh responses without a new ID token (OIDC Core §12.2; docs/refresh-grant.md).
        if object["refresh_id_token"] != nil {
            guard let flag = object["refresh_id_token"] as? Bool else {
                throw ConfigurationError(key: "\(prefix).refresh_id_token", problem: "must be true or false")
            }
            metadata = ClientMetadata.setting(ClientMetadata.refreshIDTokenKey, to: flag, in: metadata)
        }
        // A resource server that may introspect tokens of every client (others see only their own).
        if try flag("introspect_any") {
            var object = (try? JSONSerialization.jsonObject(with: Data(metadata.utf8)) as? [String: Any]) ?? [:]
            object["introspect_any"] = true
            metadata = String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8),
                              as: UTF8.self)
        }
        // RFC 9449 §5.2: every token request of this client must carry a DPoP proof.
        if try flag(OAuthClient.dpopBoundAccessTokensKey) {
            metadata = ClientMetadata.setting(OAuthClient.dpopBoundAccessTokensKey, to: true, in: metadata)
        }
        // RFC 9126 §6: this client's authorization requests come only through the PAR endpoint.
        if try flag(PushedAuthorizationRequests.requiredKey) {
            metadata = ClientMetadata.setting(PushedAuthorizationRequests.requiredKey, to: true, in: metadata)
        }
        // Every sign-in for this client is multi-factor: a password-only session steps up first.
        if try flag(AuthenticationLevel.requireMFAKey) {
            metadata = ClientMetadata.setting(AuthenticationLevel.requireMFAKey, to: true, in: metadata)
        }
        // A client of the admin API (`/admin/v1/`): confidential, and only it may be granted `admin`.
        if try flag("admin") {
            guard kind == .confidential else { throw ConfigurationError(key: "\(prefix).admin", problem: "admin clients must be confidential") }
            var object = (try? JSONSerialization.jsonObject(with: Data(metadata.utf8)) as? [String: Any]) ?? [:]
            object["admin"] = true
            metadata = String(decoding: (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8),
                              as: UTF8.self)
        }
        // OpenID Connect Back-Channel Logout 1.0 §2.2: where logout tokens go, and whether each must carry a `sid`.
        if let text = try string("backchannel_logout_uri") {
            guard let uri = URL(string: text), let scheme = uri.scheme?.lowercased(), uri.host != nil, uri.fragment == nil,
                  scheme == "https" || (scheme == "http" && WebhooksConfigParser.isLoopback(uri)) else {
                throw ConfigurationError(key: "\(prefix).backchannel_logout_uri",
                                         problem: "must be an absolute https URL without a fragment (http only for a loopback host)")
            }
            metadata = ClientMetadata.setting(BackchannelLogoutRegistration.uriKey, to: text, in: metadata)
            metadata = ClientMetadata.setting(BackchannelLogoutRegistration.sessionRequiredKey,
                                              to: try flag("backchannel_logout_session_required"), in: metadata)
        } else if object["backchannel_logout_session_required"] != nil {
            throw ConfigurationError(key: "\(prefix).backchannel_logout_session_required", problem: "needs backchannel_logout_uri")
        }
        let registration = ClientRegistration(
            id: id, name: try string("name") ?? id, kind: kind, redirectURIs: try strings("redirect_uris") ?? [],
            postLogoutRedirectURIs: try strings("post_logout_redirect_uris") ?? [],
            grantTypes: try strings("grants") ?? ["authorization_code", "refresh_token"], scopes: try strings("scopes") ?? [],
            firstParty: try flag("first_party"), allowLocalhost: try flag("allow_localhost"), webOrigins: try strings("web_origins") ?? [],
            metadata: metadata)
        return ConfiguredClient(registration: registration, secret: secret)
    }
}
