import Foundation
import GatehouseCrypto
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// The token exchange's resolver: Google's ID tokens to the Google sign-in, everything else to Apple's.
/// The issuer is read from the unverified token only to choose; the chosen side verifies everything.
struct NativeIDTokenResolvers: ExternalIDTokenResolver {
    let apple: NativeSignIn<AppleNativeVerifier>
    let google: NativeSignIn<GoogleNativeVerifier>

    func resolve(idToken: String, rawNonce: String, client: OAuthClient, context: ClientContext) async throws -> (user: User, method: String) {
        try await resolve(idToken: idToken, rawNonce: rawNonce, name: nil, client: client, context: context)
    }

    func resolve(idToken: String, rawNonce: String, name: String?, client: OAuthClient, context: ClientContext) async throws
        -> (user: User, method: String) {
        let issuer = (try? CompactJWS(idToken)).flatMap { try? JWTClaims(json: $0.payload) }?.all["iss"]?.stringValue ?? ""
        let googleIssuers = [GoogleSettings.issuer, GoogleSettings.bareIssuer] + [google.verifier?.google.settings.issuer].compactMap { $0 }
        if googleIssuers.contains(issuer) { return try await google.resolve(idToken: idToken, rawNonce: rawNonce, client: client, context: context) }
        return try await apple.resolve(idToken: idToken, rawNonce: rawNonce, name: name, client: client, context: context)
    }
}
