#if canImport(CryptoKit) && canImport(Security)
import CryptoKit
import Foundation
import GatehouseClient
import Security

/// A DPoP key in the Secure Enclave (P-256, `ES256`): the private key never leaves the device's secure
/// hardware, so tokens bound to it are useless on any other device. Keep ``dataRepresentation`` (an
/// opaque handle only this device's enclave can use) with the tokens — `AuthState` stores it in the token
/// set as `dpopKeyReference` — and rebuild the key from it when the app starts; a new key means signing in again.
public struct SecureEnclaveDPoPKey: DPoPKey {
    private let key: SecureEnclave.P256.Signing.PrivateKey

    /// A new key, usable only while the device is unlocked (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly`).
    public init() throws {
        var error: Unmanaged<CFError>?
        guard let access = SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly, .privateKeyUsage, &error)
        else { throw error!.takeRetainedValue() as Error }
        key = try SecureEnclave.P256.Signing.PrivateKey(accessControl: access)
    }

    /// The key a previous ``dataRepresentation`` stands for.
    public init(dataRepresentation: Data) throws {
        key = try SecureEnclave.P256.Signing.PrivateKey(dataRepresentation: dataRepresentation)
    }

    /// Whether this device has a Secure Enclave (simulators and older Macs do not).
    public static var isAvailable: Bool { SecureEnclave.isAvailable }

    /// The enclave's handle for the key (not the key itself): store it with the tokens.
    public var dataRepresentation: Data { key.dataRepresentation }

    /// The enclave handle (``dataRepresentation``): what `AuthState` keeps beside the tokens.
    public var keyReference: Data { key.dataRepresentation }

    public var algorithm: String { "ES256" }

    public var publicJWK: [String: String] {
        // x963: 0x04 ‖ x ‖ y, 32 bytes each.
        let point = Array(key.publicKey.x963Representation)
        return ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(point[1..<33]), "y": Base64URL.encode(point[33..<65])]
    }

    public func sign(_ signingInput: [UInt8]) throws -> [UInt8] {
        Array(try key.signature(for: Data(signingInput)).rawRepresentation)
    }
}
#endif
