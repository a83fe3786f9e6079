import Foundation
import Synchronization
import Testing
@testable import GatehouseCrypto

@Suite struct PasswordHasherTests {
    /// Small parameters keep the suite fast where the cost is not the point.
    static let fast = Argon2idParameters(memoryBytes: 8 * 1024 * 1024, iterations: 1)

    @Test func roundTripWithOWASPDefaults() async throws {
        let hasher = PasswordHasher()
        #expect(hasher.parameters == .owasp)
        let hash = try await hasher.hash("correct horse battery staple")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(await hasher.verify("correct horse battery staple", against: hash))
        #expect(!(await hasher.verify("Correct horse battery staple", against: hash)))
        #expect(!hasher.needsRehash(hash))
    }

    @Test func wrongPasswordAndMalformedHashAreRejected() async throws {
        let hasher = PasswordHasher(parameters: Self.fast)
        let hash = try await hasher.hash("pässwörd")
        #expect(hash.hasPrefix("$argon2id$v=19$m=8192,t=1,p=1$"))
        #expect(await hasher.verify("pässwörd", against: hash))
        #expect(!(await hasher.verify("passwort", against: hash)))
        #expect(!(await hasher.verify("", against: hash)))
        #expect(!(await hasher.verify("pässwörd", against: "$argon2id$garbage")))
        #expect(!(await hasher.verify("pässwörd", against: "")))
        // Same password, different salt.
        #expect(try await hasher.hash("pässwörd") != hash)
        // The empty password hashes (policy about it belongs elsewhere).
        #expect(await hasher.verify("", against: try await hasher.hash("")))
    }

    @Test func needsRehashWhenParametersChange() async throws {
        let old = PasswordHasher(parameters: Self.fast)
        let hash = try await old.hash("secret")
        #expect(!old.needsRehash(hash))
        let stronger = PasswordHasher(parameters: Argon2idParameters(memoryBytes: 8 * 1024 * 1024, iterations: 2))
        #expect(stronger.needsRehash(hash))
        #expect(PasswordHasher(parameters: .owasp).needsRehash(hash))
        #expect(stronger.needsRehash("$2b$12$notargon"))
        // Old hashes still verify under the new hasher (parameters live in the PHC string).
        #expect(await stronger.verify("secret", against: hash))
    }

    @Test func unknownUserVerifyIsFalseAndCostsAHash() async throws {
        let hasher = PasswordHasher(parameters: Self.fast)
        await hasher.prepareDummyHash()
        let known = try await hasher.hash("pw")
        let before = hasher.verificationsPerformed
        #expect(await hasher.verify("pw", against: nil) == false)
        // The unknown-user path ran one real Argon2id verification, against a hash made with the
        // same parameters as real ones, so it costs what a known user's check costs (no timing oracle).
        #expect(hasher.verificationsPerformed == before + 1)
        #expect(!hasher.needsRehash(await hasher.dummyHashForInspection()))
        #expect(await hasher.verify("pw", against: known))
        #expect(hasher.verificationsPerformed == before + 2)
    }

    @Test func tooLongPasswordIsRefused() async {
        let hasher = PasswordHasher(parameters: Self.fast)
        let long = String(repeating: "a", count: PasswordHasher.maximumPasswordBytes + 1)
        await #expect(throws: CryptoError.passwordTooLong) { try await hasher.hash(long) }
        #expect(!(await hasher.verify(long, against: "$argon2id$v=19$m=8192,t=1,p=1$x$y")))
    }

    @Test func concurrencyIsCapped() async throws {
        let limiter = AsyncSemaphore(limit: 2)
        let counter = PeakCounter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    await limiter.withPermit {
                        counter.enter()
                        try? await Task.sleep(for: .milliseconds(5))
                        counter.leave()
                    }
                }
            }
        }
        #expect(counter.peak == 2)

        // And the hasher itself completes a burst larger than its cap.
        let hasher = PasswordHasher(parameters: Self.fast, maximumConcurrentHashes: 1)
        let hashes = try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<4 { group.addTask { try await hasher.hash("pw\(index)") } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(Set(hashes).count == 4)
    }
}

final class PeakCounter: Sendable {
    private let state = Mutex((current: 0, peak: 0))
    func enter() { state.withLock { $0.current += 1; $0.peak = max($0.peak, $0.current) } }
    func leave() { state.withLock { $0.current -= 1 } }
    var peak: Int { state.withLock { $0.peak } }
}
