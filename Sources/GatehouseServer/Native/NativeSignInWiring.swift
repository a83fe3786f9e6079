import GatehouseIdentity
import GatehouseProviders

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
