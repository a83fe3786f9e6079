import Foundation
import GatehouseCrypto
import GatehouseStore
import Synchronization

/// Who and what a set of tokens is for.
public struct TokenGrant: Sendable {
    public var client: OAuthClient
    /// nil for client-credentials tokens (the client acts for itself).
    public var user: User?
    public var scope: Scope
    public var authTime: Date?
    public var authMethods: [String]
    public var nonce: String?
    /// The refresh family the tokens belong to (new for a fresh grant, the old one on refresh).
    public var familyId: String
    public var issueRefreshToken: Bool
    /// The family's end when refreshing (rotation never extends it); nil for a new family.
    public var familyExpiresAt: Date?
    /// The tokens continue a browser sign-in (a code, or a refresh family started by one): the ID token
    /// carries that session's `sid` (Back-Channel Logout 1.0 §2.1), derived from the user and `authTime`.
    public var sessionBound = false
    /// The ID token carries the user's `external_id` (sign-ins through the code flow; refreshes skip the
    /// extra read on their hot path, and userinfo always has it).
    public var releasesProductUserId = false
    /// An `openid` scope gets an ID token; false leaves it out (refreshes of clients registered with
    /// `refresh_id_token: false`, OpenID Connect Core §12.2).
    public var issuesIDToken = true
    /// The thumbprint of the DPoP key the access token is bound to (`cnf.jkt`, RFC 9449 §6); nil: Bearer.
    public var accessTokenJKT: String?
    /// The DPoP key the refresh family is bound to (public clients, RFC 9449 §5); nil: not bound.
    public var refreshTokenJKT: String?
    /// The API the access token is for (`resource`, RFC 8707); nil: the server's `accessTokenAudience`.
    public var resource: String?
    /// The APIs the grant's authorization named (RFC 8707), kept with the refresh family; empty: any registered API.
    public var authorizedResources: [String] = []

    public init(client: OAuthClient, user: User?, scope: Scope, authTime: Date?, authMethods: [String], nonce: String? = nil,
                familyId: String = RecordID.random(), issueRefreshToken: Bool, familyExpiresAt: Date? = nil) {
        self.client = client; self.user = user; self.scope = scope; self.authTime = authTime; self.authMethods = authMethods
        self.nonce = nonce; self.familyId = familyId; self.issueRefreshToken = issueRefreshToken; self.familyExpiresAt = familyExpiresAt
    }
}

/// Counts signatures (shared by copies of an issuer).
final class SignatureTally: Sendable {
    let count = Atomic<Int>(0)
}

/// An issue checked and keyed, not yet signed (``TokenIssuer/prepare(_:refreshValue:)``).
struct PreparedIssue: Sendable {
    let grant: TokenGrant
    let now: Date
    let key: GatehouseCrypto.SigningKey
    /// The ID token's key, when the grant gets an ID token.
    let idKey: GatehouseCrypto.SigningKey?
    /// Claims the ID token adds to the standard ones (`sid`, `external_id`), read before the claim.
    let idTokenExtra: [String: JSONValue]
    let refreshValue: String?
    /// The new refresh token's row (stored by the caller, or by `rotate`).
    let refreshRecord: RefreshToken?

    /// The same issue with one extra ID-token claim left out.
    func removingIDTokenClaim(_ name: String) -> PreparedIssue {
        var extra = idTokenExtra
        extra[name] = nil
        return PreparedIssue(grant: grant, now: now, key: key, idKey: idKey, idTokenExtra: extra, refreshValue: refreshValue,
                             refreshRecord: refreshRecord)
    }
}

/// The keys one issue signs with (``TokenIssuer/signingKeys(for:openID:)``).
struct IssueKeys: Sendable {
    let accessToken: GatehouseCrypto.SigningKey
    /// nil when the issue has no ID token.
    let idToken: GatehouseCrypto.SigningKey?
}

