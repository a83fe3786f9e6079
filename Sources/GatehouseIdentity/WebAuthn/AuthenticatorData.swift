import GatehouseCrypto

/// Authenticator data (WebAuthn Level 3 §6.1): the RP ID hash, the flags, the signature counter,
/// and — at registration — the attested credential data (§6.5.2).
///
/// Parsed strictly: the attested credential data is present exactly when AT is set, the extensions
/// exactly when ED is set, and nothing may follow them.
public struct AuthenticatorData: Sendable, Equatable {
    /// The attested credential: AAGUID, credential id and the COSE key's exact bytes.
    public struct AttestedCredential: Sendable, Equatable {
        public let aaguid: [UInt8]
        public let credentialID: [UInt8]
        /// The COSE_Key as the authenticator encoded it (stored as is, verified from these bytes).
        public let publicKey: [UInt8]
    }

    /// Bit 0, user present.
    public static let flagUP: UInt8 = 0x01
    /// Bit 2, user verified.
    public static let flagUV: UInt8 = 0x04
    /// Bit 3, backup eligible.
    public static let flagBE: UInt8 = 0x08
    /// Bit 4, backed up.
    public static let flagBS: UInt8 = 0x10
    /// Bit 6, attested credential data included.
    public static let flagAT: UInt8 = 0x40
    /// Bit 7, extension data included.
    public static let flagED: UInt8 = 0x80

    /// Credential ids longer than this are refused (WebAuthn §5.1.3 step 23 bounds them at 1023).
    public static let maximumCredentialIDLength = 1023

    /// The bytes parsed (signed over in assertions and packed attestations).
    public let raw: [UInt8]
    public let rpIDHash: [UInt8]
    public let flags: UInt8
    public let signCount: UInt32
    public let attestedCredential: AttestedCredential?
    /// The extension outputs map, when ED is set.
    public let extensions: CBORValue?

    public var userPresent: Bool { flags & Self.flagUP != 0 }
    public var userVerified: Bool { flags & Self.flagUV != 0 }
    public var backupEligible: Bool { flags & Self.flagBE != 0 }
    public var backedUp: Bool { flags & Self.flagBS != 0 }

    /// Parses `bytes`; throws ``WebAuthnRefusal/malformedAuthenticatorData`` on any deviation.
    public init(_ bytes: [UInt8]) throws(WebAuthnRefusal) {
        guard bytes.count >= 37 else { throw .malformedAuthenticatorData }
        raw = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var index = 37
        if flags & Self.flagAT != 0 {
            guard bytes.count >= index + 18 else { throw .malformedAuthenticatorData }
            let aaguid = Array(bytes[index..<(index + 16)])
            let length = Int(bytes[index + 16]) << 8 | Int(bytes[index + 17])
            index += 18
            guard length > 0, length <= Self.maximumCredentialIDLength, bytes.count >= index + length else {
                throw .malformedAuthenticatorData
            }
            let credentialID = Array(bytes[index..<(index + length)])
            index += length
            let end: Int
            do { end = try CBORDecoder.decodePrefix(bytes, from: index).1 } catch { throw .malformedAuthenticatorData }
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKey: Array(bytes[index..<end]))
            index = end
        } else {
            attestedCredential = nil
        }
        if flags & Self.flagED != 0 {
            let parsed: (CBORValue, Int)
            do { parsed = try CBORDecoder.decodePrefix(bytes, from: index) } catch { throw .malformedAuthenticatorData }
            guard parsed.0.entries != nil else { throw .malformedAuthenticatorData }
            extensions = parsed.0
            index = parsed.1
        } else {
            extensions = nil
        }
        guard index == bytes.count else { throw .malformedAuthenticatorData }
    }
}
