import Foundation
import Testing
@testable import GatehouseCrypto

@Suite struct JWTTests {
    static let key = try! SigningKey.generate(.es256)
    static let issuedAt = Date(timeIntervalSince1970: 1_700_000_000)
    static let verifier = JWTVerifier(allowedAlgorithms: [.es256],
                                      rules: ClaimRules(issuers: ["https://id.example"], audiences: ["app"], leeway: 30))

    static func token(_ claims: [String: JSONValue], key: SigningKey = key) throws -> String {
        try JWTSigner.sign(claims, with: key)
    }

    static func standardClaims(exp: Double = 1_700_000_600) -> [String: JSONValue] {
        ["iss": .string("https://id.example"), "aud": .string("app"), "sub": .string("user-1"),
         "iat": .integer(1_700_000_000), "exp": .double(exp)]
    }

    @Test func signsAndVerifiesAJWT() throws {
        let token = try Self.token(Self.standardClaims())
        let jwt = try Self.verifier.verify(token, key: Self.key.verificationKey, now: Self.issuedAt)
        #expect(jwt.algorithm == .es256)
        #expect(jwt.header.keyID == Self.key.keyID && jwt.header.type == "JWT")
        #expect(jwt.claims.subject == "user-1" && jwt.claims.audience == ["app"])
        #expect(jwt.claims.expiresAt == Date(timeIntervalSince1970: 1_700_000_600))
        // And through a key set, found by kid.
        let set = VerificationKeySet(keys: [try SigningKey.generate(.es256).verificationKey, Self.key.verificationKey])
        #expect(try Self.verifier.verify(token, keys: set, now: Self.issuedAt).claims.issuer == "https://id.example")
    }

