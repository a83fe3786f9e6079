import GatehouseCrypto

/// The attestation object of a registration (WebAuthn Level 3 §6.5.4): `fmt`, `attStmt`, `authData`.
public struct AttestationObject: Sendable {
    public let format: String
    public let statement: CBORValue
    public let authenticatorData: AuthenticatorData

    /// Parses the CBOR map; throws ``WebAuthnRefusal/malformedAuthenticatorData`` unless it holds
    /// exactly those three members with the right types.
    public init(_ bytes: [UInt8]) throws(WebAuthnRefusal) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .malformedAuthenticatorData }
        guard let entries = value.entries, entries.count == 3,
              let format = value["fmt"]?.text,
              let statement = value["attStmt"], statement.entries != nil,
              let authData = value["authData"]?.bytes else { throw .malformedAuthenticatorData }
        self.format = format
        self.statement = statement
        self.authenticatorData = try AuthenticatorData(authData)
    }
}

/// Attestation statement verification (WebAuthn Level 3 §8): `none` and `packed`.
enum AttestationVerifier {
    /// The attestation type a verified statement proves.
    enum Kind: String, Sendable {
        /// `none`: nothing about the authenticator is claimed.
        case none
        /// `packed` signed by the credential key itself.
        case selfAttestation = "self"
        /// `packed` signed by an attestation certificate (no trust anchors are configured, so the
        /// chain is recorded, not judged).
        case basic
    }

    static func verify(_ object: AttestationObject, clientDataHash: [UInt8], credentialKey: COSEKey) throws(WebAuthnRefusal) -> Kind {
        switch object.format {
        case "none":
            // §8.7: the statement is an empty map.
            guard object.statement.entries?.isEmpty == true else { throw .invalidAttestation }
            return .none
        case "packed":
            return try verifyPacked(object, clientDataHash: clientDataHash, credentialKey: credentialKey)
        default:
            throw .unsupportedAttestation
        }
    }

    /// §8.2 verification procedure.
    private static func verifyPacked(_ object: AttestationObject, clientDataHash: [UInt8], credentialKey: COSEKey) throws(WebAuthnRefusal) -> Kind {
        let statement = object.statement
        guard let alg = statement["alg"]?.int, let signature = statement["sig"]?.bytes else { throw .invalidAttestation }
        let signed = object.authenticatorData.raw + clientDataHash
        if let chain = statement["x5c"] {
            guard case .array(let certificates) = chain, let leaf = certificates.first?.bytes,
                  certificates.allSatisfy({ $0.bytes != nil }), statement.entries?.count == 3 else { throw .invalidAttestation }
            guard let algorithm = COSEAlgorithm(rawValue: alg) else { throw .unsupportedAttestation }
            let certificate: AttestationCertificate
            do { certificate = try AttestationCertificate(der: leaf) } catch { throw .invalidAttestation }
            guard certificate.meetsPackedRequirements,
                  certificate.isValidSignature(signature, for: signed, algorithm: algorithm) else { throw .invalidAttestation }
            // §8.2.1: an AAGUID in the certificate must be the one in the authenticator data.
            if let aaguid = certificate.fidoAAGUID, aaguid != object.authenticatorData.attestedCredential?.aaguid {
                throw .invalidAttestation
            }
            return .basic
        }
        // Self attestation: the credential key signs, with the algorithm it is bound to.
        guard statement.entries?.count == 2, alg == credentialKey.algorithm.rawValue,
              credentialKey.isValidSignature(signature, for: signed) else { throw .invalidAttestation }
        return .selfAttestation
    }
}
