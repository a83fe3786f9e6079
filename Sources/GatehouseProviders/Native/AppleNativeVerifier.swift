import Foundation
import GatehouseCrypto
import GatehouseIdentity

/// Sign in with Apple's identity token, with the authorization code redeemed as the app for Apple's
/// refresh token (sealed, for revocation).
public struct AppleNativeVerifier: NativeTokenVerifier {
    public let apple: AppleProvider
    public let sealing: KeyEncryptionKey

    public init(apple: AppleProvider, sealing: KeyEncryptionKey) { self.apple = apple; self.sealing = sealing }

    public func identity(_ verified: NativeAppleIdentity, authorizationCode: String?, name: String?) async throws -> VerifiedExternalIdentity {
        var refreshToken: String?
        if let authorizationCode {
            refreshToken = try await apple.redeemNativeCode(authorizationCode, bundleID: verified.audience, expectedSubject: verified.subject)
        }
        let sealed = try refreshToken.map {
            try sealing.seal(Array($0.utf8), keyID: ProviderTokenSealing.label(provider: apple.id, subject: verified.subject))
        }
        return VerifiedExternalIdentity(provider: apple.id, subject: verified.subject, email: verified.email,
                                        emailVerified: verified.emailVerified, isPrivateRelay: verified.isPrivateRelay, name: name,
                                        sealedRefreshToken: sealed,
                                        // Apple revokes a token only when asked by the bundle id it was issued to.
                                        tokenClientID: sealed == nil ? nil : verified.audience)
    }

    public func failure(for error: any Error, redeeming: Bool) -> NativeSignInFailure? {
        guard let error = error as? ProviderError else { return nil }
        switch error {
        case .providerError, .invalidCallback:
            return NativeSignInFailure(status: 400, code: .invalidGrant,
                                       description: "Apple refused the authorization code (expired, used or for another app).",
                                       reason: error.auditReason)
        default:
            return NativeSignInFailure(error, redeeming: redeeming, wording: Self.kind.wording)
        }
    }

    public static let kind = NativeProviderKind.apple
    public var provider: (id: String, displayName: String) { (apple.id, apple.displayName) }

    public func verify(_ token: String, audiences: [String], rawNonce: String) async throws -> NativeAppleIdentity {
        try await apple.verifyNativeIdentityToken(token, audiences: audiences, rawNonce: rawNonce)
    }
}