    @Test func edDSAJWTRoundTrip() throws {
        let key = try SigningKey.generate(.edDSA)
        let verifier = JWTVerifier(allowedAlgorithms: [.edDSA], rules: ClaimRules(issuers: nil, audiences: nil))
        let jwt = try verifier.verify(try Self.token(Self.standardClaims(), key: key), key: key.verificationKey, now: Self.issuedAt)
        #expect(jwt.algorithm == .edDSA)
        // The ES256-only verifier refuses it.
        #expect(throws: JOSEError.algorithmNotAllowed(.edDSA)) {
            try Self.verifier.verify(try Self.token(Self.standardClaims(), key: key), key: key.verificationKey, now: Self.issuedAt)
        }
    }

    @Test func expiryHonoursLeewayAtTheEdge() throws {
        let token = try Self.token(Self.standardClaims(exp: 1_700_000_600))
        let exp = Date(timeIntervalSince1970: 1_700_000_600)
        _ = try Self.verifier.verify(token, key: Self.key.verificationKey, now: exp.addingTimeInterval(29))
        #expect(throws: JOSEError.expired) { try Self.verifier.verify(token, key: Self.key.verificationKey, now: exp.addingTimeInterval(30)) }
        #expect(throws: JOSEError.expired) { try Self.verifier.verify(token, key: Self.key.verificationKey, now: exp.addingTimeInterval(3600)) }
    }

    @Test func notBeforeAndIssuedAtInTheFuture() throws {
        var claims = Self.standardClaims()
        claims["nbf"] = .integer(1_700_000_100)
        let token = try Self.token(claims)
        #expect(throws: JOSEError.notYetValid) {
            try Self.verifier.verify(token, key: Self.key.verificationKey, now: Date(timeIntervalSince1970: 1_700_000_069))
        }
        _ = try Self.verifier.verify(token, key: Self.key.verificationKey, now: Date(timeIntervalSince1970: 1_700_000_070))

        claims = Self.standardClaims()
        claims["iat"] = .integer(1_700_000_100)
        let future = try Self.token(claims)
        #expect(throws: JOSEError.issuedInFuture) {
            try Self.verifier.verify(future, key: Self.key.verificationKey, now: Date(timeIntervalSince1970: 1_700_000_069))
        }
    }

    @Test func wrongIssuerAndAudience() throws {
        var claims = Self.standardClaims()
        claims["iss"] = .string("https://evil.example")
        #expect(throws: JOSEError.wrongIssuer) { try Self.verifier.verify(try Self.token(claims), key: Self.key.verificationKey, now: Self.issuedAt) }

        claims = Self.standardClaims()
        claims["aud"] = .array([.string("other"), .string("another")])
        #expect(throws: JOSEError.wrongAudience) { try Self.verifier.verify(try Self.token(claims), key: Self.key.verificationKey, now: Self.issuedAt) }

        claims["aud"] = .array([.string("other"), .string("app")])   // any match suffices
        _ = try Self.verifier.verify(try Self.token(claims), key: Self.key.verificationKey, now: Self.issuedAt)
    }

    @Test func missingAndMistypedClaims() throws {
        var claims = Self.standardClaims()
        claims["exp"] = nil
        #expect(throws: JOSEError.missingClaim("exp")) { try Self.verifier.verify(try Self.token(claims), key: Self.key.verificationKey, now: Self.issuedAt) }
        claims = Self.standardClaims()
        claims["exp"] = .string("tomorrow")
        #expect(throws: JOSEError.invalidClaim("exp")) { try Self.verifier.verify(try Self.token(claims), key: Self.key.verificationKey, now: Self.issuedAt) }
        claims = Self.standardClaims()
        claims["aud"] = .integer(5)
        #expect(throws: JOSEError.invalidClaim("aud")) { try Self.verifier.verify(try Self.token(claims), key: Self.key.verificationKey, now: Self.issuedAt) }
        let strict = JWTVerifier(allowedAlgorithms: [.es256],
                                 rules: ClaimRules(issuers: nil, audiences: nil, requiredClaims: ["nonce"]))
        #expect(throws: JOSEError.missingClaim("nonce")) { try strict.verify(try Self.token(Self.standardClaims()), key: Self.key.verificationKey, now: Self.issuedAt) }
    }

    @Test func unknownKidInALocalSet() throws {
        let other = VerificationKeySet(keys: [try SigningKey.generate(.es256).verificationKey])
        #expect(throws: JOSEError.unknownKey(kid: Self.key.keyID)) {
            try Self.verifier.verify(try Self.token(Self.standardClaims()), keys: other, now: Self.issuedAt)
        }
    }

    @Test func malformedPayloadJSONAfterValidSignature() throws {
        let token = try CompactJWS.sign(payload: Array("[1,2]".utf8), with: Self.key)
        #expect(throws: JOSEError.malformedJSON) { try Self.verifier.verify(token, key: Self.key.verificationKey, now: Self.issuedAt) }
    }

    @Test func oversizedTokenThroughTheVerifier() throws {
        var claims = Self.standardClaims()
        claims["padding"] = .string(String(repeating: "x", count: 20_000))
        #expect(throws: JOSEError.tokenTooLarge(limit: 16_384)) {
            try Self.verifier.verify(try Self.token(claims), key: Self.key.verificationKey, now: Self.issuedAt)
        }
    }

    /// Apple sends `email_verified` / `is_private_email` as strings; other providers as booleans.
    @Test func booleanClaimsAcceptBothForms() throws {
        struct AppleClaims: Decodable {
            let sub: String
            let email_verified: BooleanClaim
            let is_private_email: BooleanClaim?
        }
        let claims = try JWTClaims(json: Data(#"{"sub":"a","email_verified":"true","is_private_email":false,"x":"maybe"}"#.utf8))
        #expect(try claims.boolean("email_verified") == true)
        #expect(try claims.boolean("is_private_email") == false)
        #expect(try claims.boolean("absent") == nil)
        #expect(throws: JOSEError.invalidClaim("x")) { try claims.boolean("x") }
        let typed = try claims.decode(AppleClaims.self)
        #expect(typed.email_verified.value && typed.is_private_email?.value == false)
        let bad = try JWTClaims(json: Data(#"{"sub":"a","email_verified":"yes"}"#.utf8))
        #expect(throws: JOSEError.self) { try bad.decode(AppleClaims.self) }
    }
}
