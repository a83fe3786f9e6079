import CSodium
import Dispatch
import Foundation
import Synchronization

/// Argon2id cost parameters (`p` is always 1, libsodium's only choice).
public struct Argon2idParameters: Sendable, Hashable {
    /// Memory in bytes.
    public let memoryBytes: Int
    /// Passes over memory (`t`).
    public let iterations: Int

    /// OWASP's recommendation: 19 MiB, t = 2, p = 1 (~47 ms here).
    public static let owasp = Argon2idParameters(memoryBytes: 19 * 1024 * 1024, iterations: 2)

    public init(memoryBytes: Int, iterations: Int) {
        precondition(memoryBytes >= Int(crypto_pwhash_MEMLIMIT_MIN) && memoryBytes % 1024 == 0, "Argon2 memory must be ≥ 8 KiB, in KiB")
        precondition(iterations >= 1, "Argon2id needs t ≥ 1")
        self.memoryBytes = memoryBytes
        self.iterations = iterations
    }
}

/// Argon2id password hashing (libsodium) in PHC string form:
/// `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`.
///
/// Hashing costs tens of milliseconds and megabytes of memory, so every hash and verify runs on a
/// dedicated dispatch queue — never on Swift's cooperative pool, where it would stall unrelated
/// tasks — and at most `maximumConcurrentHashes` run at once, so a burst of logins cannot exhaust
/// memory or threads; the rest wait (suspended) in FIFO order.
public final class PasswordHasher: Sendable {
    /// Longer passwords are refused outright: hashing unbounded input is a denial-of-service lever.
    public static let maximumPasswordBytes = 4096

    /// The parameters new hashes use.
    public let parameters: Argon2idParameters
    /// Appended to the password before checking an imported bcrypt hash (Devise's `config.pepper`:
    /// Devise hashes `password + pepper`). Never used for Argon2id hashes Gatehouse writes.
    public let bcryptPepper: String?
    private let limiter: AsyncSemaphore
    private let queue = DispatchQueue(label: "gatehouse.argon2id", qos: .userInitiated, attributes: .concurrent)
    private let dummyHash = Mutex<String?>(nil)
    private let verifications = Atomic<Int>(0)
    private let bcryptVerifications = Atomic<Int>(0)
    /// The bcrypt cost of imported hashes, once the store has any (0: none seen).
    private let bcryptCost = Atomic<Int>(0)

    /// Argon2id verifications run so far, the unknown-user dummy ones included. Lets tests prove that
    /// every sign-in path pays for one, without timing anything.
    public var verificationsPerformed: Int { verifications.load(ordering: .relaxed) }
    /// The bcrypt ones among them (imported hashes and their dummies).
    public var bcryptVerificationsPerformed: Int { bcryptVerifications.load(ordering: .relaxed) }