/// Mints access tokens (RFC 9068 JWTs, ES256), ID tokens (RS256, or the client's `id_token_signed_response_alg`)
/// and refresh tokens, signed with the key ring's current key of each algorithm.
public struct TokenIssuer: Sendable {
    public let settings: OAuthSettings
    let keys: SigningKeyRing
    let refreshTokens: any RefreshTokenStore
    let clock: IdentityClock
    /// Derives a rotated refresh token's successor from the token itself (``successor(of:)``).
    let successorKey: [UInt8]
    /// Remembered consents: external sign-ins for third-party clients need one (no page to ask on).
    let consents: (any ConsentStore)?
    private let signatures = SignatureTally()

    /// JWTs this issuer has signed since it was made: the signing work done, for diagnostics and for
    /// the tests that prove a refused refresh signs nothing.
    public var signaturesMade: Int { signatures.count.load(ordering: .relaxed) }
    /// Derives the `sid` claim of session-bound ID tokens; nil: no `sid`.
    public var sids: SessionIdentifier?
    /// The product's own ids of imported users (`users.external_id`), released as the `external_id` claim.
    public var productUserIds: (any UserImportStore)?

    /// `successorKey` must be the same in every process sharing the database (derive it from the server secret).
    public init(settings: OAuthSettings, keys: SigningKeyRing, refreshTokens: any RefreshTokenStore, clock: IdentityClock = .system,
                successorKey: [UInt8] = SecureRandom.bytes(32), consents: (any ConsentStore)? = nil) {
        self.settings = settings; self.keys = keys; self.refreshTokens = refreshTokens; self.clock = clock
        self.successorKey = successorKey; self.consents = consents
    }

    /// Reads a presented refresh token, checking a family token's MAC with the server key.
    func refreshValue(_ value: String) -> RefreshTokenValue { RefreshTokenValue.parse(value, macKey: successorKey) }

    /// The refresh token that replaces `token` when it is rotated, derived so the same token always has the
    /// same successor (a retry inside the grace window gets the token the first rotation made, never a
    /// second branch): a family token's next generation; for an opaque token, the first generation of a
    /// family token whose key is HMAC-SHA-256 of it under a server key (the family moves to the one-row
    /// format on its next refresh). Nobody without the key can compute either. nil for a forged value.
    func successor(of token: RefreshTokenValue) -> String? {
        switch token {
        case .family(let key, let generation):
            return RefreshTokenValue.family(key: key, generation: generation + 1, macKey: successorKey)
        case .opaque(let value):
            let key = HMACSHA256.authenticationCode(for: Array("gatehouse/refresh-successor/\(value)".utf8), key: successorKey)
            return RefreshTokenValue.family(key: Base64URL.encode(key.prefix(16)), generation: 0, macKey: successorKey)
        case .forged:
            return nil
        }
    }

    /// Issues tokens for a grant; `replacing` is the refresh token being rotated, whose store row the
    /// caller has already rotated (the new refresh token is passed back to be stored by `rotate`).
    /// `refreshValue` fixes the refresh token's value (rotation passes the derived successor).
    public func issue(_ grant: TokenGrant, storeRefreshToken: Bool = true, refreshValue fixedRefreshValue: String? = nil) async throws
        -> (response: TokenResponse, refresh: RefreshToken?) {
        let prepared = try await prepare(grant, refreshValue: fixedRefreshValue)
        if storeRefreshToken, let record = prepared.refreshRecord { try await refreshTokens.create(record) }
        return (try sign(prepared), prepared.refreshRecord)
    }

    /// Everything of an issue that can fail or wait, before any signature: the account's standing, the
    /// signing keys, and the new refresh token. Rotation claims the presented token between this and
    /// ``sign(_:)``, so no signature is made for a token that turns out to be reused or already rotated,
    /// and signing, which only computes, cannot fail for want of a key after the claim.
    func prepare(_ grant: TokenGrant, refreshValue fixedRefreshValue: String? = nil) async throws -> PreparedIssue {
        let keys = try await signingKeys(for: grant.client,
                                         openID: grant.issuesIDToken && grant.scope.contains(Scope.openID) && grant.user != nil)
        var extra: [String: JSONValue] = [:]
        if keys.idToken != nil, grant.releasesProductUserId, let user = grant.user,
           let productUserId = try await productUserIds?.productUserId(userId: user.id) {
            extra["external_id"] = .string(productUserId)
        }
        return try prepare(grant, keys: keys, extra: extra, refreshValue: fixedRefreshValue)
    }

