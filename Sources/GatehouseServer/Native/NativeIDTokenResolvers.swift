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

extension ProviderWiring {
    /// Native sign-in through `verifier`, over this wiring's account rules.
    func nativeSignIn<Verifier: NativeTokenVerifier>(_ verifier: Verifier?, clients: ClientRegistry) -> NativeSignIn<Verifier> {
        NativeSignIn(verifier: verifier, apps: NativeAppDirectory(registry: clients), linker: makeLinker(), audit: audit,
                     replay: SubjectTokenReplayGuard(store: database.flowStates, clock: clock))
    }

    /// Native Sign in with Apple over this wiring's Apple provider and sealing key.
    func nativeAppleSignIn(clients: ClientRegistry) -> NativeSignIn<AppleNativeVerifier> {
        nativeSignIn(registry.apple.map { AppleNativeVerifier(apple: $0, sealing: flows.sealing) }, clients: clients)
    }

    /// Native sign-in with Google over this wiring's Google provider.
    func nativeGoogleSignIn(clients: ClientRegistry) -> NativeSignIn<GoogleNativeVerifier> {
        let google = registry.providers.lazy.compactMap { $0 as? OIDCProvider }.first { $0.kind == .google }
        return nativeSignIn(google.map(GoogleNativeVerifier.init), clients: clients)
    }
}