    /// Tells the hasher the store holds bcrypt hashes of this cost (an import, found at start-up or when one is
    /// checked). From then on every check does one Argon2id and one bcrypt verification — the stored hash's, and
    /// a dummy of the other kind — so an unknown account, an Argon2id one and an imported bcrypt one cost the
    /// same work and the answer time does not tell them apart. The highest cost seen wins.
    public func expectBcryptHashes(cost: Int) {
        guard (4...31).contains(cost) else { return }
        var current = bcryptCost.load(ordering: .relaxed)
        while current < cost {
            let (exchanged, original) = bcryptCost.compareExchange(expected: current, desired: cost, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// The hash unknown users are checked against (same parameters as new hashes).
    public func dummyHashForInspection() async -> String { await dummy() }

    /// - Parameters:
    ///   - parameters: cost for new hashes (and the threshold for ``needsRehash(_:)``).
    ///   - maximumConcurrentHashes: defaults to the number of cores.
    ///   - bcryptPepper: the pepper imported bcrypt hashes were made with (`passwords.bcrypt_pepper`).
    public init(parameters: Argon2idParameters = .owasp,
                maximumConcurrentHashes: Int = ProcessInfo.processInfo.activeProcessorCount,
                bcryptPepper: String? = nil) {
        Sodium.ensureInitialized()
        self.parameters = parameters
        self.bcryptPepper = bcryptPepper
        limiter = AsyncSemaphore(limit: max(1, maximumConcurrentHashes))
    }

    /// Hashes `password` with a fresh random salt.
    public func hash(_ password: String) async throws(CryptoError) -> String {
        let bytes = Array(password.utf8)
        guard bytes.count <= Self.maximumPasswordBytes else { throw .passwordTooLong }
        let padded = bytes + [0]   // libsodium's pointer is nonnull even for an empty password
        let parameters = self.parameters
        let result: Result<String, CryptoError> = await offload {
            var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
            let rc = padded.withUnsafeBufferPointer { pw in
                pw.withMemoryRebound(to: CChar.self) {
                    crypto_pwhash_str_alg(&out, $0.baseAddress!, UInt64($0.count - 1), UInt64(parameters.iterations),
                                          parameters.memoryBytes, crypto_pwhash_ALG_ARGON2ID13)
                }
            }
            guard rc == 0 else { return .failure(.passwordHashingFailed) }
            return .success(String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return try result.get()
    }

    /// `true` if `password` matches `storedHash`.
    ///
    /// Pass `nil` when there is no such user: the password is then checked against a dummy hash
    /// with the same parameters and the answer is `false`, so the response time does not reveal
    /// whether the account exists. A malformed hash simply does not match.
    public func verify(_ password: String, against storedHash: String?) async -> Bool {
        let isBcrypt = storedHash.map { PasswordHashFormat.of($0) == .bcrypt } ?? false
        if isBcrypt, let storedHash, let cost = Int(storedHash.dropFirst(4).prefix(2)) { expectBcryptHashes(cost: cost) }
        let checked: String
        if let storedHash { checked = storedHash } else { checked = await dummy() }
        let matched = await verifyHash(password, against: checked)
        // The other kind's dummy, when both kinds are stored: see ``expectBcryptHashes(cost:)``.
        let cost = bcryptCost.load(ordering: .relaxed)
        if cost > 0 {
            let other: String
            if isBcrypt { other = await dummy() } else { other = Self.bcryptDummy(cost: cost) }
            _ = await verifyHash(password, against: other)
        }
        return storedHash == nil ? false : matched
    }

    /// A well-formed bcrypt hash of `cost` that no password matches (checking it costs what a real one does).
    static func bcryptDummy(cost: Int) -> String {
        "$2b$" + (cost < 10 ? "0" : "") + String(cost) + "$" + String(repeating: "J", count: 22) + String(repeating: "u", count: 31)
    }

    private func verifyHash(_ password: String, against storedHash: String) async -> Bool {
        let bytes = Array(password.utf8)
        guard bytes.count <= Self.maximumPasswordBytes else { return false }
        if PasswordHashFormat.of(storedHash) == .bcrypt {
            // Imported from another system (Devise, has_secure_password): libxcrypt checks it.
            let peppered = bytes + Array((bcryptPepper ?? "").utf8)
            verifications.add(1, ordering: .relaxed)
            bcryptVerifications.add(1, ordering: .relaxed)
            return await offload { BcryptVerifier.verify(peppered, against: storedHash) }
        }
        guard storedHash.utf8.count < Int(crypto_pwhash_STRBYTES) else { return false }
        let padded = bytes + [0]
        verifications.add(1, ordering: .relaxed)
        return await offload {
            padded.withUnsafeBufferPointer { pw in
                pw.withMemoryRebound(to: CChar.self) {
                    crypto_pwhash_str_verify(storedHash, $0.baseAddress!, UInt64($0.count - 1)) == 0
                }
            }
        }
    }

    /// `true` if `storedHash` was made with other parameters (or another algorithm) than
    /// ``parameters``: rehash it after the next successful sign-in.
    public func needsRehash(_ storedHash: String) -> Bool {
        guard storedHash.hasPrefix("$argon2id$") else { return true }
        return crypto_pwhash_str_needs_rehash(storedHash, UInt64(parameters.iterations), parameters.memoryBytes) != 0
    }

    /// Computes the dummy hash once, ahead of the first unknown-user sign-in if called at startup.
    public func prepareDummyHash() async {
        _ = await dummy()
    }

    private func dummy() async -> String {
        if let cached = dummyHash.withLock({ $0 }) { return cached }
        // Hash of a random password nobody knows; concurrent first callers may both compute it.
        let hash = (try? await self.hash(SecureRandom.token())) ?? "$argon2id$v=19$m=8,t=1,p=1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
        dummyHash.withLock { if $0 == nil { $0 = hash } }
        return hash
    }

    /// Runs `work` on the hashing queue under the concurrency cap and resumes the caller after.
    private func offload<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await limiter.withPermit {
            await withCheckedContinuation { continuation in
                queue.async { continuation.resume(returning: work()) }
            }
        }
    }
}