    /// The keys an issue for `client` signs with: the access-token key, and the ID-token key when
    /// `openID` (the client's `id_token_signed_response_alg`). Cached by the key ring, so this only
    /// waits when the ring reloads; fetched before a rotation so nothing after the claim can want a key.
    /// `idTokenKeyRequired: false` (a refresh, whose scope is not read yet): a missing ID-token key is nil
    /// instead of an error, and ``prepare(_:keys:extra:refreshValue:)`` fails if the scope turns out to need it.
    func signingKeys(for client: OAuthClient, openID: Bool, idTokenKeyRequired: Bool = true) async throws -> IssueKeys {
        let key = try await keys.signingKey()
        guard openID else { return IssueKeys(accessToken: key, idToken: nil) }
        let algorithm = client.idTokenSigningAlgorithm
        if algorithm == key.algorithm { return IssueKeys(accessToken: key, idToken: key) }
        guard idTokenKeyRequired else { return IssueKeys(accessToken: key, idToken: try? await keys.signingKey(algorithm)) }
        return IssueKeys(accessToken: key, idToken: try await keys.signingKey(algorithm))
    }

    /// The synchronous part of ``prepare(_:refreshValue:)``, with the keys (and any extra ID-token claims
    /// that needed a read) already at hand: it only computes, so it may run inside a store's rotation
    /// (``RefreshTokenStore/exchange(hash:now:graceWindow:prepare:)``).
    func prepare(_ grant: TokenGrant, keys: IssueKeys, extra readClaims: [String: JSONValue] = [:],
                 refreshValue fixedRefreshValue: String? = nil) throws -> PreparedIssue {
        // Every grant ends here: an account whose email is unproven (or that is disabled) gets no tokens
        // (AccountStanding).
        if let user = grant.user {
            do { try AccountStanding.requireTokenIssuance(user) } catch { throw OAuthError.invalidGrant(error.message) }
            // The admin API trusts the client-credentials claim, but a user's token never says `admin` either
            // (a refresh family granted it before this rule cannot carry it on).
            guard !grant.scope.contains(Scope.admin) else {
                throw OAuthError(.invalidScope, "The admin scope is granted only to a client acting for itself (client_credentials).")
            }
        }
        let now = clock.now()
        var idKey: GatehouseCrypto.SigningKey?
        var extra = readClaims
        if grant.issuesIDToken, grant.scope.contains(Scope.openID), let user = grant.user {
            guard let key = keys.idToken else { throw OAuthError(.serverError, "No ID-token key was fetched.") }
            idKey = key
            if grant.sessionBound, let sids, let authTime = grant.authTime {
                extra["sid"] = .string(sids.sid(userId: user.id, signedInAt: authTime))
            }
        }
        var refreshValue: String?
        var refreshRecord: RefreshToken?
        if grant.issueRefreshToken, let user = grant.user {
            // A new grant's token names a new family row at its first generation.
            let value = fixedRefreshValue
                ?? RefreshTokenValue.family(key: SecureRandom.token(byteCount: 16), generation: 0, macKey: successorKey)
            refreshRecord = RefreshToken(hash: RefreshTokenValue.storageHash(of: value), familyId: grant.familyId, clientId: grant.client.id,
                                         userId: user.id, scope: grant.scope.description, authTime: grant.authTime ?? now,
                                         authMethods: grant.authMethods, createdAt: now,
                                         expiresAt: grant.familyExpiresAt ?? now.addingTimeInterval(settings.refreshTokenLifetime),
                                         dpopJKT: grant.refreshTokenJKT, resources: grant.authorizedResources,
                                         generation: RefreshTokenValue.generation(of: value))
            refreshValue = value
        }
        return PreparedIssue(grant: grant, now: now, key: keys.accessToken, idKey: idKey, idTokenExtra: extra,
                             refreshValue: refreshValue, refreshRecord: refreshRecord)
    }

