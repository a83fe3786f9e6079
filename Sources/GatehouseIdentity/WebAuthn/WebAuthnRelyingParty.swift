import Foundation
import GatehouseCrypto

/// What a browser or platform returned from `navigator.credentials.create()`.
public struct RegistrationResponse: Sendable {
    /// `rawId`.
    public var credentialID: [UInt8]
    public var clientDataJSON: [UInt8]
    public var attestationObject: [UInt8]
    /// `getTransports()`, as hints.
    public var transports: [String]

    public init(credentialID: [UInt8], clientDataJSON: [UInt8], attestationObject: [UInt8], transports: [String] = []) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.transports = transports
    }
}

/// What a browser or platform returned from `navigator.credentials.get()`.
public struct AssertionResponse: Sendable {
    /// `rawId`.
    public var credentialID: [UInt8]
    public var clientDataJSON: [UInt8]
    public var authenticatorData: [UInt8]
    public var signature: [UInt8]
    /// The user handle a discoverable credential reports; may be absent for others.
    public var userHandle: [UInt8]?

    public init(credentialID: [UInt8], clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8], userHandle: [UInt8]?) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}

/// A registration that passed every check, ready to store.
public struct VerifiedRegistration: Sendable {
    public let credentialID: [UInt8]
    public let publicKey: [UInt8]
    public let algorithm: COSEAlgorithm
    public let signCount: UInt32
    public let backupEligible: Bool
    public let backedUp: Bool
    public let userVerified: Bool
    public let aaguid: [UInt8]
    /// `none`, `self` or `basic`.
    public let attestation: String
}

/// An assertion that passed every check of the signature and the client data.
public struct VerifiedAssertion: Sendable {
    public let signCount: UInt32
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backedUp: Bool
}

/// A WebAuthn relying party: the RP ID, the origins it accepts, and the verification procedures
/// of WebAuthn Level 3 §7.1 (registering a credential) and §7.2 (verifying an assertion), minus the
/// steps that need storage (challenge lookup, credential lookup, counter bookkeeping), which
/// ``WebAuthnCeremonies`` adds.
public struct WebAuthnRelyingParty: Sendable {
    /// The RP ID: the registrable-domain suffix of the origins' host that credentials are scoped to.
    public let id: String
    /// The name browsers show.
    public let name: String
    /// Exact origins accepted in `clientDataJSON.origin` (web origins, an iOS app's `https://<rp id>`,
    /// Android `android:apk-key-hash:…` values).
    public let origins: Set<String>
    /// The algorithms offered, in preference order.
    public let algorithms: [COSEAlgorithm]
    let rpIDHash: [UInt8]

    /// A relying party for `id`, accepting `origins`.
    public init(id: String, name: String, origins: Set<String>, algorithms: [COSEAlgorithm] = [.es256, .edDSA, .rs256]) {
        self.id = id
        self.name = name
        self.origins = origins
        self.algorithms = algorithms
        rpIDHash = SHA256.hash(id)
    }

    /// The default RP ID: the host of the public URL (lowercased, without port).
    public static func defaultID(publicURL: URL) -> String? {
        publicURL.host?.lowercased()
    }

    /// The web origin of a public URL: `scheme://host[:port]`, the port only when not the default.
    public static func origin(of publicURL: URL) -> String? {
        guard let scheme = publicURL.scheme?.lowercased(), let host = publicURL.host?.lowercased() else { return nil }
        if let port = publicURL.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            return "\(scheme)://\(host):\(port)"
        }
        return "\(scheme)://\(host)"
    }

    /// Checks the client data's type, challenge and origin (§7.1 steps 7–10, §7.2 steps 11–14).
    /// `challengeHash` is the stored SHA-256 of the challenge this ceremony issued.
    func checkClientData(_ json: [UInt8], type: String, challengeHash: [UInt8]) throws(WebAuthnRefusal) -> CollectedClientData {
        let clientData = try CollectedClientData(json: json)
        guard clientData.type == type else { throw .wrongCeremonyType }
        guard ConstantTime.equals(SHA256.hash(clientData.challenge), challengeHash) else { throw .unknownChallenge }
        guard origins.contains(clientData.origin) else { throw .wrongOrigin }
        // Gatehouse's pages are never framed (frame-ancestors 'none'), so a cross-origin ceremony is not ours.
        guard !clientData.crossOrigin, clientData.topOrigin == nil else { throw .crossOrigin }
        return clientData
    }

    /// Checks the flags every ceremony needs (§7.1 steps 14–17, §7.2 steps 16–18).
    func checkFlags(_ data: AuthenticatorData, requireUserVerification: Bool) throws(WebAuthnRefusal) {
        guard ConstantTime.equals(data.rpIDHash, rpIDHash) else { throw .wrongRelyingParty }
        guard data.userPresent else { throw .userNotPresent }
        if requireUserVerification, !data.userVerified { throw .userNotVerified }
        if data.backedUp, !data.backupEligible { throw .inconsistentBackupFlags }
    }

    /// §7.1: verifies a registration answering the challenge whose hash is `challengeHash`.
    public func verifyRegistration(_ response: RegistrationResponse, challengeHash: [UInt8],
                                   requireUserVerification: Bool) throws(WebAuthnRefusal) -> VerifiedRegistration {
        _ = try checkClientData(response.clientDataJSON, type: "webauthn.create", challengeHash: challengeHash)
        let object = try AttestationObject(response.attestationObject)
        let data = object.authenticatorData
        try checkFlags(data, requireUserVerification: requireUserVerification)
        guard let attested = data.attestedCredential, attested.credentialID == response.credentialID else { throw .missingCredentialData }
        let key: COSEKey
        do { key = try COSEKey(bytes: attested.publicKey) } catch { throw .unsupportedKey }
        guard algorithms.contains(key.algorithm) else { throw .unsupportedKey }
        let kind = try AttestationVerifier.verify(object, clientDataHash: SHA256.hash(response.clientDataJSON), credentialKey: key)
        return VerifiedRegistration(
            credentialID: attested.credentialID, publicKey: attested.publicKey, algorithm: key.algorithm, signCount: data.signCount,
            backupEligible: data.backupEligible, backedUp: data.backedUp, userVerified: data.userVerified,
            // With `none`, the AAGUID says nothing verified; browsers zero it anyway.
            aaguid: kind == .none ? [UInt8](repeating: 0, count: 16) : attested.aaguid, attestation: kind.rawValue)
    }

    /// §7.2: verifies an assertion by the credential whose COSE key is `publicKey`, answering the
    /// challenge whose hash is `challengeHash`. The caller has matched the credential to the user.
    public func verifyAssertion(_ response: AssertionResponse, publicKey: [UInt8], challengeHash: [UInt8],
                                requireUserVerification: Bool) throws(WebAuthnRefusal) -> VerifiedAssertion {
        _ = try checkClientData(response.clientDataJSON, type: "webauthn.get", challengeHash: challengeHash)
        let data = try AuthenticatorData(response.authenticatorData)
        // An assertion carries no attested credential data (§6.1).
        guard data.attestedCredential == nil else { throw .malformedAuthenticatorData }
        try checkFlags(data, requireUserVerification: requireUserVerification)
        let key: COSEKey
        do { key = try COSEKey(bytes: publicKey) } catch { throw .unsupportedKey }
        guard key.isValidSignature(response.signature, for: response.authenticatorData + SHA256.hash(response.clientDataJSON)) else {
            throw .invalidSignature
        }
        return VerifiedAssertion(signCount: data.signCount, userVerified: data.userVerified, backupEligible: data.backupEligible,
                                 backedUp: data.backedUp)
    }
}
