import Foundation

/// The signed-in state of one app: current tokens, their expiry, and refresh.
///
/// - `withFreshAccessToken` refreshes shortly before expiry, and at most once however many
///   callers ask at the same time (they all await the same refresh).
/// - Rotated refresh tokens are stored before anyone gets the new access token, so a crash
///   cannot lose a rotation (a lost rotation would trip reuse detection and end the session).
/// - `invalid_grant` on refresh (revoked, expired, or reused refresh token) signs the user out:
///   storage cleared, `status == .signedOut`, callers get `AuthStateError.sessionEnded`.
/// - With a DPoP key (`OAuthClient(…, dpopKey:)`), the key's thumbprint and reference are stored with
///   the tokens, and a refresh with any other key is refused here, before the refresh token is sent:
///   the session ends (`AuthStateError.dpopKeyChanged`), as the server would refuse it anyway.
/// - Every change is announced on `events()` (signed in, refreshed, signed out, session ended by
///   the server), so the UI can follow one stream instead of polling `status`.
public actor AuthState {
    /// Whether there are tokens.
    public enum Status: Sendable, Equatable {
        case signedOut
        case signedIn
    }

    public nonisolated let client: OAuthClient
    private let store: any TokenStore
    private let refreshMargin: TimeInterval
    private var tokens: TokenSet?
    private var refreshTask: Task<TokenSet, any Error>?
    /// Bumped by every sign-in and sign-out so a refresh that started before cannot write
    /// its result over the newer state.
    private var generation = 0
    private var broadcast = AuthEventBroadcast()

    /// - Parameters:
    ///   - refreshMargin: refresh when the access token expires within this many seconds.
    public init(client: OAuthClient, store: any TokenStore, refreshMargin: TimeInterval = 60) {
        self.client = client
        self.store = store
        self.refreshMargin = refreshMargin
    }

    /// Loads tokens from the store (call once at launch).
    @discardableResult
    public func restore() async throws -> Status {
        tokens = try await store.load()
        return status
    }

    public var status: Status { tokens == nil ? .signedOut : .signedIn }

    /// A stream of auth-state changes, starting with `.initial(currentTokens)`. Each call makes an
    /// independent stream; it ends when the consuming task is cancelled or the stream is dropped.
    public func events() -> AsyncStream<AuthEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthEvent.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        continuation.yield(.initial(tokens))
        broadcast.add(id, continuation)
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeListener(id) }
        }
        return stream
    }

    private func removeListener(_ id: UUID) { broadcast.remove(id) }

    deinit { broadcast.finish() }

    /// The current tokens, without refreshing.
    public var currentTokens: TokenSet? { tokens }

    // MARK: Signing in

    /// Stores the tokens of a completed sign-in (any grant).
    public func signIn(with response: TokenResponse) async throws {
        let new = TokenSet(response: response, receivedAt: client.now(), dpopKey: client.dpop?.key)
        try await store.save(new)
        generation += 1
        refreshTask = nil
        tokens = new
        broadcast.send(.signedIn(new))
    }

    /// Finishes a browser sign-in (code + PKCE) and stores the tokens.
    @discardableResult
    public func signIn(callbackURL: URL, request: AuthorizationRequest, signatureCheck: IDTokenSignatureCheck? = nil) async throws -> SignInResult {
        let result = try await client.signIn(callbackURL: callbackURL, request: request, signatureCheck: signatureCheck)
        try await signIn(with: result.tokens)
        return result
    }

    /// First-party password sign-in (`grant_type=password`), storing the tokens.
    public func signIn(username: String, password: String, scopes: [String] = []) async throws {
        try await signIn(with: client.passwordGrant(username: username, password: password, scopes: scopes))
    }

    // MARK: Using the access token

    /// Runs `body` with an access token that is not about to expire, refreshing first if needed.
    public nonisolated func withFreshAccessToken<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        try await body(freshAccessToken())
    }

    /// An access token that is not about to expire.
    ///
    /// - Parameter rejected: a token the resource server just refused (401). If it is still
    ///   the current one, refresh regardless of expiry; if another caller already replaced it,
    ///   return the replacement without a second refresh.
    public func freshAccessToken(rejected: String? = nil) async throws -> String {
        if let refreshTask { return try await refreshTask.value.accessToken }
        guard let current = tokens else { throw AuthStateError.signedOut }
        let mustRefresh = rejected.map { $0 == current.accessToken } ?? current.expires(within: refreshMargin, of: client.now())
        guard mustRefresh else { return current.accessToken }

        guard let refreshToken = current.refreshToken else {
            // Nothing to refresh with: a token that still has a little life is usable, a dead one ends the session.
            if rejected == nil, let expiresAt = current.expiresAt, expiresAt > client.now() { return current.accessToken }
            try await clearSession()
            broadcast.send(.sessionEnded(nil))
            throw AuthStateError.signedOut
        }
        if let bound = current.dpopKeyThumbprint, bound != client.dpop?.key.thumbprint {
            try await clearSession()
            broadcast.send(.sessionEnded(nil))
            throw AuthStateError.dpopKeyChanged
        }
        let started = generation
        let task = Task { try await self.performRefresh(refreshToken: refreshToken, previous: current, generation: started) }
        refreshTask = task
        return try await task.value.accessToken
    }

    private func performRefresh(refreshToken: String, previous: TokenSet, generation started: Int) async throws -> TokenSet {
        defer { if generation == started { refreshTask = nil } }
        let response: TokenResponse
        do {
            response = try await client.refresh(refreshToken: refreshToken)
        } catch let error as OAuthError where error.code == .invalidGrant {
            if generation == started {
                try? await clearSession()
                broadcast.send(.sessionEnded(error))
            }
            throw AuthStateError.sessionEnded(error)
        }
        let new = TokenSet(response: response, receivedAt: client.now(), previous: previous, dpopKey: client.dpop?.key)
        guard generation == started else { throw AuthStateError.signedOut }
        try await store.save(new)
        tokens = new
        broadcast.send(.refreshed(new))
        return new
    }

    // MARK: Signing out

    /// Signs out: forgets the tokens locally and in storage and, when `revoke` is true and the
    /// provider has a revocation endpoint, revokes the refresh token (best effort: a network
    /// failure must not keep the user signed in).
    public func signOut(revoke: Bool = true) async throws {
        let old = tokens
        try await clearSession()
        broadcast.send(.signedOut)
        if revoke, client.metadata.revocationEndpoint != nil, let old {
            if let refreshToken = old.refreshToken {
                try? await client.revoke(token: refreshToken, hint: .refreshToken)
            } else {
                try? await client.revoke(token: old.accessToken, hint: .accessToken)
            }
        }
    }

    /// Signs out here (as `signOut`) and returns the RP-initiated logout request that ends the session
    /// at the provider too: open its `url` in the browser that signed in, then check the redirect with
    /// `validateCallback`. Nil when the provider has no `end_session_endpoint` (only the local sign-out
    /// happened then).
    @discardableResult
    public func endSession(postLogoutRedirectURI: URL?, state: String? = nil, revoke: Bool = true) async throws -> EndSessionRequest? {
        let idToken = tokens?.idToken
        let request = client.metadata.endSessionEndpoint == nil ? nil
            : try client.endSessionRequest(idTokenHint: idToken, postLogoutRedirectURI: postLogoutRedirectURI, state: state)
        try await signOut(revoke: revoke)
        return request
    }

    private func clearSession() async throws {
        generation += 1
        refreshTask = nil
        tokens = nil
        try await store.clear()
    }
}

/// Why `AuthState` has no access token to give.
public enum AuthStateError: Error, Equatable, Sendable {
    /// Nobody is signed in (or the session was ended while this call waited).
    case signedOut
    /// The refresh token was refused (`invalid_grant`); the user has been signed out.
    case sessionEnded(OAuthError)
    /// The tokens are bound to a DPoP key this client does not have (another key was given, or the
    /// stored one was lost); they cannot be used, and the user has been signed out.
    case dpopKeyChanged
}
