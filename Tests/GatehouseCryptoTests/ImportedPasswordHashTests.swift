import Foundation
import Testing
@testable import GatehouseCrypto

/// Hashes other systems export, verified through libxcrypt. The vectors were made by Debian's
/// ruby-bcrypt 3.1.18 (`BCrypt::Engine.hash_secret`, cost 4), the library Devise and
/// has_secure_password use; e2e/migrate/ makes fresh ones with Devise itself at test time.
@Suite struct ImportedPasswordHashTests {
    static let fast = Argon2idParameters(memoryBytes: 8 * 1024 * 1024, iterations: 1)
    static let vectors = [
        "$2a$04$Hsw2hdu8rSmlQnCmSSKa3.hVYWaMb8EvZNu3YI7OOOUuixwW45oya",
        "$2b$04$8p4NrmIqjMc5kl5EqmgmDeEAZ72qs4YJkbxQPYwy2JXVU2.4uAx9G",
        "$2y$04$uYuA3tGogpS99ZWKNx/45unNWaGsNjzlp4ssNhXh2NPufRMqgOMuq",
    ]

    @Test(arguments: vectors)
    func rubyBcryptHashesVerify(_ hash: String) async {
        let hasher = PasswordHasher(parameters: Self.fast)
        #expect(PasswordHashFormat.of(hash) == .bcrypt)
        #expect(await hasher.verify("pässwörd 1", against: hash))
        #expect(!(await hasher.verify("pässwörd 2", against: hash)))
        #expect(!(await hasher.verify("", against: hash)))
        // A match is upgraded to Argon2id at the next sign-in.
        #expect(hasher.needsRehash(hash))
    }

    @Test func devisePepperIsAppended() async {
        // BCrypt::Password.create("hunter22" + "pep", cost: 4), as Devise does with config.pepper = "pep".
        let hash = "$2a$04$aMB4xktvlnZ5ibfNikTRe.r.r.BHG5VPyZzHNZDfJr62QwQ/o4066"
        #expect(await PasswordHasher(parameters: Self.fast, bcryptPepper: "pep").verify("hunter22", against: hash))
        #expect(!(await PasswordHasher(parameters: Self.fast).verify("hunter22", against: hash)))
        #expect(await PasswordHasher(parameters: Self.fast).verify("hunter22pep", against: hash))
        #expect(!(await PasswordHasher(parameters: Self.fast, bcryptPepper: "other").verify("hunter22", against: hash)))
    }

    @Test func pepperNeverAppliesToArgon2() async throws {
        let hasher = PasswordHasher(parameters: Self.fast, bcryptPepper: "pep")
        let hash = try await hasher.hash("hunter22")
        #expect(PasswordHashFormat.of(hash) == .argon2id)
        #expect(await hasher.verify("hunter22", against: hash))
    }

    @Test func malformedAndUnsupportedHashesNeverMatch() async {
        let hasher = PasswordHasher(parameters: Self.fast)
        let good = Self.vectors[0]
        for hash in [String(good.dropLast()), good + "x", "$2x$" + good.dropFirst(4), "$2a$99$" + good.dropFirst(7),
                     "$1$abc$def", "plain text", "$argon2d$v=19$m=8,t=1,p=1$AAAA$AAAA", "*0"] {
            #expect(PasswordHashFormat.of(hash) == nil, "\(hash)")
            #expect(!(await hasher.verify("pässwörd 1", against: hash)))
        }
        // A NUL byte would cut the C string short: it never matches.
        #expect(!(await hasher.verify("pässwörd 1\u{0}junk", against: good)))
    }
}
