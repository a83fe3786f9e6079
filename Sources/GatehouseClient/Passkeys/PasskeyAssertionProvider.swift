import Foundation

/// What Gatehouse asks the platform for (`POST /native/passkey/options`): a discoverable-credential assertion
/// for `relyingPartyID` answering `challenge`, user verification required.
public struct PasskeyAssertionRequest: Sendable, Equatable {
    public let challenge: Data
    /// The RP ID the passkeys are scoped to (`passkeys.rp_id` at Gatehouse): the `webcredentials:` domain.
    public let relyingPartyID: String
    /// `required` or `preferred`, as Gatehouse sent it.
    public let userVerification: String
    public let timeout: TimeInterval

    public init(challenge: Data, relyingPartyID: String, userVerification: String, timeout: TimeInterval) {
        self.challenge = challenge
        self.relyingPartyID = relyingPartyID
        self.userVerification = userVerification
        self.timeout = timeout
    }
}

/// What the platform returned: the fields of `ASAuthorizationPlatformPublicKeyCredentialAssertion` (iOS) or of
/// Credential Manager's `PublicKeyCredential` JSON (Android), as bytes.
public struct PasskeyAssertion: Sendable, Equatable {
    public let credentialID: Data
    public let clientDataJSON: Data
    public let authenticatorData: Data
    public let signature: Data
    /// The user handle of the discoverable credential (absent only for a non-discoverable one).
    public let userHandle: Data?

    public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userHandle: Data?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// The platform's passkey ceremony behind one call, so the SDK's sign-in is the same on iOS
/// (`PlatformPasskeyAssertionProvider` in GatehouseClientApple, over `ASAuthorizationController`), on Android's
/// Kotlin side, and in Linux tests (a software authenticator). Throw `GatehouseSignInError.cancelled` when the
/// user closes the sheet.
public protocol PasskeyAssertionProvider: Sendable {
    func assertion(for request: PasskeyAssertionRequest) async throws -> PasskeyAssertion
}
