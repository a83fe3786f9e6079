import Foundation

/// A JSON Web Key Set (RFC 7517 §5).
public struct JWKS: Codable, Equatable, Sendable {
    public var keys: [JWK]

    public init(keys: [JWK]) { self.keys = keys }

    /// Keys that may have produced a signature with `header`: the one with a matching `kid`
    /// when the header names one, otherwise every signing key of the algorithm's type.
    public func candidateKeys(for header: JOSEHeader) -> [JWK] {
        let usable = keys.filter { key in
            (key.use == nil || key.use == "sig")
                && (key.alg == nil || key.alg == header.alg)
                && key.kty == JWK.keyType(forAlgorithm: header.alg)
        }
        if let kid = header.kid { return usable.filter { $0.kid == kid } }
        return usable
    }
}

/// One public JSON Web Key (RFC 7517/7518); only the members signature checks need.
public struct JWK: Codable, Equatable, Sendable {
    /// `RSA`, `EC` or `OKP`.
    public var kty: String
    public var kid: String?
    public var use: String?
    public var alg: String?
    /// RSA modulus and exponent, base64url.
    public var n: String?
    public var e: String?
    /// EC / OKP curve and coordinates, base64url.
    public var crv: String?
    public var x: String?
    public var y: String?

    public init(kty: String, kid: String? = nil, use: String? = nil, alg: String? = nil, n: String? = nil, e: String? = nil, crv: String? = nil, x: String? = nil, y: String? = nil) {
        self.kty = kty
        self.kid = kid
        self.use = use
        self.alg = alg
        self.n = n
        self.e = e
        self.crv = crv
        self.x = x
        self.y = y
    }

    /// The `kty` an algorithm's key must have (RFC 7518 §3.1).
    public static func keyType(forAlgorithm alg: String) -> String? {
        switch alg {
        case "RS256", "RS384", "RS512", "PS256", "PS384", "PS512": "RSA"
        case "ES256", "ES384", "ES512": "EC"
        case "EdDSA": "OKP"
        default: nil
        }
    }
}
