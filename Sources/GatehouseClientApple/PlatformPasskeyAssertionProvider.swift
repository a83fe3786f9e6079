#if canImport(AuthenticationServices)
import AuthenticationServices
import Foundation
import GatehouseClient

/// The platform's passkey sheet for ``NativePasskeySignInClient``: `ASAuthorizationPlatformPublicKeyCredentialProvider`
/// for the RP ID Gatehouse sent, run by an `ASAuthorizationController`.
///
/// The app needs the Associated Domains entitlement `webcredentials:<rp id>`, and Gatehouse must list the app's
/// `TEAMID.bundle.id` in `apple_app_ids` (served in apple-app-site-association's `webcredentials.apps`); the
/// assertion then carries the origin `https://<rp id>`, which Gatehouse accepts only for such an app.
@available(iOS 16.0, macOS 13.0, *)
@MainActor
public final class PlatformPasskeyAssertionProvider: NSObject, PasskeyAssertionProvider, ASAuthorizationControllerDelegate,
    ASAuthorizationControllerPresentationContextProviding {
    private let anchor: ASPresentationAnchor
    private var continuation: CheckedContinuation<PasskeyAssertion, any Error>?
    private var controller: ASAuthorizationController?

    /// `anchor`: the window the sheet is shown over.
    public init(anchor: ASPresentationAnchor) {
        self.anchor = anchor
    }

    public nonisolated func assertion(for request: PasskeyAssertionRequest) async throws -> PasskeyAssertion {
        try await run(request)
    }

    private func run(_ request: PasskeyAssertionRequest) async throws -> PasskeyAssertion {
        let provider = ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier: request.relyingPartyID)
        let assertionRequest = provider.createCredentialAssertionRequest(challenge: request.challenge)
        assertionRequest.userVerificationPreference = request.userVerification == "required" ? .required : .preferred
        let controller = ASAuthorizationController(authorizationRequests: [assertionRequest])
        controller.delegate = self
        controller.presentationContextProvider = self
        self.controller = controller
        return try await withCheckedThrowingContinuation { continuation in
            self.continuation = continuation
            controller.performRequests()
        }
    }

    public nonisolated func presentationAnchor(for controller: ASAuthorizationController) -> ASPresentationAnchor {
        MainActor.assumeIsolated { anchor }
    }

    public nonisolated func authorizationController(controller: ASAuthorizationController,
                                                    didCompleteWithAuthorization authorization: ASAuthorization) {
        let credential = authorization.credential as? ASAuthorizationPlatformPublicKeyCredentialAssertion
        let assertion = credential.map {
            PasskeyAssertion(credentialID: $0.credentialID, clientDataJSON: $0.rawClientDataJSON,
                             authenticatorData: $0.rawAuthenticatorData, signature: $0.signature, userHandle: $0.userID)
        }
        MainActor.assumeIsolated {
            if let assertion {
                finish(.success(assertion))
            } else {
                finish(.failure(GatehouseSignInError.refused(code: "invalid_credential", message: "The system returned no passkey assertion.")))
            }
        }
    }

    public nonisolated func authorizationController(controller: ASAuthorizationController, didCompleteWithError error: any Error) {
        let cancelled = (error as? ASAuthorizationError)?.code == .canceled
        let message = error.localizedDescription
        MainActor.assumeIsolated {
            finish(.failure(cancelled ? GatehouseSignInError.cancelled : GatehouseSignInError.refused(code: "passkey_failed", message: message)))
        }
    }

    private func finish(_ result: Result<PasskeyAssertion, any Error>) {
        continuation?.resume(with: result)
        continuation = nil
        controller = nil
    }
}
#endif
