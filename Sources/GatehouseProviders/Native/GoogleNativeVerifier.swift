import Foundation
import GatehouseCrypto
import GatehouseIdentity

/// Google's ID token from its native SDK; no authorization code (Google's SDKs give the app none to
/// forward for sign-in), so no refresh token either.
public struct GoogleNativeVerifier: NativeTokenVerifier {
    public let google: OIDCProvider

    public init(google: OIDCProvider) { self.google = google }

    public func identity(_ profile: ExternalProfile, authorizationCode: String?, name: String?) async throws -> VerifiedExternalIdentity {
        VerifiedExternalIdentity(provider: google.id, subject: profile.subject, email: profile.email,
                                 emailVerified: profile.emailVerified, isPrivateRelay: false, name: profile.name)
    }

    public func failure(for error: any Error, redeeming: Bool) -> NativeSignInFailure? {
        guard let error = error as? ProviderError else { return nil }
        // A Workspace account outside the configured domains: refused, not a bad token.
        if case .domainNotAllowed = error {
            return NativeSignInFailure(status: 403, code: .accessDenied, description: error.userMessage, reason: error.auditReason)
        }
        return NativeSignInFailure(error, redeeming: redeeming, wording: Self.kind.wording)
    }

    public static let kind = NativeProviderKind.google
    public var provider: (id: String, displayName: String) { (google.id, google.displayName) }

    public func verify(_ token: String, audiences: [String], rawNonce: String) async throws -> ExternalProfile {
        try await google.verifyNativeIDToken(token, audiences: audiences, rawNonce: rawNonce)
    }
}
