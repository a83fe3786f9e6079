import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity

/// OpenID Connect discovery, RFC 8414 metadata and the JWKS.
struct DiscoveryRoutes: Sendable {
    let settings: OAuthSettings
    let keys: SigningKeyRing
    let corsOrigins: @Sendable () async -> Set<String>

    var metadata: [String: JSONValue] {
        let issuer = settings.issuer
        func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }
        return [
            "issuer": .string(issuer),
            "authorization_endpoint": .string(issuer + "/oauth/authorize"),
            "token_endpoint": .string(issuer + "/oauth/token"),
            "userinfo_endpoint": .string(issuer + "/oauth/userinfo"),
            "jwks_uri": .string(issuer + "/oauth/jwks"),
            "revocation_endpoint": .string(issuer + "/oauth/revoke"),
            "introspection_endpoint": .string(issuer + "/oauth/introspect"),
            "end_session_endpoint": .string(issuer + "/oauth/logout"),
            "scopes_supported": strings(Array(Scope.standard).sorted() + settings.apiScopes),
            "response_types_supported": strings(["code"]),
            "response_modes_supported": strings(["query"]),
            "grant_types_supported": strings(["authorization_code", "refresh_token", "password", "client_credentials"]),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings(["ES256"]),
            "token_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "revocation_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "introspection_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post"]),
            "code_challenge_methods_supported": strings(["S256"]),
            "claims_supported": strings(["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "amr", "azp",
                                         "email", "email_verified", "name", "preferred_username", "updated_at"]),
            "prompt_values_supported": strings(["none", "login", "consent"]),
            "authorization_response_iss_parameter_supported": .bool(true),
            "claims_parameter_supported": .bool(false),
            "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false),
        ]
    }

    func register(into router: inout Router) {
        let document = (try? JSONEncoder().encode(metadata)).map(Array.init) ?? []
        for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
            router.get(path) { [corsOrigins] request async in
                var response = Response.json(bytes: document)
                response.headers.set("Cache-Control", "public, max-age=300")
                OAuthResponses.allowCORS(&response, request: request, allowed: await corsOrigins())
                return response
            }
        }
        router.get("/oauth/jwks") { [keys, corsOrigins] request async throws in
            var response = Response.json(bytes: Array(try await keys.publicJWKS().jsonData()))
            response.headers.set("Content-Type", "application/jwk-set+json")
            response.headers.set("Cache-Control", "public, max-age=300")
            OAuthResponses.allowCORS(&response, request: request, allowed: await corsOrigins())
            return response
        }
    }
}
