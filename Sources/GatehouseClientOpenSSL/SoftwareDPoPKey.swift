import Foundation
import GatehouseClient
import GatehouseCrypto

/// A DPoP key in memory (P-256 through OpenSSL, `ES256`), for Linux and tests: unlike
/// `SecureEnclaveDPoPKey` it can be copied, so keep ``privateJWKData`` where the tokens are kept and
/// no less carefully.
public struct SoftwareDPoPKey: DPoPKey {
    let key: GatehouseCrypto.SigningKey

    /// A new random key.
    public init() throws { key = try SigningKey.generate(.es256) }

    /// The key saved as ``privateJWKData``.
    public init(privateJWKData: Data) throws { key = try SigningKey(privateJWKData: privateJWKData) }

    /// The private key as a JWK, to store with the tokens.
    public var privateJWKData: Data { Data(key.privateJWKData()) }

    /// The private key itself (``privateJWKData``): a software key has no handle to keep instead.
    public var keyReference: Data { privateJWKData }

    public var algorithm: String { key.algorithm.rawValue }

    public var publicJWK: [String: String] {
        var members: [String: String] = ["kty": key.publicJWK.keyType]
        if let curve = key.publicJWK.curve { members["crv"] = curve }
        if let x = key.publicJWK.x { members["x"] = x }
        if let y = key.publicJWK.y { members["y"] = y }
        return members
    }

    public func sign(_ signingInput: [UInt8]) throws -> [UInt8] { try key.sign(signingInput) }
}
