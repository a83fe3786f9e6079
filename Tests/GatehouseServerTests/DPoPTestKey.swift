import Foundation
import GatehouseCrypto

/// A client's DPoP key making proofs the way RFC 9449 §4.2 describes them: a JWS with
/// `typ: dpop+jwt`, the public `jwk` in the header, and `jti`, `htm`, `htu`, `iat` (plus `ath` and
/// `nonce` when asked). `header`/`claims` overrides build the malformed proofs the attack tests send.
struct DPoPTestKey {
    let key: SigningKey

    init(_ algorithm: JWSAlgorithm = .es256) throws { key = try SigningKey.generate(algorithm) }

    /// The header's key: the required public members only, as a client would send it.
    var publicJWK: [String: JSONValue] {
        let jwk = key.publicJWK
        var members: [String: JSONValue] = ["kty": .string(jwk.keyType)]
        for (name, value) in [("crv", jwk.curve), ("x", jwk.x), ("y", jwk.y), ("n", jwk.modulus), ("e", jwk.exponent)] {
            if let value { members[name] = .string(value) }
        }
        return members
    }

    var thumbprint: String { try! key.publicJWK.publicKey.thumbprint() }

    func proof(_ method: String, _ uri: String, iat: Date, accessToken: String? = nil, nonce: String? = nil,
               jti: String = UUID().uuidString, header: [String: JSONValue] = [:], claims: [String: JSONValue] = [:]) -> String {
        var head: [String: JSONValue] = ["typ": .string("dpop+jwt"), "alg": .string(key.algorithm.rawValue), "jwk": .object(publicJWK)]
        head.merge(header) { _, new in new }
        var body: [String: JSONValue] = ["jti": .string(jti), "htm": .string(method), "htu": .string(uri),
                                         "iat": .integer(Int64(iat.timeIntervalSince1970))]
        if let accessToken { body["ath"] = .string(DPoPProof.accessTokenHash(accessToken)) }
        if let nonce { body["nonce"] = .string(nonce) }
        body.merge(claims) { _, new in new }
        let input = Base64URL.encode(JSONValue.object(head).jsonBytes) + "." + Base64URL.encode(JSONValue.object(body).jsonBytes)
        return input + "." + Base64URL.encode(try! key.sign(Array(input.utf8)))
    }
}
