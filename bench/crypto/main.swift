// Crypto benchmark: GatehouseCrypto's public API vs `openssl speed`, in the same run, one core.
// Usage: GatehouseCryptoBench [seconds-per-measurement] [rounds]   (bench/crypto.sh pins it with taskset)
import Foundation
import GatehouseCrypto
import Synchronization

/// Hashes with every slot of a `PasswordHasher` busy (one per core, as in the server) for `wall` seconds of
/// wall-clock time; returns the hashes done and the time taken. Concurrent 19 MiB hashes share the caches and
/// the memory bus, so this measures the ceiling that "cores ÷ one hash's time" only estimates.
func argon2Ceiling(wall: Double, cores: Int) async throws -> (hashes: Int, seconds: Double) {
    let hasher = PasswordHasher()
    _ = try await hasher.hash("warm-up")
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int(wall * 1000))
    let hashes = try await withThrowingTaskGroup(of: Int.self) { group in
        for _ in 0..<(2 * cores) {   // more callers than slots: a slot never waits for a caller
            group.addTask {
                var count = 0
                while ContinuousClock.now < deadline {
                    _ = try await hasher.hash("correct horse battery staple")
                    count += 1
                }
                return count
            }
        }
        var total = 0
        for try await count in group { total += count }
        return total
    }
    let elapsed = ContinuousClock.now - start
    return (hashes, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

// `--argon2-ceiling SECONDS`: only that ceiling (bench/lib.sh's `argon2_ceiling` runs it unpinned).
if CommandLine.arguments.dropFirst().first == "--argon2-ceiling" {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let (hashes, elapsed) = try await argon2Ceiling(wall: Double(CommandLine.arguments.dropFirst(2).first ?? "6") ?? 6, cores: cores)
    print(String(format: "Argon2id ceiling (19 MiB, t=2): %.1f hashes/s, %d at once on %d cores, %d hashes in %.1f s wall clock",
                 Double(hashes) / elapsed, cores, cores, hashes, elapsed))
    exit(0)
}

/// RS256 signatures (RSA-2048, the server's own `SigningKey`) with one signing thread per core for `wall`
/// seconds of wall-clock time: the physical ceiling of a refresh row whose every answer carries an RS256 ID token.
func rs256Ceiling(wall: Double, cores: Int) throws -> (signatures: Int, seconds: Double) {
    let key = try SigningKey.generate(.rs256)
    let message = Array(String(repeating: "e", count: 700).utf8)   // about an ID token's signing input
    _ = try key.sign(message)
    let start = ContinuousClock.now
    let deadline = start + .milliseconds(Int(wall * 1000))
    let counts = Mutex([Int](repeating: 0, count: cores))
    DispatchQueue.concurrentPerform(iterations: cores) { slot in
        var count = 0
        while ContinuousClock.now < deadline {
            guard (try? key.sign(message)) != nil else { break }
            count += 1
        }
        counts.withLock { $0[slot] = count }
    }
    let elapsed = ContinuousClock.now - start
    return (counts.withLock { $0.reduce(0, +) }, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
}

// `--rs256-ceiling SECONDS`: only that ceiling (bench/lib.sh's `rs256_ceiling`).
if CommandLine.arguments.dropFirst().first == "--rs256-ceiling" {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let (signatures, elapsed) = try rs256Ceiling(wall: Double(CommandLine.arguments.dropFirst(2).first ?? "4") ?? 4, cores: cores)
    print(String(format: "RS256 ceiling (RSA-2048): %.1f signatures/s, %d threads on %d cores, %d signatures in %.1f s wall clock",
                 Double(signatures) / elapsed, cores, cores, signatures, elapsed))
    exit(0)
}

let seconds = Double(CommandLine.arguments.dropFirst().first ?? "2") ?? 2

/// User CPU seconds consumed by the calling thread.
func threadUserSeconds() -> Double {
    var usage = rusage()
    getrusage(1, &usage)   // 1 = RUSAGE_THREAD (Linux); the constant needs _GNU_SOURCE to import
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
}

/// Runs `body` for `seconds` of this thread's *user CPU time* and returns operations per CPU
/// second — the same divisor `openssl speed` uses by default (it reports per user-CPU second
/// unless given `-elapsed`), so time lost to other processes on a shared machine counts on
/// neither side.
func measure(_ body: () throws -> Void) rethrows -> Double {
    for _ in 0..<20 { try body() }   // warm-up
    let start = threadUserSeconds()
    var count = 0
    var elapsed = 0.0
    while elapsed < seconds {
        for _ in 0..<20 { try body() }
        count += 20
        elapsed = threadUserSeconds() - start
    }
    return Double(count) / elapsed
}

/// Runs `openssl speed` with `arguments` and returns its standard output.
///
/// Spawned with posix_spawn and an *empty* signal mask: Foundation's `Process` passes on the
/// Swift runtime's blocked signals, SIGALRM among them, and `openssl speed -seconds` then never
/// stops (it times each test with alarm()).
func opensslSpeed(_ arguments: [String]) -> String {
    let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-openssl-speed-\(getpid()).txt").path
    defer { unlink(outputPath) }
    var actions = posix_spawn_file_actions_t()
    var attributes = posix_spawnattr_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer { posix_spawn_file_actions_destroy(&actions); posix_spawnattr_destroy(&attributes) }
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var emptyMask = sigset_t()
    sigemptyset(&emptyMask)
    var allSignals = sigset_t()
    sigfillset(&allSignals)
    posix_spawnattr_setsigmask(&attributes, &emptyMask)
    posix_spawnattr_setsigdefault(&attributes, &allSignals)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let argv = (["openssl", "speed"] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, "/usr/bin/openssl", &actions, &attributes, argv, environ) == 0 else { return "" }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    return (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
}

/// The last two numbers (sign/s, verify/s) of the first line containing `marker`.
func signVerifyRates(_ output: String, marker: String) -> (sign: Double, verify: Double)? {
    guard let line = output.split(separator: "\n").first(where: { $0.contains(marker) }) else { return nil }
    let numbers = line.split(separator: " ").compactMap { Double($0) }
    guard numbers.count >= 2 else { return nil }
    return (numbers[numbers.count - 2], numbers[numbers.count - 1])
}

// MARK: Inputs: a realistic 220-byte JWS signing input and RFC 7515 A.2 for RS256 (2048-bit key)

let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"k1","typ":"JWT"}"#.utf8))
let payload = Base64URL.encode(Array(#"{"sub":"user-1234567890","iss":"https://auth.example.test","aud":"api","iat":1767225600,"exp":1767229200,"scope":"read write"}"#.utf8))
let signingInput = Array("\(header).\(payload)".utf8)

let rsaKey = try VerificationKey(jwk: JWK(keyType: "RSA",
    modulus: "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ",
    exponent: "AQAB"))
let rsaToken = "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ.cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
let rsaParts = rsaToken.split(separator: ".")
let rsaInput = Array("\(rsaParts[0]).\(rsaParts[1])".utf8)
let rsaSignature = Base64URL.decode(String(rsaParts[2]))!

let es256 = try SigningKey.generate(.es256)
let ed25519 = try SigningKey.generate(.edDSA)
let esSignature = try es256.sign(signingInput)
let edSignature = try ed25519.sign(signingInput)
try es256.verificationKey.verify(signature: esSignature, for: signingInput, algorithm: .es256)
try ed25519.verificationKey.verify(signature: edSignature, for: signingInput, algorithm: .edDSA)
try rsaKey.verify(signature: rsaSignature, for: rsaInput, algorithm: .rs256)

let hmacMessage = SecureRandom.bytes(256)
let hmac = HMACSHA256(key: SecureRandom.bytes(32))

let now = Date(timeIntervalSince1970: 1_767_226_000)
let jwt = try JWTSigner.sign(["sub": JSONValue.string("user-1234567890"), "iss": .string("https://auth.example.test"),
                              "aud": .string("api"), "iat": .integer(1_767_225_600), "exp": .integer(1_767_229_200)], with: es256)
let jwtVerifier = JWTVerifier(allowedAlgorithms: [.es256], rules: ClaimRules(issuers: ["https://auth.example.test"], audiences: ["api"]))
let rsaJWTVerifier = JWTVerifier(allowedAlgorithms: [.rs256], rules: ClaimRules(issuers: ["joe"], audiences: nil))
let rsaNow = Date(timeIntervalSince1970: 1_300_819_000)

print("GatehouseCrypto bench: \(signingInput.count)-byte signing input, \(seconds) s per measurement, \(ProcessInfo.processInfo.activeProcessorCount) visible core(s)")

// MARK: Rounds: each operation of ours next to the matching `openssl speed`; best round per side
//
// The machine is shared, so a single window is easily disturbed. Interleaving the two sides and
// keeping each side's best round compares them under the same (least) interference.

let rounds = Int(CommandLine.arguments.dropFirst(2).first ?? "3") ?? 3
let opensslSeconds = String(max(1, Int(seconds.rounded(.up))))
var ours: [String: Double] = [:]
var reference: [String: Double] = [:]
func keepBest(_ table: inout [String: Double], _ name: String, _ value: Double) {
    table[name] = max(table[name] ?? 0, value)
}
let hasher = PasswordHasher()   // OWASP default: 19 MiB, t=2
var argonTimes: [Double] = []

for round in 1...rounds {
    print("round \(round)/\(rounds)")
    // Each pair runs back to back so both sides see the same background load.
    keepBest(&ours, "ES256 sign", try measure { _ = try es256.sign(signingInput) })
    keepBest(&ours, "ES256 verify", try measure { try es256.verificationKey.verify(signature: esSignature, for: signingInput, algorithm: .es256) })
    if let rates = signVerifyRates(opensslSpeed(["-seconds", opensslSeconds, "ecdsap256"]), marker: "nistp256") {
        keepBest(&reference, "ES256 sign", rates.sign); keepBest(&reference, "ES256 verify", rates.verify)
    }
    keepBest(&ours, "RS256 verify", try measure { try rsaKey.verify(signature: rsaSignature, for: rsaInput, algorithm: .rs256) })
    if let rates = signVerifyRates(opensslSpeed(["-seconds", opensslSeconds, "rsa2048"]), marker: "rsa 2048") {
        keepBest(&reference, "RS256 verify", rates.verify)
    }
    keepBest(&ours, "EdDSA sign", try measure { _ = try ed25519.sign(signingInput) })
    keepBest(&ours, "EdDSA verify", try measure { try ed25519.verificationKey.verify(signature: edSignature, for: signingInput, algorithm: .edDSA) })
    if let rates = signVerifyRates(opensslSpeed(["-seconds", opensslSeconds, "ed25519"]), marker: "Ed25519") {
        keepBest(&reference, "EdDSA sign", rates.sign); keepBest(&reference, "EdDSA verify", rates.verify)
    }
    keepBest(&ours, "HMAC-SHA256 (256 B)", measure { _ = hmac.authenticationCode(for: hmacMessage) })
    let hmacOutput = opensslSpeed(["-seconds", opensslSeconds, "-bytes", "256", "-hmac", "sha256"])
    if let line = hmacOutput.split(separator: "\n").first(where: { $0.hasPrefix("hmac(sha256)") }),
       let kilobytes = line.split(separator: " ").last.flatMap({ Double($0.dropLast()) }) {
        keepBest(&reference, "HMAC-SHA256 (256 B)", kilobytes * 1000 / 256)
    }

    keepBest(&ours, "SHA-256 (256 B)", measure { _ = SHA256.hash(hmacMessage) })
    keepBest(&ours, "JWT verify ES256 (parse+verify+claims)", try measure { _ = try jwtVerifier.verify(jwt, key: es256.verificationKey, now: now) })
    keepBest(&ours, "JWT verify RS256 (parse+verify+claims)", try measure { _ = try rsaJWTVerifier.verify(rsaToken, key: rsaKey, now: rsaNow) })
    keepBest(&ours, "JWT sign ES256 (encode+sign)", try measure { _ = try JWTSigner.sign(["sub": JSONValue.string("u"), "exp": .integer(1)], with: es256) })
    for _ in 0..<4 {
        let start = ContinuousClock.now
        _ = try await hasher.hash("correct horse battery staple")
        let elapsed = ContinuousClock.now - start
        argonTimes.append(Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds))
    }
}
argonTimes.sort()
let argonMedian = argonTimes[argonTimes.count / 2]
ours["Argon2id hash (19 MiB, t=2)"] = 1 / argonMedian

// MARK: Table

func format(_ value: Double) -> String {
    value >= 100 ? String(format: "%.0f", value) : String(format: "%.1f", value)
}
let rows = ["ES256 sign", "ES256 verify", "RS256 verify", "EdDSA sign", "EdDSA verify", "HMAC-SHA256 (256 B)",
            "SHA-256 (256 B)", "JWT verify ES256 (parse+verify+claims)", "JWT verify RS256 (parse+verify+claims)",
            "JWT sign ES256 (encode+sign)", "Argon2id hash (19 MiB, t=2)"]
print("")
print("| operation | ours /s | openssl speed /s | ours/openssl |")
print("|---|---:|---:|---:|")
for row in rows {
    let mine = ours[row] ?? 0
    let theirs = reference[row]
    let ratio = theirs.map { String(format: "%.2f", mine / $0) } ?? "–"
    print("| \(row) | \(format(mine)) | \(theirs.map(format) ?? "–") | \(ratio) |")
}
print("")
print("best of \(rounds) interleaved rounds per side; Argon2id row = 1 / median hash time")
print(String(format: "Argon2id default parameters: median %.1f ms per hash (min %.1f, max %.1f, n=%d)",
             argonMedian * 1000, argonTimes.first! * 1000, argonTimes.last! * 1000, argonTimes.count))
