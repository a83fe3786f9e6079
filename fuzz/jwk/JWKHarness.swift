import Foundation
import FuzzSupport
import GatehouseCrypto

/// JWK and JWKS documents (a provider's `jwks_uri`, our stored keys) and key import into OpenSSL.
///
/// Properties: a parsed JWK re-serialises to the same JWK; its public form carries no private member;
/// a key that imports has the family its `kty`/`crv` name, at least 2048 bits when RSA, a pinned
/// `alg` of that family and `use` absent or `sig`; a key set keeps or skips (with a reason) every
/// key of the document; a private JWK that imports signs what its public key verifies.
func fuzzJWK(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Data(bytes(data, size))
    if let jwk = try? JWK(json: input) {
        require((try? JWK(json: jwk.jsonData())) == jwk, "JWK does not round-trip through its JSON")
        let published = jwk.publicKey
        require(!published.isPrivate && published.p == nil && published.q == nil && published.dp == nil
                    && published.dq == nil && published.qi == nil, "the public form keeps private members")
        // Look at the members, not the text: a kid or crv whose value is "d" is not a private key.
        let members = (try? JSONSerialization.jsonObject(with: published.jsonData())) as? [String: Any]
        require(members != nil && members?["d"] == nil, "published JSON holds d")
        if let key = try? VerificationKey(jwk: jwk) { checkImported(key, from: jwk) }
        if jwk.isPrivate, let signing = try? SigningKey(privateJWK: jwk) {
            require(!signing.publicJWK.isPrivate, "a signing key publishes its private part")
            let message = Array("fuzz".utf8)
            let signature = try? signing.sign(message)
            require(signature != nil, "an imported private key cannot sign")
            require((try? signing.verificationKey.verify(signature: signature ?? [], for: message, algorithm: signing.algorithm)) != nil,
                    "an imported private key signs what its public key rejects")
        }
    }
    if let set = try? JWKSet(json: input) {
        let keys = VerificationKeySet(jwks: set)
        require(keys.keys.count + keys.skipped.count == set.keys.count, "a key vanished from the set")
        for (key, jwk) in zip(keys.keys, set.keys.filter { (try? VerificationKey(jwk: $0)) != nil }) { checkImported(key, from: jwk) }
        for key in keys.keys where key.keyID != nil {
            require(keys.keys.contains { $0.keyID == key.keyID }, "lookup by kid lost \(key.keyID!)")
        }
    }
    return 0
}

private func checkImported(_ key: VerificationKey, from jwk: JWK) {
    require((try? jwk.kind()) == key.kind, "imported a \(key.kind) key from kty \(jwk.keyType) crv \(jwk.curve ?? "nil")")
    require(!key.jwk.isPrivate, "a verification key keeps private material")
    require(key.keyID == jwk.keyID, "kid changed on import")
    require(jwk.use == nil || jwk.use == "sig", "imported a key whose use is \(jwk.use!)")
    if let pinned = key.pinnedAlgorithm { require(pinned.keyKind == key.kind, "pinned alg \(pinned) on a \(key.kind) key") }
    require((try? jwk.thumbprint()) != nil, "an imported key has no thumbprint")
    if key.kind == .rsa {
        let modulus = jwk.modulus.flatMap(Base64URL.decode) ?? []
        require(modulus.first != 0 && modulus.count * 8 >= VerificationKey.minimumRSABits, "imported a weak RSA key")
    }
}
