import Foundation
import GatehouseClient
import Testing

@Suite struct AuthorizationCallbackTests {
    private let request = AuthorizationRequest(
        url: URL(string: "https://id.example.com/oauth/authorize")!, state: "s-123", nonce: "n-1",
        codeVerifier: String(repeating: "v", count: 43), redirectURI: Fixtures.redirect,
        expectedIssuer: Fixtures.issuer, requiresIssuerParameter: false, scopes: ["openid"]
    )

    private func parse(_ string: String, _ request: AuthorizationRequest? = nil) throws -> AuthorizationCallback {
        try (request ?? self.request).parseCallback(URL(string: string)!)
    }

    @Test func queryResponse() throws {
        let callback = try parse("com.example.app:/oauth/callback?code=abc%2B1&state=s-123")
        #expect(callback.code == "abc+1")
        #expect(callback.state == "s-123")
    }

    @Test func fragmentResponse() throws {
        let callback = try parse("com.example.app:/oauth/callback#code=frag&state=s-123")
        #expect(callback.code == "frag")
    }

    @Test func queryAndFragmentTogetherRejected() {
        #expect(throws: AuthorizationCallbackError.ambiguousResponse) {
            try parse("com.example.app:/oauth/callback?code=a&state=s-123#code=b&state=s-123")
        }
    }

    @Test func missingStateRejected() {
        #expect(throws: AuthorizationCallbackError.stateMissing) { try parse("com.example.app:/oauth/callback?code=abc") }
    }

    @Test func mismatchedStateRejected() {
        #expect(throws: AuthorizationCallbackError.stateMismatch) { try parse("com.example.app:/oauth/callback?code=abc&state=s-124") }
    }

    @Test func repeatedStateRejected() {
        #expect(throws: AuthorizationCallbackError.stateRepeated) {
            try parse("com.example.app:/oauth/callback?code=abc&state=s-123&state=s-123")
        }
        #expect(throws: AuthorizationCallbackError.parameterRepeated("code")) {
            try parse("com.example.app:/oauth/callback?code=abc&code=def&state=s-123")
        }
    }

    @Test func providerErrorSurfacesTyped() {
        #expect(throws: AuthorizationCallbackError.provider(OAuthError(
            code: .accessDenied, description: "The user said no", uri: URL(string: "https://id.example.com/help")
        ))) {
            try parse("com.example.app:/oauth/callback?error=access_denied&error_description=The+user+said+no&error_uri=https%3A%2F%2Fid.example.com%2Fhelp&state=s-123")
        }
    }

    @Test func forgedErrorWithoutStateIsAStateError() {
        #expect(throws: AuthorizationCallbackError.stateMissing) {
            try parse("com.example.app:/oauth/callback?error=access_denied")
        }
    }

    @Test func unknownErrorCodeKept() {
        #expect(throws: AuthorizationCallbackError.provider(OAuthError(code: .other("weird_thing")))) {
            try parse("com.example.app:/oauth/callback?error=weird_thing&state=s-123")
        }
    }

    @Test func issuerMismatchRejected() {
        #expect(throws: AuthorizationCallbackError.issuerMismatch(expected: Fixtures.issuer, actual: "https://evil.example.com")) {
            try parse("com.example.app:/oauth/callback?code=abc&state=s-123&iss=https%3A%2F%2Fevil.example.com")
        }
    }

    @Test func matchingIssuerAccepted() throws {
        let callback = try parse("com.example.app:/oauth/callback?code=abc&state=s-123&iss=https%3A%2F%2Fid.example.com")
        #expect(callback.parameters["iss"] == Fixtures.issuer)
    }

    @Test func missingIssuerRejectedWhenProviderAdvertisesRFC9207() {
        let strict = AuthorizationRequest(
            url: request.url, state: "s-123", nonce: nil, codeVerifier: request.codeVerifier, redirectURI: Fixtures.redirect,
            expectedIssuer: Fixtures.issuer, requiresIssuerParameter: true, scopes: []
        )
        #expect(throws: AuthorizationCallbackError.issuerMissing) { try parse("com.example.app:/oauth/callback?code=abc&state=s-123", strict) }
    }

    @Test func otherRedirectTargetRejected() {
        #expect(throws: AuthorizationCallbackError.redirectURIMismatch) { try parse("com.evil.app:/oauth/callback?code=abc&state=s-123") }
        #expect(throws: AuthorizationCallbackError.redirectURIMismatch) { try parse("com.example.app:/other?code=abc&state=s-123") }
    }

    @Test func missingCodeRejected() {
        #expect(throws: AuthorizationCallbackError.codeMissing) { try parse("com.example.app:/oauth/callback?state=s-123") }
    }
}
