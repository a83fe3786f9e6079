import Foundation
import Synchronization
import Testing
@testable import GatehouseCrypto

/// Serves a configurable JWKS and counts fetches.
final class CountingFetcher: JWKSFetcher {
    private struct State { var body: Data; var maxAge: TimeInterval?; var fetches = 0; var failing = false }
    private let state: Mutex<State>
    private let delay: Duration

    init(keys: [SigningKey], maxAge: TimeInterval? = 600, delay: Duration = .milliseconds(20)) {
        state = Mutex(State(body: JWKSet(keys: keys.map(\.publicJWK)).jsonData(), maxAge: maxAge))
        self.delay = delay
    }

    var fetches: Int { state.withLock { $0.fetches } }
    func publish(_ keys: [SigningKey]) { state.withLock { $0.body = JWKSet(keys: keys.map(\.publicJWK)).jsonData() } }
    func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }

    func fetch(_ url: URL) async throws -> (body: Data, maxAge: TimeInterval?) {
        let (body, maxAge, failing) = state.withLock { state in
            state.fetches += 1
            return (state.body, state.maxAge, state.failing)
        }
        try await Task.sleep(for: delay)   // keep the fetch in flight long enough to be shared
        if failing { throw URLError(.cannotConnectToHost) }
        return (body, maxAge)
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let now = Mutex(Date(timeIntervalSince1970: 1_700_000_000))
    var date: Date { now.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { now.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

@Suite struct RemoteJWKSTests {
    static let url = URL(string: "https://provider.example/jwks")!

    @Test func cachesTheKeySetForMaxAge() async throws {
        let key = try SigningKey.generate()
        let fetcher = CountingFetcher(keys: [key], maxAge: 300)
        let clock = ManualClock()
        let remote = RemoteJWKS(url: Self.url, fetcher: fetcher, minimumRefetchInterval: 10, clock: { clock.date })
        for _ in 0..<5 { _ = try await remote.key(for: key.keyID, algorithm: .es256) }
        #expect(fetcher.fetches == 1)
        clock.advance(299)
        _ = try await remote.key(for: key.keyID, algorithm: .es256)
        #expect(fetcher.fetches == 1)
        clock.advance(1)   // max-age reached
        _ = try await remote.key(for: key.keyID, algorithm: .es256)
        #expect(fetcher.fetches == 2)
    }

    @Test func maxAgeIsClampedToTheRateLimit() async throws {
        let key = try SigningKey.generate()
        let fetcher = CountingFetcher(keys: [key], maxAge: 0)   // e.g. no-store
        let clock = ManualClock()
        let remote = RemoteJWKS(url: Self.url, fetcher: fetcher, minimumRefetchInterval: 60, clock: { clock.date })
        _ = try await remote.key(for: key.keyID, algorithm: .es256)
        clock.advance(30)
        _ = try await remote.key(for: key.keyID, algorithm: .es256)
        #expect(fetcher.fetches == 1)
    }

    @Test func unknownKidRefetchesExactlyOnce() async throws {
        let old = try SigningKey.generate(), new = try SigningKey.generate()
        let fetcher = CountingFetcher(keys: [old])
        let clock = ManualClock()
        let remote = RemoteJWKS(url: Self.url, fetcher: fetcher, minimumRefetchInterval: 30, clock: { clock.date })
        _ = try await remote.key(for: old.keyID, algorithm: .es256)
        #expect(fetcher.fetches == 1)
        fetcher.publish([old, new])     // the provider rotates
        clock.advance(31)
        #expect(try await remote.key(for: new.keyID, algorithm: .es256).keyID == new.keyID)
        #expect(fetcher.fetches == 2)
        // Still unknown after the refetch: fails without another fetch.
        clock.advance(1)
        await #expect(throws: JOSEError.unknownKey(kid: "nope")) { try await remote.key(for: "nope", algorithm: .es256) }
        #expect(fetcher.fetches == 2)
    }

    @Test func floodOfUnknownKidsIsRateLimited() async throws {
        let key = try SigningKey.generate()
        let fetcher = CountingFetcher(keys: [key])
        let clock = ManualClock()
        let remote = RemoteJWKS(url: Self.url, fetcher: fetcher, minimumRefetchInterval: 60, clock: { clock.date })
        _ = try await remote.key(for: key.keyID, algorithm: .es256)
        clock.advance(61)
        let failures = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<200 {
                group.addTask { (try? await remote.key(for: "forged-\(index)", algorithm: .es256)) == nil }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 200)
        #expect(fetcher.fetches == 2)    // the initial fetch + one refetch for the whole flood
        // The known key still works throughout, without fetching.
        _ = try await remote.key(for: key.keyID, algorithm: .es256)
        #expect(fetcher.fetches == 2)
        clock.advance(61)
        _ = try? await remote.key(for: "forged-again", algorithm: .es256)
        #expect(fetcher.fetches == 3)
    }

    @Test func concurrentFirstUseSharesOneFetch() async throws {
        let key = try SigningKey.generate()
        let fetcher = CountingFetcher(keys: [key], delay: .milliseconds(100))
        let remote = RemoteJWKS(url: Self.url, fetcher: fetcher)
        let found = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 { group.addTask { (try? await remote.key(for: key.keyID, algorithm: .es256)) != nil } }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(found == 50)
        #expect(fetcher.fetches == 1)
    }

    @Test func failedRefreshKeepsServingCachedKeys() async throws {
        let key = try SigningKey.generate()
        let fetcher = CountingFetcher(keys: [key], maxAge: 100)
        let clock = ManualClock()
        let remote = RemoteJWKS(url: Self.url, fetcher: fetcher, minimumRefetchInterval: 10, clock: { clock.date })
        _ = try await remote.key(for: key.keyID, algorithm: .es256)
        fetcher.setFailing(true)
        clock.advance(200)
        #expect(try await remote.key(for: key.keyID, algorithm: .es256).keyID == key.keyID)
        #expect(fetcher.fetches == 2)

        let empty = RemoteJWKS(url: Self.url, fetcher: fetcher)
        await #expect(throws: JOSEError.self) { try await empty.key(for: key.keyID, algorithm: .es256) }
    }

    @Test func verifierUsesRemoteKeys() async throws {
        let key = try SigningKey.generate()
        let remote = RemoteJWKS(url: Self.url, fetcher: CountingFetcher(keys: [key]))
        let now = Date()
        let token = try JWTSigner.sign(["iss": JSONValue.string("p"), "aud": .string("a"),
                                        "exp": .double(now.timeIntervalSince1970 + 60)], with: key)
        let verifier = JWTVerifier(allowedAlgorithms: [.es256], rules: ClaimRules(issuers: ["p"], audiences: ["a"]))
        #expect(try await verifier.verify(token, keys: remote, now: now).claims.issuer == "p")
        let rs = JWTVerifier(allowedAlgorithms: [.rs256], rules: ClaimRules(issuers: ["p"], audiences: ["a"]))
        await #expect(throws: JOSEError.algorithmNotAllowed(.es256)) { try await rs.verify(token, keys: remote, now: now) }
    }

    @Test func cacheControlParsing() {
        #expect(CacheControl.maxAge(from: "public, max-age=21600, must-revalidate") == 21600)
        #expect(CacheControl.maxAge(from: "max-age=\"60\"") == 60)
        #expect(CacheControl.maxAge(from: "no-store") == 0)
        #expect(CacheControl.maxAge(from: "public") == nil)
        #expect(CacheControl.maxAge(from: "max-age=-5") == nil)
    }
}
