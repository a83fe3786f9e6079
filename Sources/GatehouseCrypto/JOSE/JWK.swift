import Foundation

/// A JSON Web Key (RFC 7517) for EC P-256, RSA or OKP Ed25519, public or private.
///
/// This is the *description* of a key; ``VerificationKey`` and ``SigningKey`` are the usable
/// OpenSSL keys built from it. Unknown members are dropped when parsing.
public struct JWK: Sendable, Hashable, Codable {
    /// `kty`: "EC", "RSA" or "OKP".
    public var keyType: String
    /// `crv`: "P-256" (EC) or "Ed25519" (OKP).
    public var curve: String?
    /// `x`, `y`: EC coordinates / OKP public key (base64url).
    public var x: String?
    public var y: String?
    /// `n`, `e`: RSA modulus and exponent (base64url, big-endian).
    public var modulus: String?
    public var exponent: String?
    /// `d`: the private scalar (EC), private exponent (RSA) or seed (OKP). Never published.
    public var privateKey: String?
    /// RSA CRT members, kept only so private RSA JWKs round-trip.
    public var p: String?, q: String?, dp: String?, dq: String?, qi: String?
    /// `kid`, `use`, `alg`, `key_ops`: metadata.
    public var keyID: String?
    public var use: String?
    public var algorithm: String?
    public var keyOperations: [String]?

    enum CodingKeys: String, CodingKey {
        case keyType = "kty", curve = "crv", x, y, modulus = "n", exponent = "e", privateKey = "d"
        case p, q, dp, dq, qi
        case keyID = "kid", use, algorithm = "alg", keyOperations = "key_ops"
    }

    public init(keyType: String, curve: String? = nil, x: String? = nil, y: String? = nil,
                modulus: String? = nil, exponent: String? = nil, privateKey: String? = nil,
                keyID: String? = nil, use: String? = nil, algorithm: String? = nil) {
        self.keyType = keyType
        self.curve = curve
        self.x = x
        self.y = y
        self.modulus = modulus
        self.exponent = exponent
        self.privateKey = privateKey
        self.keyID = keyID
        self.use = use
        self.algorithm = algorithm
    }

    /// Parses one JWK from JSON.
    public init(json: some DataProtocol) throws(JOSEError) {
        self = try JSONCoding.decode(JWK.self, from: Data(json))
    }

    /// Compact JSON with sorted keys (stable output, useful for storage and tests).
    public func jsonData() -> Data {
        JSONCoding.encode(self)
    }

    /// `true` if the JWK carries private material (`d`).
    public var isPrivate: Bool { privateKey != nil }

    /// The same key without any private members (what a JWKS may publish).
    public var publicKey: JWK {
        var copy = self
        copy.privateKey = nil
        copy.p = nil; copy.q = nil; copy.dp = nil; copy.dq = nil; copy.qi = nil
        return copy
    }

    /// The key family, or an error for key types and curves this library does not handle.
    public func kind() throws(JOSEError) -> KeyKind {
        switch (keyType, curve) {
        case ("EC", "P-256"): return .ecP256
        case ("RSA", _): return .rsa
        case ("OKP", "Ed25519"): return .ed25519
        case ("EC", let crv), ("OKP", let crv): throw .unsupportedKeyType("\(keyType) \(crv ?? "(no crv)")")
        default: throw .unsupportedKeyType(keyType)
        }
    }

    /// The RFC 7638 thumbprint: base64url(SHA-256) of the required public members in
    /// lexicographic order without whitespace. Used as the `kid` of our own keys.
    public func thumbprint() throws(JOSEError) -> String {
        Base64URL.encode(SHA256.hash(try canonicalPublicJSON()))
    }

    /// The RFC 7638 canonical JSON of the public members; also the identity of the key material.
    func canonicalPublicJSON() throws(JOSEError) -> String {
        func member(_ value: String?, _ name: String) throws(JOSEError) -> String {
            guard let value, !value.isEmpty else { throw .invalidKey("missing \(name)") }
            // Members are base64url or fixed names, so no JSON escaping can be needed; refuse otherwise.
            guard value.utf8.allSatisfy({ $0 > 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 < 0x7F }) else {
                throw .invalidKey("bad characters in \(name)")
            }
            return value
        }
        switch try kind() {
        case .ecP256:
            return #"{"crv":"\#(try member(curve, "crv"))","kty":"EC","x":"\#(try member(x, "x"))","y":"\#(try member(y, "y"))"}"#
        case .rsa:
            return #"{"e":"\#(try member(exponent, "e"))","kty":"RSA","n":"\#(try member(modulus, "n"))"}"#
        case .ed25519:
            return #"{"crv":"\#(try member(curve, "crv"))","kty":"OKP","x":"\#(try member(x, "x"))"}"#
        }
    }
}

/// A JWK Set document (RFC 7517 §5): `{"keys":[…]}`.
public struct JWKSet: Sendable, Hashable, Codable {
    /// The keys, in document order.
    public var keys: [JWK]

    public init(keys: [JWK]) { self.keys = keys }

    /// Parses a JWKS. Keys of unknown types are kept as descriptions; building them fails later.
    public init(json: some DataProtocol) throws(JOSEError) {
        self = try JSONCoding.decode(JWKSet.self, from: Data(json))
    }

    /// Compact JSON for serving at a `jwks_uri`.
    public func jsonData() -> Data { JSONCoding.encode(self) }

    /// The key with this `kid`, if any.
    public subscript(keyID keyID: String) -> JWK? { keys.first { $0.keyID == keyID } }
}

/// JSON coding with the settings this library uses everywhere.
enum JSONCoding {
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws(JOSEError) -> T {
        do { return try JSONDecoder().decode(type, from: data) } catch { throw .malformedJSON }
    }

    static func encode<T: Encodable>(_ value: T) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own Codable values cannot fail (no non-conforming floats are produced).
        return try! encoder.encode(value)
    }
}
