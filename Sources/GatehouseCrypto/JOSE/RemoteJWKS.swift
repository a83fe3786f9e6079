import Foundation

/// Fetches a JWKS document. Abstracted so tests inject responses and count fetches.
public protocol JWKSFetcher: Sendable {
    /// Returns the body and the Cache-Control `max-age` in seconds, if the response had one.
    func fetch(_ url: URL) async throws -> (body: Data, maxAge: TimeInterval?)
}

/// A provider's key set (Apple, Google, any OIDC `jwks_uri`), fetched lazily and cached.
///
/// - The set is cached for the response's `max-age`, clamped to
///   [`minimumRefetchInterval`, `maximumCacheAge`] (``defaultCacheAge`` when absent).
/// - A token naming an unknown `kid` triggers one refetch — providers publish new keys before
///   using them, so a miss usually means our copy is old.
/// - Fetches, whatever their reason, start at most once per `minimumRefetchInterval`, so a flood
///   of tokens with made-up `kid`s cannot hammer the provider; meanwhile they fail with
///   ``JOSEError/unknownKey(kid:)``.
/// - Concurrent callers share one in-flight fetch (actor state + a shared `Task`).
/// - If a refresh fails, the previous keys keep serving until a later fetch succeeds.
public actor RemoteJWKS {
    /// Where the JWKS lives.
    public nonisolated let url: URL
    private let fetcher: any JWKSFetcher
    private let minimumRefetchInterval: TimeInterval
    private let maximumCacheAge: TimeInterval
    private let defaultCacheAge: TimeInterval
    private let clock: @Sendable () -> Date

    private var keys: VerificationKeySet?
    private var expiresAt = Date.distantPast
    private var lastFetchStartedAt: Date?
    private var inFlight: Task<Fetched, any Error>?
    private var keysFrom: Task<Fetched, any Error>?
    private var lastError: String?

    /// - Parameters:
    ///   - url: the provider's `jwks_uri`.
    ///   - fetcher: how to fetch it (tests inject one).
    ///   - minimumRefetchInterval: no two fetches start closer together than this (seconds).
    ///   - defaultCacheAge: cache lifetime when the response has no `max-age`.
    ///   - maximumCacheAge: upper bound on any `max-age`, so a rotated key is picked up eventually.
    ///   - clock: the current time (tests move it by hand).
    public init(url: URL, fetcher: any JWKSFetcher = URLSessionJWKSFetcher(),
                minimumRefetchInterval: TimeInterval = 60, defaultCacheAge: TimeInterval = 3600,
                maximumCacheAge: TimeInterval = 86_400, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.url = url
        self.fetcher = fetcher
        self.minimumRefetchInterval = minimumRefetchInterval
        self.defaultCacheAge = defaultCacheAge
        self.maximumCacheAge = max(maximumCacheAge, minimumRefetchInterval)
        self.clock = clock
    }

    /// The key a token with this `kid` and algorithm must be verified with.
    public func key(for keyID: String?, algorithm: JWSAlgorithm) async throws(JOSEError) -> VerificationKey {
        let now = clock()
        var fetchedNow = false
        if keys == nil || now >= expiresAt {
            fetchedNow = await refreshIfAllowed(now: now)
        }
        guard let keys else { throw .keySetUnavailable(lastError ?? "not fetched") }
        if let key = try keys.key(for: keyID, algorithm: algorithm) { return key }
        // Unknown kid: one refetch, unless we just fetched or the rate limit says no.
        if !fetchedNow, await refreshIfAllowed(now: now), let key = try self.keys?.key(for: keyID, algorithm: algorithm) {
            return key
        }
        throw .unknownKey(kid: keyID)
    }

    /// Drops the cached set so the next lookup fetches (still subject to the rate limit).
    public func invalidate() {
        expiresAt = .distantPast
    }

    /// Fetches unless one ran within the minimum interval; joins a fetch already in flight.
    /// Returns `true` if fresh keys were obtained by this or the joined fetch.
    private func refreshIfAllowed(now: Date) async -> Bool {
        if let inFlight { return await complete(inFlight) }
        if let last = lastFetchStartedAt, now.timeIntervalSince(last) < minimumRefetchInterval { return false }
        lastFetchStartedAt = now
        let fetcher = self.fetcher, url = self.url
        let task = Task<Fetched, any Error> {
            let (body, maxAge) = try await fetcher.fetch(url)
            return Fetched(keys: VerificationKeySet(jwks: try JWKSet(json: body)), maxAge: maxAge)
        }
        inFlight = task
        return await complete(task)
    }

    /// Awaits `task` and applies its outcome. Every waiter applies it (idempotently), so no waiter
    /// can resume before the new keys are in place.
    private func complete(_ task: Task<Fetched, any Error>) async -> Bool {
        let result = await task.result
        if inFlight == task { inFlight = nil } else if case .success = result, keysFrom == task { return true }
        switch result {
        case .success(let fetched):
            let age = min(max(fetched.maxAge ?? defaultCacheAge, minimumRefetchInterval), maximumCacheAge)
            keys = fetched.keys
            keysFrom = task
            expiresAt = (lastFetchStartedAt ?? clock()).addingTimeInterval(age)
            lastError = nil
            return true
        case .failure(let error):
            lastError = String(describing: error)
            return false
        }
    }
}

/// The outcome of one fetch.
private struct Fetched: Sendable {
    let keys: VerificationKeySet
    let maxAge: TimeInterval?
}
