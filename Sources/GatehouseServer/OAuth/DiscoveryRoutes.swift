import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import Synchronization

/// OpenID Connect discovery, RFC 8414 metadata and the JWKS.
struct DiscoveryRoutes: Sendable {
    let settings: OAuthSettings
    let keys: SigningKeyRing
    /// Grant types some registered client may use (discovery lists only those).
    var clientGrants: @Sendable () async -> Set<String> = { ClientRegistry.supportedGrants }

    /// The grants to advertise: `authorization_code` always (the flow of every OpenID provider, and
    /// what a client registered later will use), the others only when some registered client may use them.
    static func advertisedGrants(_ clientGrants: Set<String>) -> [String] {
        ["authorization_code", "refresh_token", "password", "client_credentials", "urn:ietf:params:oauth:grant-type:token-exchange"]
            .filter { $0 == "authorization_code" || clientGrants.contains($0) }
    }

    func metadata(grants: Set<String>) -> [String: JSONValue] {
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
            "grant_types_supported": strings(Self.advertisedGrants(grants)),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings(ClientMetadata.idTokenSigningAlgorithms.map(\.rawValue)),
            "token_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "revocation_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post", "none"]),
            "introspection_endpoint_auth_methods_supported": strings(["client_secret_basic", "client_secret_post"]),
            "code_challenge_methods_supported": strings(["S256"]),
            "claims_supported": strings(["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "at_hash", "amr", "acr", "azp",
                                         "email", "email_verified", "name", "preferred_username", "updated_at", "sid",
                                         "external_id"]),
            // OpenID Connect Back-Channel Logout 1.0 §2.1: logout tokens carry `sid` (and ID tokens do too).
            "backchannel_logout_supported": .bool(true),
            "backchannel_logout_session_supported": .bool(true),
            "prompt_values_supported": strings(["none", "login", "consent"]),
            "authorization_response_iss_parameter_supported": .bool(true),
            // Only an essential `acr` request is read from `claims` (step-up); scopes release the other claims.
            "claims_parameter_supported": .bool(true),
            "acr_values_supported": strings(AuthenticationLevel.supported),
            "request_parameter_supported": .bool(false),
            "request_uri_parameter_supported": .bool(false),
            // RFC 9449 §5.1: the algorithms a DPoP proof may be signed with.
            // RFC 9126 §5.
            "pushed_authorization_request_endpoint": .string(issuer + "/oauth/par"),
            "require_pushed_authorization_requests": .bool(settings.requirePushedAuthorizationRequests),
            "dpop_signing_alg_values_supported": strings(DPoPVerifier.algorithms.map(\.rawValue)),
        ]
    }

    func register(into router: inout Router) {
        let documents = DiscoveryDocumentCache()
        for path in ["/.well-known/openid-configuration", "/.well-known/oauth-authorization-server"] {
            router.get(path, head: .servedByGet) { [clientGrants] _ async in
                let grants = await clientGrants()
                let document = documents.document(for: grants) { (try? JSONEncoder().encode(metadata(grants: grants))).map(Array.init) ?? [] }
                var response = Response.json(bytes: document)
                response.headers.set("Cache-Control", "public, max-age=300")
                return response
            }
        }
        router.get("/oauth/jwks", head: .servedByGet) { [keys] _ async throws in
            var response = Response.json(bytes: Array(try await keys.publicJWKS().jsonData()))
            response.headers.set("Content-Type", "application/jwk-set+json")
            response.headers.set("Cache-Control", "public, max-age=300")
            return response
        }
    }
}

/// The encoded discovery document for the last grant set seen (it changes only when clients do).
final class DiscoveryDocumentCache: Sendable {
    private let last = Mutex<(grants: Set<String>, bytes: [UInt8])?>(nil)

    func document(for grants: Set<String>, make: () -> [UInt8]) -> [UInt8] {
        if let cached = last.withLock({ $0 }), cached.grants == grants { return cached.bytes }
        let bytes = make()
        last.withLock { $0 = (grants, bytes) }
        return bytes
    }
}
