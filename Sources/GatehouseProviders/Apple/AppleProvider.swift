import Foundation
import GatehouseCrypto

/// Sign in with Apple (web): `response_mode=form_post` (a cross-site POST callback), a client-secret JWT
/// per request, the id_token from the token endpoint verified RS256 against Apple's JWKS, Apple's
/// string booleans, the first-authorization `user` JSON for the name, and the refresh token kept for revocation.
public struct AppleProvider: SignInProvider {
    public let settings: AppleSettings
    public var id: String { "apple" }
    public var displayName: String { "Apple" }
    public var kind: ProviderKind { .apple }
    public var callbackMethod: CallbackMethod { .formPost }
    let transport: any ProviderTransport
    let secret: AppleClientSecret
    let validator: IDTokenValidator
    let clock: @Sendable () -> Date

    public init(settings: AppleSettings, transport: any ProviderTransport, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.settings = settings
        self.transport = transport
        self.clock = clock
        secret = try AppleClientSecret(settings: settings)
        validator = IDTokenValidator(jwksURI: settings.jwksURI, issuers: [AppleSettings.issuer],
                                     audiences: Set([settings.clientID] + settings.extraAudiences), transport: transport, clock: clock)
    }

    public func authorizationURL(state: String, flow: ProviderFlow) async throws -> URL {
        var fields = [("response_type", "code"), ("client_id", settings.clientID), ("redirect_uri", flow.redirectURI),
                      ("state", state), ("nonce", flow.nonce)]
        if !settings.scopes.isEmpty {
            // Asking for name or email requires form_post (Apple refuses query mode then).
            fields += [("scope", settings.scopes.joined(separator: " ")), ("response_mode", "form_post")]
        }
        return FormEncoding.url(settings.authorizationEndpoint, adding: fields)
    }

    public func completeSignIn(callback: [String: String], flow: ProviderFlow) async throws -> ExternalProfile {
        let code = try authorizationCode(callback)
        let tokens = try await transport.json(.form(settings.tokenEndpoint, [
            ("client_id", settings.clientID), ("client_secret", try secret.mint(now: clock())), ("code", code),
            ("grant_type", "authorization_code"), ("redirect_uri", flow.redirectURI),
        ]))
        guard let idToken = tokens["id_token"]?.stringValue else { throw ProviderError.invalidToken(.noIDToken) }
        let claims = try await validate(idToken, nonce: flow.nonce)
        let email: String?, verified: Bool, relay: Bool
        do {
            email = try claims.string("email")
            verified = try claims.boolean("email_verified") ?? false
            relay = try claims.boolean("is_private_email") ?? (email?.hasSuffix("@privaterelay.appleid.com") ?? false)
        } catch { throw ProviderError.invalidToken(.claims) }
        return ExternalProfile(provider: id, subject: claims.subject ?? "", email: email?.lowercased(), emailVerified: verified,
                               isPrivateRelay: relay, name: Self.name(fromUserJSON: callback["user"]), rawClaims: claims.all,
                               refreshToken: tokens["refresh_token"]?.stringValue)
    }

    /// Verifies an Apple id_token; enforces the nonce when Apple says it supports one (`nonce_supported`).
    func validate(_ idToken: String, nonce: String) async throws -> JWTClaims {
        // Peek at nonce_supported before full verification only to choose the rule; the token is verified either way.
        let unverified = (try? CompactJWS(idToken)).flatMap { try? JWTClaims(json: $0.payload) }
        let supported = unverified?.all["nonce_supported"].flatMap(BooleanClaim.init)?.value ?? true
        let present = unverified?.all["nonce"] != nil
        return try await validator.validate(idToken, expectedNonce: supported || present ? nonce : nil)
    }

    /// "Ada Lovelace" from Apple's first-authorization `user` field (a JSON *string*), if any.
    static func name(fromUserJSON json: String?) -> String? {
        guard let json, json.utf8.count <= 4096, case .object(let user)? = JSONValue(parsing: Array(json.utf8)),
              case .object(let name)? = user["name"] else { return nil }
        let full = [name["firstName"]?.stringValue, name["lastName"]?.stringValue].compactMap { $0 }
            .filter { !$0.isEmpty }.joined(separator: " ")
        return full.isEmpty ? nil : String(full.prefix(200))
    }

    /// Revokes a refresh token at Apple as the client it was issued to, then checks that it really is dead.
    ///
    /// Apple answers 200 to a revoke sent by another client of the same team (the web Services ID for a
    /// token a native app got) and leaves the token alive, so a 200 proves nothing. `clientIDs` lists the
    /// recorded client first, then the team's other clients (``candidateClientIDs``): the token is revoked
    /// as each — harmless for the others — and then every one of them must refuse to refresh it
    /// (`invalid_grant`). A token that still refreshes is ``ProviderError/providerError(_:)`` `not_revoked`:
    /// a failure to retry, never a success.
    public func revoke(refreshToken: String, clientIDs: [String]) async throws {
        var clients: [String] = []
        for client in clientIDs where !clients.contains(client) { clients.append(client) }
        if clients.isEmpty { clients = [settings.clientID] }
        for client in clients {
            let response = try await transport.exchange(.form(settings.revocationEndpoint, [
                ("client_id", client), ("client_secret", try clientSecret(for: client).mint(now: clock())), ("token", refreshToken),
                ("token_type_hint", "refresh_token"),
            ]))
            guard response.status == 200 else {
                throw response.status >= 500 ? ProviderError.unavailable("revoke answered HTTP \(response.status)")
                    : ProviderError.providerError(response.jsonObject?["error"]?.stringValue ?? "http_\(response.status)")
            }
        }
        for client in clients {
            let check = try await transport.exchange(.form(settings.tokenEndpoint, [
                ("client_id", client), ("client_secret", try clientSecret(for: client).mint(now: clock())),
                ("grant_type", "refresh_token"), ("refresh_token", refreshToken),
            ]))
            switch check.status {
            case 200: throw ProviderError.providerError("not_revoked")
            case 400 where check.jsonObject?["error"]?.stringValue == "invalid_grant": continue
            case 500...: throw ProviderError.unavailable("revocation check answered HTTP \(check.status)")
            default: throw ProviderError.providerError("unconfirmed_\(check.jsonObject?["error"]?.stringValue ?? "http_\(check.status)")")
            }
        }
    }

    /// Revokes as the web Services ID only (tokens from the web flow).
    public func revoke(refreshToken: String) async throws {
        try await revoke(refreshToken: refreshToken, clientIDs: [settings.clientID])
    }

    /// The client-secret minter for `clientID`: the configured one for the Services ID, else one whose
    /// `sub` is that bundle id (same team and key, as Apple requires for native apps).
    func clientSecret(for clientID: String) throws -> AppleClientSecret {
        guard clientID != settings.clientID else { return secret }
        var appSettings = settings
        appSettings.clientID = clientID
        return try AppleClientSecret(settings: appSettings)
    }

    /// The client ids a token of unknown origin may belong to (rows stored before the client was recorded).
    public var candidateClientIDs: [String] { [settings.clientID] + settings.extraAudiences.filter { $0 != settings.clientID } }
}