    /// Signs the access token (and the ID token when the scope has `openid`) of a prepared issue.
    func sign(_ prepared: PreparedIssue) throws -> TokenResponse {
        let grant = prepared.grant
        let accessToken = try accessTokenJWT(grant, key: prepared.key, now: prepared.now)
        var idToken: String?
        if let idKey = prepared.idKey, let user = grant.user {
            idToken = try idTokenJWT(grant, user: user, accessToken: accessToken, key: idKey, now: prepared.now,
                                     extra: prepared.idTokenExtra)
        }
        return TokenResponse(accessToken: accessToken, expiresIn: Int(settings.accessTokenLifetime),
                             refreshToken: prepared.refreshValue, idToken: idToken, scope: grant.scope.description,
                             tokenType: grant.accessTokenJKT == nil ? "Bearer" : "DPoP")
    }

    func accessTokenJWT(_ grant: TokenGrant, key: GatehouseCrypto.SigningKey, now: Date) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(settings.issuer), "sub": .string(grant.user?.id ?? grant.client.id),
            "aud": .string(grant.resource ?? settings.accessTokenAudience), "client_id": .string(grant.client.id),
            "scope": .string(grant.scope.description), "iat": .integer(Int64(now.timeIntervalSince1970)),
            "exp": .integer(Int64(now.timeIntervalSince1970 + settings.accessTokenLifetime)),
            "jti": .string(RecordID.random()), "fid": .string(grant.familyId),
        ]
        // The client acts for itself: the claim no user's token carries, whatever its `sub` (an imported user's id
        // may equal a client's id under `users.subject_source: external_id`).
        if grant.user == nil { claims[AccessTokenClaims.grantTypeClaim] = .string(AccessTokenClaims.clientCredentialsGrantType) }
        if let authTime = grant.authTime { claims["auth_time"] = .integer(Int64(authTime.timeIntervalSince1970)) }
        if let jkt = grant.accessTokenJKT { claims["cnf"] = .object(["jkt": .string(jkt)]) }
        signatures.count.add(1, ordering: .relaxed)
        return try JWTSigner.sign(claims, with: key, type: "at+jwt")
    }

    func idTokenJWT(_ grant: TokenGrant, user: User, accessToken: String, key: GatehouseCrypto.SigningKey, now: Date,
                    extra: [String: JSONValue] = [:]) throws -> String {
        var claims: [String: JSONValue] = [
            "iss": .string(settings.issuer), "sub": .string(user.id), "aud": .string(grant.client.id),
            "azp": .string(grant.client.id), "iat": .integer(Int64(now.timeIntervalSince1970)),
            "exp": .integer(Int64(now.timeIntervalSince1970 + settings.idTokenLifetime)),
            "auth_time": .integer(Int64((grant.authTime ?? now).timeIntervalSince1970)),
            "at_hash": .string(Self.atHash(accessToken)),
            "amr": .array(grant.authMethods.map(JSONValue.string)),
            "acr": .string(AuthenticationLevel(methods: grant.authMethods).acr),
        ]
        if let nonce = grant.nonce { claims["nonce"] = .string(nonce) }
        claims.merge(UserClaims.claims(for: user, scope: grant.scope)) { _, new in new }
        claims.merge(extra) { _, new in new }
        signatures.count.add(1, ordering: .relaxed)
        return try JWTSigner.sign(claims, with: key, type: "JWT")
    }

    /// OIDC Core §3.1.3.6: base64url of the left half of SHA-256 of the access token.
    public static func atHash(_ accessToken: String) -> String {
        Base64URL.encode(SHA256.hash(accessToken).prefix(16))
    }
}

/// The profile and email claims a scope releases (ID tokens and userinfo).
public enum UserClaims {
    public static func claims(for user: User, scope: Scope) -> [String: JSONValue] {
        var claims: [String: JSONValue] = [:]
        if scope.contains(Scope.email) {
            claims["email"] = .string(user.email)
            claims["email_verified"] = .bool(user.emailVerified)
        }
        if scope.contains(Scope.profile) {
            // No name is no `name`: the email is released only under the `email` scope.
            if let name = user.displayName, !name.isEmpty {
                claims["name"] = .string(name)
                claims["preferred_username"] = .string(name)
            }
            claims["updated_at"] = .integer(Int64(user.updatedAt.timeIntervalSince1970))
        }
        return claims
    }
}
