import Foundation

/// What Apple's token endpoint said about Gatehouse's client credentials (`gatehouse providers check`).
public enum AppleCredentialsVerdict: Sendable, Equatable {
    /// `invalid_grant` for the dummy code: Apple accepted the client secret, so the Services ID, team id,
    /// key id and key belong together.
    case accepted
    /// `invalid_client`: the client secret was refused (wrong team id, key id, key, or Services ID).
    case rejected
    /// Any other answer (its `error`, or `http_<status>`).
    case unexpected(String)
}

extension AppleProvider {
    /// Proves the team id, key id and key together without a user: mints a client secret exactly as
    /// sign-ins do and redeems a code that cannot exist. Apple authenticates the client before it looks at
    /// the code, so `invalid_grant` means the credentials are right and `invalid_client` that they are not.
    public func probeCredentials(redirectURI: String) async throws -> AppleCredentialsVerdict {
        let response = try await transport.exchange(.form(settings.tokenEndpoint, [
            ("client_id", settings.clientID), ("client_secret", try secret.mint(now: clock())),
            ("code", "gatehouse-providers-check.0.dummy"), ("grant_type", "authorization_code"), ("redirect_uri", redirectURI),
        ], headers: ["Accept": "application/json"]))
        if response.status >= 500 { throw ProviderError.unavailable("HTTP \(response.status) from \(settings.tokenEndpoint.path)") }
        let code = response.jsonObject?["error"]?.stringValue ?? "http_\(response.status)"
        switch code {
        case "invalid_grant": return .accepted
        case "invalid_client": return .rejected
        default: return .unexpected(code)
        }
    }
}
