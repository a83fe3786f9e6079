import COpenSSL

/// An X.509 attestation certificate from a WebAuthn `packed` statement (`x5c[0]`), read through
/// OpenSSL, with the checks WebAuthn Level 3 §8.2.1 asks of it.
public struct AttestationCertificate: Sendable {
    /// Subject `OU`; §8.2.1 requires "Authenticator Attestation".
    public let organizationalUnit: String?
    /// Subject `C`, `O` and `CN`.
    public let country: String?, organization: String?, commonName: String?
    /// X.509 version (3 required).
    public let version: Int
    /// Whether basic constraints mark it a CA (it must not be one).
    public let isCA: Bool
    /// The `id-fido-gen-ce-aaguid` extension's 16 bytes, when the certificate has it (and it is not critical).
    public let fidoAAGUID: [UInt8]?
    /// True when the AAGUID extension is present but malformed or critical.
    public let hasInvalidAAGUIDExtension: Bool
    let key: EVPKey

    /// Parses DER; throws when it is not exactly one certificate with a public key.
    public init(der: [UInt8]) throws(CryptoError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            // Trailing bytes after the certificate are refused, not ignored.
            if let certificate, cursor != buffer.baseAddress.map({ $0 + buffer.count }) { X509_free(certificate); return nil }
            return certificate
        }
        guard let certificate = parsed else { throw openSSLFailure("d2i_X509") }
        defer { X509_free(certificate) }
        guard let publicKey = X509_get_pubkey(certificate) else { throw openSSLFailure("X509_get_pubkey") }
        key = EVPKey(publicKey)
        version = Int(X509_get_version(certificate)) + 1
        isCA = X509_check_ca(certificate) != 0
        let subject = X509_get_subject_name(certificate)
        func field(_ nid: Int32) -> String? {
            var buffer = [CChar](repeating: 0, count: 256)
            let length = X509_NAME_get_text_by_NID(subject, nid, &buffer, Int32(buffer.count))
            guard length > 0 else { return nil }
            return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        organizationalUnit = field(NID_organizationalUnitName)
        country = field(NID_countryName)
        organization = field(NID_organizationName)
        commonName = field(NID_commonName)
        let extensionValue = Self.aaguid(of: certificate)
        fidoAAGUID = extensionValue.0
        hasInvalidAAGUIDExtension = extensionValue.1
        ERR_clear_error()
    }

    private static func aaguid(of certificate: OpaquePointer) -> ([UInt8]?, Bool) {
        guard let oid = OBJ_txt2obj("1.3.6.1.4.1.45724.1.1.4", 1) else { return (nil, false) }
        defer { ASN1_OBJECT_free(oid) }
        let index = X509_get_ext_by_OBJ(certificate, oid, -1)
        guard index >= 0, let ext = X509_get_ext(certificate, index) else { return (nil, false) }
        guard X509_EXTENSION_get_critical(ext) == 0, let data = X509_EXTENSION_get_data(ext) else { return (nil, true) }
        let length = Int(ASN1_STRING_length(data))
        guard let pointer = ASN1_STRING_get0_data(data) else { return (nil, true) }
        let bytes = Array(UnsafeBufferPointer(start: pointer, count: length))
        // The extension value is itself a DER OCTET STRING of 16 bytes.
        guard bytes.count == 18, bytes[0] == 0x04, bytes[1] == 16 else { return (nil, true) }
        return (Array(bytes[2...]), false)
    }

    /// Whether the certificate meets WebAuthn §8.2.1: version 3; subject C, O, CN present and OU
    /// "Authenticator Attestation"; not a CA; a well-formed AAGUID extension if any.
    public var meetsPackedRequirements: Bool {
        version == 3 && organizationalUnit == "Authenticator Attestation" && country?.utf8.count == 2
            && organization?.isEmpty == false && commonName?.isEmpty == false && !isCA && !hasInvalidAAGUIDExtension
    }

    /// Checks a WebAuthn signature (ES256 as DER, RS256, EdDSA) by the certificate's key; the key's
    /// family must fit `algorithm`.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8], algorithm: COSEAlgorithm) -> Bool {
        var raw = signature
        switch algorithm {
        case .es256:
            guard key.isP256, let converted = ECDSASignature.rawFromDER(signature, coordinateBytes: 32) else { return false }
            raw = converted
        case .rs256:
            guard EVP_PKEY_get_base_id(key.raw) == EVP_PKEY_RSA, key.bits >= VerificationKey.minimumRSABits else { return false }
        case .edDSA:
            guard key.isEd25519 else { return false }
        }
        return raw.withUnsafeBytes { sig in message.withUnsafeBytes { key.verify(sig, of: $0, algorithm: algorithm.jws) } }
    }
}
