import Foundation
import GatehouseCrypto
/// A token-endpoint request after client authentication: the grant's parameters, each present once.
public struct TokenRequest: Sendable {
    public let client: GatehouseStore.OAuthClient
    public let parameters: [String: String]
    public let context: ClientContext
    /// The request's verified DPoP proof, if it sent one.
    public let proof: DPoPProof?
    /// The registered API the request named with `resource` (RFC 8707 §2.2), already checked.
    public var resource: String?

    public init(client: GatehouseStore.OAuthClient, parameters: [String: String], context: ClientContext, proof: DPoPProof? = nil) {
        self.client = client; self.parameters = parameters; self.context = context; self.proof = proof
    }

    /// Points the access token at the requested API, and binds `grant`'s tokens to the request's DPoP key: the access token always, a new refresh family
    /// only for a public client (a confidential one proves itself with its secret, RFC 9449 §5).
    func bind(_ grant: inout TokenGrant) {
        grant.resource = resource
        guard let proof else { return }
        grant.accessTokenJKT = proof.thumbprint
        if client.kind == .public { grant.refreshTokenJKT = proof.thumbprint }
    }

    /// A required parameter, or `invalid_request` naming it.
    public func required(_ name: String) throws(OAuthError) -> String {
        guard let value = parameters[name], !value.isEmpty else { throw .invalidRequest("The \(name) parameter is missing.") }
        return value
    }

    /// Throws `unauthorized_client` unless the client may use `grant`.
    func requireGrant(_ grant: String) throws(OAuthError) {
        guard client.grantTypes.contains(grant) else {
            throw OAuthError(.unauthorizedClient, "This client is not allowed the \(grant) grant.")
        }
    }
}

import GatehouseStore

extension OAuthClient {
    /// The scopes this client may be granted: the OpenID ones plus those it was registered with.
    var allowedScopes: Set<String> { Scope.standard.union(scopes) }

    /// Validates a requested scope; an absent one means the client's defaults (`defaultScope`).
    /// Standard OpenID scopes Gatehouse does not support (`address`, `phone`) are dropped, as OIDC Core
    /// §5.4 lets a provider do; any other scope the client was not registered for is `invalid_scope`.
    func grantable(_ requested: String?, default defaultScope: Scope) throws(OAuthError) -> Scope {
        guard let parsed = Scope(parsing: requested) else { throw OAuthError(.invalidScope, "The scope parameter is malformed.") }
        let scope = Scope(parsed.values.filter { !Scope.unsupportedStandard.contains($0) })
        if scope.isEmpty { return defaultScope }
        let unknown = scope.values.filter { !allowedScopes.contains($0) }
        guard unknown.isEmpty else {
            throw OAuthError(.invalidScope, "This client may not ask for: \(unknown.joined(separator: " ")).")
        }
        return scope
    }

    /// Resource servers registered to introspect tokens of every client (`"introspect_any": true` in the
    /// client's metadata; the config file's `introspect_any`). Others see only their own tokens.
    public var mayIntrospectAnyToken: Bool {
        guard let data = metadata.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
        return object["introspect_any"] as? Bool == true
    }

    /// Clients allowed the admin API (`"admin": true` in the client's metadata; the config file's
    /// `admin`). Only they may be granted the `admin` scope.
    public var isAdmin: Bool {
        guard let data = metadata.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
        return object["admin"] as? Bool == true
    }

    /// Clients registered with `dpop_bound_access_tokens` (RFC 9449 §5.2): every token request must
    /// carry a DPoP proof, so none of their access tokens is a Bearer token.
    public var requiresDPoP: Bool {
        guard let data = metadata.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return false }
        return object[Self.dpopBoundAccessTokensKey] as? Bool == true
    }

    /// The metadata member (and the config file's client setting) of ``requiresDPoP``.
    public static let dpopBoundAccessTokensKey = "dpop_bound_access_tokens"

    /// Whether tokens for this grant include a refresh token.
    func receivesRefreshToken(for scope: Scope) -> Bool {
        grantTypes.contains("refresh_token") && (scope.contains(Scope.offlineAccess) || firstParty)
    }
}
