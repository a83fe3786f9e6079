import Foundation
import GatehouseClient
import GatehouseClientOpenSSL

/// The app's DPoP setup at launch: the key the stored tokens are bound to (rebuilt from the reference kept
/// beside them) or a new one, a client that proves every request with it, and an API client that sends
/// `Authorization: DPoP` with a fresh proof carrying the token's hash. On Apple platforms use
/// `SecureEnclaveDPoPKey(dataRepresentation:)` and `SecureEnclaveDPoPKey()` (GatehouseClientApple) instead.
func startDPoPSession(issuer: URL, configuration: ClientConfiguration, store: any TokenStore) async throws -> (AuthState, AuthorizedHTTPClient) {
    let stored = try await store.load()?.dpopKeyReference
    let key = try stored.map { try SoftwareDPoPKey(privateJWKData: $0) } ?? SoftwareDPoPKey()
    let client = try await OAuthClient.discover(issuer: issuer, configuration: configuration,
                                                signatureVerifier: OpenSSLIDTokenSignatureVerifier(), dpopKey: key)
    let state = AuthState(client: client, store: store)
    try await state.restore()
    return (state, AuthorizedHTTPClient(authState: state))
}
