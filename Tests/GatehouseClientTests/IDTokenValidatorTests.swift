import Foundation
import GatehouseClient
import Testing

@Suite struct IDTokenValidatorTests {
    private let now = Date(timeIntervalSince1970: 1_800_000_000)
    private let jwks = JWKS(keys: [JWK(kty: "RSA", kid: "k1", n: "AQAB", e: "AQAB")])
    private var validator: IDTokenValidator {
        let now = self.now
        return IDTokenValidator(issuer: Fixtures.issuer, clientID: "app-1", leeway: 60, now: { now })
    }

    private func validate(_ overrides: [String: Any] = [:], header: [String: Any] = ["alg": "RS256", "kid": "k1"], signature: String = "good", nonce: String? = "n-1") throws -> IDTokenClaims {
        let token = Fixtures.jwt(header: header, claims: Fixtures.claims(now: now, overrides: overrides), signature: signature)
        return try validator.validate(token, nonce: nonce, signatureCheck: .verify(FakeSignatureVerifier(), jwks: jwks))
    }

    @Test func validTokenAccepted() throws {
        let claims = try validate(["email": "a@example.com", "email_verified": "true"])
        #expect(claims.subject == "user-1")
        #expect(claims.audience == ["app-1"])
        #expect(claims.email == "a@example.com")
        #expect(claims.emailVerified == true)
    }

    @Test func wrongIssuerRejected() {
        #expect(throws: IDTokenError.issuerMismatch(expected: Fixtures.issuer, actual: "https://evil.example.com")) {
            try validate(["iss": "https://evil.example.com"])
        }
    }

    @Test func wrongAudienceRejected() {
        #expect(throws: IDTokenError.audienceMismatch) { try validate(["aud": "someone-else"]) }
        #expect(throws: IDTokenError.audienceMismatch) { try validate(["aud": ["x", "y"], "azp": "app-1"]) }
    }

    @Test func audienceArrayNeedsAuthorizedParty() throws {
        #expect(throws: IDTokenError.authorizedPartyMismatch) { try validate(["aud": ["app-1", "api"]]) }
        #expect(throws: IDTokenError.authorizedPartyMismatch) { try validate(["aud": ["app-1", "api"], "azp": "api"]) }
        let claims = try validate(["aud": ["app-1", "api"], "azp": "app-1"])
        #expect(claims.authorizedParty == "app-1")
        _ = try validate(["aud": ["app-1"]])
    }

    @Test func expiredRejectedOutsideLeeway() throws {
        #expect(throws: IDTokenError.expired) { try validate(["exp": now.timeIntervalSince1970 - 61]) }
        _ = try validate(["exp": now.timeIntervalSince1970 - 30]) // inside the 60 s leeway
    }

    @Test func issuedInFutureRejected() throws {
        #expect(throws: IDTokenError.issuedInFuture) { try validate(["iat": now.timeIntervalSince1970 + 120]) }
        _ = try validate(["iat": now.timeIntervalSince1970 + 30])
    }

    @Test func nonceChecked() {
        #expect(throws: IDTokenError.nonceMismatch) { try validate(["nonce": "replayed"]) }
        #expect(throws: IDTokenError.nonceMissing) {
            let token = Fixtures.jwt(claims: Fixtures.claims(now: now).filter { $0.key != "nonce" }, signature: "good")
            _ = try validator.validate(token, nonce: "n-1", signatureCheck: .verify(FakeSignatureVerifier(), jwks: jwks))
        }
    }

    @Test func algNoneRejectedEvenWhenSignatureSkipped() {
        for alg in ["none", "None", "NONE"] {
            let token = Fixtures.jwt(header: ["alg": alg], claims: Fixtures.claims(now: now), signature: "")
            #expect(throws: IDTokenError.algorithmNotAllowed(alg)) {
                try validator.validate(token, nonce: "n-1", signatureCheck: .trustTokenEndpointTLS)
            }
        }
    }

    @Test func symmetricAlgorithmRejected() {
        #expect(throws: IDTokenError.algorithmNotAllowed("HS256")) { try validate(header: ["alg": "HS256"]) }
    }

    @Test func badSignatureRejected() {
        #expect(throws: IDTokenError.signatureInvalid) { try validate(signature: "forged") }
    }

    @Test func malformedRejected() {
        #expect(throws: IDTokenError.malformed) {
            try validator.validate("abc.def", nonce: nil, signatureCheck: .trustTokenEndpointTLS)
        }
    }

    @Test func missingVerifierIsAnErrorNotASkip() async {
        let client = Fixtures.oauthClient(StubTransport { _ in .json(#"{"keys":[]}"#) }, now: now)
        let token = Fixtures.jwt(claims: Fixtures.claims(now: now), signature: "good")
        await #expect(throws: IDTokenError.noSignatureVerifier) { try await client.validateIDToken(token, nonce: "n-1") }
    }

    @Test func jwksCandidateSelection() {
        let keys = JWKS(keys: [
            JWK(kty: "RSA", kid: "a", use: "sig"), JWK(kty: "RSA", kid: "b", use: "enc"),
            JWK(kty: "EC", kid: "c", crv: "P-256"), JWK(kty: "RSA", kid: "d", alg: "RS512"),
        ])
        #expect(keys.candidateKeys(for: JOSEHeader(alg: "RS256", kid: "a")).map(\.kid) == ["a"])
        #expect(keys.candidateKeys(for: JOSEHeader(alg: "RS256", kid: "b")).isEmpty)
        #expect(keys.candidateKeys(for: JOSEHeader(alg: "RS256")).map(\.kid) == ["a"])
        #expect(keys.candidateKeys(for: JOSEHeader(alg: "ES256")).map(\.kid) == ["c"])
    }
}
