#if canImport(CryptoKit) && canImport(Security)
import CryptoKit
import Foundation
import Security

/// `IDTokenSignatureVerifier` for Apple platforms: ES256 through CryptoKit, RS256 through
/// Security. Not compiled on Linux (there, inject a verifier; see the README).
public struct AppleIDTokenSignatureVerifier: IDTokenSignatureVerifier {
    public init() {}

    public func verify(signingInput: Data, signature: Data, header: JOSEHeader, jwks: JWKS) throws {
        for key in jwks.candidateKeys(for: header) {
            if (try? verify(signingInput, signature, alg: header.alg, key: key)) == true { return }
        }
        throw IDTokenError.signatureInvalid
    }

    private func verify(_ input: Data, _ signature: Data, alg: String, key: JWK) throws -> Bool {
        switch alg {
        case "ES256":
            guard key.crv == "P-256", let x = key.x.flatMap(Base64URL.decode), let y = key.y.flatMap(Base64URL.decode) else { return false }
            let publicKey = try P256.Signing.PublicKey(rawRepresentation: x + y)
            // JWS carries R || S (RFC 7518 §3.4), which is CryptoKit's raw representation.
            let ecdsa = try P256.Signing.ECDSASignature(rawRepresentation: signature)
            return publicKey.isValidSignature(ecdsa, for: input)
        case "RS256":
            guard let n = key.n.flatMap(Base64URL.decode), let e = key.e.flatMap(Base64URL.decode) else { return false }
            let attributes: [String: Any] = [kSecAttrKeyType as String: kSecAttrKeyTypeRSA, kSecAttrKeyClass as String: kSecAttrKeyClassPublic]
            guard let secKey = SecKeyCreateWithData(Self.pkcs1RSAPublicKey(n: n, e: e) as CFData, attributes as CFDictionary, nil) else { return false }
            return SecKeyVerifySignature(secKey, .rsaSignatureMessagePKCS1v15SHA256, input as CFData, signature as CFData, nil)
        default:
            return false
        }
    }

    /// DER `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }`, the format
    /// `SecKeyCreateWithData` takes for RSA public keys.
    static func pkcs1RSAPublicKey(n: Data, e: Data) -> Data {
        func length(_ count: Int) -> Data {
            if count < 0x80 { return Data([UInt8(count)]) }
            var bytes = withUnsafeBytes(of: UInt32(count).bigEndian, Array.init).drop { $0 == 0 }
            bytes.insert(0x80 | UInt8(bytes.count), at: bytes.startIndex)
            return Data(bytes)
        }
        func integer(_ value: Data) -> Data {
            var bytes = Data(value.drop { $0 == 0 })
            if bytes.isEmpty || bytes.first! & 0x80 != 0 { bytes.insert(0, at: 0) }
            return Data([0x02]) + length(bytes.count) + bytes
        }
        let body = integer(n) + integer(e)
        return Data([0x30]) + length(body.count) + body
    }
}
#endif
