/// Why a WebAuthn response was refused: one case per check of the verification procedures
/// (WebAuthn Level 3 §7.1 registration, §7.2 authentication). `reason` is the audit log's spelling.
public enum WebAuthnRefusal: Error, Sendable, Equatable {
    /// `clientDataJSON` is not the JSON object WebAuthn §5.8.1 describes.
    case malformedClientData
    /// `type` is not `webauthn.create` (registration) or `webauthn.get` (authentication).
    case wrongCeremonyType
    /// The challenge was never issued, is used up, expired, or belongs to another ceremony or flow.
    case unknownChallenge
    /// `origin` is not one this relying party accepts.
    case wrongOrigin
    /// The response says it was made in a cross-origin iframe; this relying party is not embedded.
    case crossOrigin
    /// The authenticator data (or attestation object) does not parse.
    case malformedAuthenticatorData
    /// `rpIdHash` is not SHA-256 of the configured RP ID.
    case wrongRelyingParty
    /// The UP flag is not set.
    case userNotPresent
    /// UV was required and the flag is not set.
    case userNotVerified
    /// BS set without BE (WebAuthn §6.1: such data is invalid).
    case inconsistentBackupFlags
    /// A registration without attested credential data, or whose credential id does not match.
    case missingCredentialData
    /// The credential key is not a usable COSE key, or its algorithm was not offered.
    case unsupportedKey
    /// An attestation statement format other than `none` and `packed`.
    case unsupportedAttestation
    /// The attestation statement does not verify.
    case invalidAttestation
    /// The credential id is already registered.
    case credentialExists
    /// The assertion names a credential that is not registered (or is another user's).
    case unknownCredential
    /// The signature does not verify under the stored key.
    case invalidSignature
    /// The signature counter did not increase although the authenticator keeps one (a cloned key?).
    case signCountRegression

    /// The audit log's spelling.
    public var reason: String {
        switch self {
        case .malformedClientData: "malformed_client_data"
        case .wrongCeremonyType: "wrong_type"
        case .unknownChallenge: "unknown_challenge"
        case .wrongOrigin: "wrong_origin"
        case .crossOrigin: "cross_origin"
        case .malformedAuthenticatorData: "malformed_authenticator_data"
        case .wrongRelyingParty: "wrong_rp_id"
        case .userNotPresent: "user_not_present"
        case .userNotVerified: "user_not_verified"
        case .inconsistentBackupFlags: "inconsistent_backup_flags"
        case .missingCredentialData: "missing_credential_data"
        case .unsupportedKey: "unsupported_key"
        case .unsupportedAttestation: "unsupported_attestation"
        case .invalidAttestation: "invalid_attestation"
        case .credentialExists: "credential_exists"
        case .unknownCredential: "unknown_credential"
        case .invalidSignature: "invalid_signature"
        case .signCountRegression: "sign_count_regression"
        }
    }
}
