import Foundation
import GatehouseCrypto
import GatehouseIdentity

/// A WebAuthn authenticator and client in software, for driving the relying party in tests: it
/// makes credentials with OpenSSL keys, encodes authenticator data and attestation objects in CBOR,
/// and writes `clientDataJSON` as a browser would. Every field can be bent for attack tests.
public final class SoftwareAuthenticator {
    /// One credential the authenticator holds.
    public struct Credential {
        public let id: [UInt8]
        public let key: SigningKey
        public var signCount: UInt32
        public let userHandle: [UInt8]
    }

    public var rpID: String
    public var origin: String
    public var flags: UInt8 = AuthenticatorData.flagUP | AuthenticatorData.flagUV
    /// Counter step per signature; 0 for a synced passkey that keeps none.
    public var counterStep: UInt32 = 1
    public var aaguid = [UInt8](repeating: 0xaa, count: 16)
    public private(set) var credentials: [Credential] = []

    public init(rpID: String = "example.org", origin: String = "https://example.org") {
        self.rpID = rpID
        self.origin = origin
    }

    public func clientData(type: String, challenge: [UInt8], origin: String? = nil, extra: String = "") -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin ?? self.origin)","crossOrigin":false\#(extra)}"#.utf8)
    }

    /// The key's COSE_Key (RFC 9053), encoded as an authenticator writes it into attested credential data.
    public func coseKey(_ key: SigningKey) -> [UInt8] { CBOREncoder.encode(Self.coseKeyMap(key)) }

    /// The COSE_Key map of a key OpenSSL generated (ES256, EdDSA or RS256), before encoding.
    public static func coseKeyMap(_ key: SigningKey) -> CBORValue {
        let jwk = key.publicJWK
        switch key.algorithm {
        case .es256:
            return .map([CBORMapEntry(.integer(1), .integer(2)), CBORMapEntry(.integer(3), .integer(-7)), CBORMapEntry(.integer(-1), .integer(1)),
                         CBORMapEntry(.integer(-2), .bytes(Base64URL.decode(jwk.x!)!)), CBORMapEntry(.integer(-3), .bytes(Base64URL.decode(jwk.y!)!))])
        case .edDSA:
            return .map([CBORMapEntry(.integer(1), .integer(1)), CBORMapEntry(.integer(3), .integer(-8)), CBORMapEntry(.integer(-1), .integer(6)),
                         CBORMapEntry(.integer(-2), .bytes(Base64URL.decode(jwk.x!)!))])
        default:
            return .map([CBORMapEntry(.integer(1), .integer(3)), CBORMapEntry(.integer(3), .integer(-257)),
                         CBORMapEntry(.integer(-1), .bytes(Base64URL.decode(jwk.modulus!)!)),
                         CBORMapEntry(.integer(-2), .bytes(Base64URL.decode(jwk.exponent!)!))])
        }
    }

    public func sign(_ key: SigningKey, _ message: [UInt8]) throws -> [UInt8] { try Self.webAuthnSignature(key, message) }

    /// A WebAuthn signature: DER for ES256 (the JWS signer returns raw r ‖ s), the signer's own bytes otherwise.
    public static func webAuthnSignature(_ key: SigningKey, _ message: [UInt8]) throws -> [UInt8] {
        let signature = try key.sign(message)
        guard key.algorithm == .es256 else { return signature }
        func integer(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
            var value = Array(bytes.drop(while: { $0 == 0 }))
            if value.isEmpty { value = [0] }
            if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
            return [0x02, UInt8(value.count)] + value
        }
        let body = integer(signature[0..<32]) + integer(signature[32..<64])
        return [0x30, UInt8(body.count)] + body
    }

    private func header(flags: UInt8, signCount: UInt32) -> [UInt8] {
        SHA256.hash(rpID) + [flags] + withUnsafeBytes(of: signCount.bigEndian) { Array($0) }
    }

    /// `navigator.credentials.create()`: a new credential for `userHandle`, attestation `none` (or
    /// packed self attestation when `selfAttest`).
    public func register(challenge: [UInt8], userHandle: [UInt8], algorithm: JWSAlgorithm = .es256, selfAttest: Bool = false,
                  credentialID: [UInt8]? = nil, type: String = "webauthn.create") throws -> RegistrationResponse {
        let key = try SigningKey.generate(algorithm)
        let id = credentialID ?? SecureRandom.bytes(16)
        let count: UInt32 = counterStep == 0 ? 0 : 1
        let authData = header(flags: flags | AuthenticatorData.flagAT, signCount: count) + aaguid + [UInt8(id.count >> 8), UInt8(id.count & 0xff)]
            + id + coseKey(key)
        let clientDataJSON = clientData(type: type, challenge: challenge)
        var statement = CBORValue.map([])
        var format = "none"
        if selfAttest {
            format = "packed"
            let alg: Int = algorithm == .es256 ? -7 : algorithm == .edDSA ? -8 : -257
            statement = .map([CBORMapEntry(.text("alg"), .integer(alg)),
                              CBORMapEntry(.text("sig"), .bytes(try sign(key, authData + SHA256.hash(clientDataJSON))))])
        }
        let object = CBOREncoder.encode(.map([CBORMapEntry(.text("fmt"), .text(format)), CBORMapEntry(.text("attStmt"), statement),
                                               CBORMapEntry(.text("authData"), .bytes(authData))]))
        credentials.append(Credential(id: id, key: key, signCount: count, userHandle: userHandle))
        return RegistrationResponse(credentialID: id, clientDataJSON: clientDataJSON, attestationObject: object, transports: ["internal"])
    }

    /// `navigator.credentials.get()` with credential `index` (the latest by default).
    public func assert(challenge: [UInt8], index: Int? = nil, origin: String? = nil, type: String = "webauthn.get",
                signCount: UInt32? = nil, userHandle: [UInt8]?? = nil) throws -> AssertionResponse {
        let position = index ?? credentials.count - 1
        var credential = credentials[position]
        credential.signCount = signCount ?? credential.signCount + counterStep
        credentials[position] = credential
        let authData = header(flags: flags, signCount: credential.signCount)
        let clientDataJSON = clientData(type: type, challenge: challenge, origin: origin)
        let signature = try sign(credential.key, authData + SHA256.hash(clientDataJSON))
        return AssertionResponse(credentialID: credential.id, clientDataJSON: clientDataJSON, authenticatorData: authData,
                                 signature: signature, userHandle: userHandle ?? credential.userHandle)
    }
}
