import Foundation
import FuzzSupport
import GatehouseCrypto

/// JWS compact parsing, base64url, algorithm choice and JWT claim checks.
///
/// The first byte picks a mode:
/// - a raw token, verified against a key set holding an EC, an RSA and an Ed25519 key: nothing is
///   ever accepted, a token whose `alg` is outside the allow-list fails on the allow-list (no key is
///   touched), a `crit` header is refused, and what parses re-encodes canonically;
/// - a header and a payload the harness signs with its Ed25519 key: a token is accepted only when its
///   `alg` is EdDSA, the key it names can do EdDSA, `crit` is absent and every claim rule holds;
/// - base64url text: decoding is canonical (what decodes re-encodes to the same text).
func fuzzJOSE(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = ByteReader(bytes(data, size))
    switch reader.choice(3) {
    case 0: checkRawToken(String(decoding: reader.rest(), as: UTF8.self))
    case 1: checkSignedToken(header: Array(reader.part(until: 0)), payload: Array(reader.rest()))
    default: checkBase64URL(Array(reader.rest()))
    }
    return 0
}

/// Builds the keys before the first input.
func prepareJOSE() { _ = Keys.set.keys.count; _ = Keys.ed25519.keyID }

private enum Keys {
    static let ed25519 = try! SigningKey.generate(.edDSA)
    static let p256 = try! SigningKey.generate(.es256)
    /// A fixed 2048-bit RSA public key (only verification is possible with RSA here).
    static let rsa = try! VerificationKey(jwk: JWK(keyType: "RSA", modulus: """
        xTxfQ_CZweXgYJGUTUm4fGjrkFpqiKXzHq4fRAdbvqZN6F8TXmk352Ajudn4NcTp55VDhi6wPKs2neD4OI3RndWMI2Kxssx3gS9TmhZjD5CpgaDjHrY8QWJi2Ndmha6vGxsgOpMcYW0xDk2U3NznYvb8rYk82PsNpHDPVEorA-9vKQ2-vaAu8ioA6zIQ2AwxT9SIufhpUKiSrESrEEaRPOEIspO8dWlNj7lDBtI9Wb4Mr2kTMaGoBENdmTzhi2NNFfePMjBKpwXHgWvkLhP9lDD2ZI9YfyQ93t0jdXMS59nOa4usc4eFHro1uPste68u2ORxd-2JzUO8-QV1GUgr5w
        """, exponent: "AQAB", keyID: "rsa"))
    static let ed25519Public = try! VerificationKey(jwk: { var jwk = ed25519.publicJWK; jwk.keyID = "ed"; return jwk }())
    static let p256Public = try! VerificationKey(jwk: { var jwk = p256.publicJWK; jwk.keyID = "ec"; return jwk }())
    static let set = VerificationKeySet(keys: [p256Public, rsa, ed25519Public])
}

private let rules = ClaimRules(issuers: ["https://issuer.example"], audiences: ["client-1"], leeway: 60, requireExpiration: true,
                               requiredClaims: ["sub"])
private let now = Date(timeIntervalSince1970: 1_800_000_000)

private func checkRawToken(_ token: String) {
    let parsed = try? CompactJWS(token)
    if let parsed {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        require(segments.count == 3, "parsed a token that is not three segments")
        require(Base64URL.encode(parsed.payload) == segments[1], "payload segment is not canonical base64url")
        require(Base64URL.encode(parsed.signature) == segments[2], "signature segment is not canonical base64url")
        require(parsed.signingInput == Array((segments[0] + "." + segments[1]).utf8), "signing input is not the first two segments")
    }
    let verifier = JWTVerifier(allowedAlgorithms: [.es256], rules: rules)
    do throws(JOSEError) {
        _ = try verifier.verify(token, keys: Keys.set, now: now)
        require(false, "accepted a token nobody signed: \(token)")
    } catch {
        guard let parsed else { return }
        if parsed.header.algorithm != "ES256" {
            require(error == .unsupportedAlgorithm(parsed.header.algorithm) || error == .algorithmNotAllowed(JWSAlgorithm(rawValue: parsed.header.algorithm) ?? .es256),
                    "alg \(parsed.header.algorithm) outside the allow-list failed later, with \(error)")
        } else if parsed.header.critical != nil {
            require(error == .unsupportedCriticalHeader, "a crit header failed with \(error), not on crit")
        }
    }
}

private func checkSignedToken(header: [UInt8], payload: [UInt8]) {
    let input = Base64URL.encode(header) + "." + Base64URL.encode(payload)
    guard let signature = try? Keys.ed25519.sign(Array(input.utf8)) else {
        require(false, "Ed25519 signing failed")
        return
    }
    let token = input + "." + Base64URL.encode(signature)
    let all = JWTVerifier(allowedAlgorithms: [.es256, .rs256, .ps256, .edDSA], rules: rules)
    let verified = try? all.verify(token, keys: Keys.set, now: now)
    let ecOnly = JWTVerifier(allowedAlgorithms: [.es256, .rs256], rules: rules)
    require((try? ecOnly.verify(token, keys: Keys.set, now: now)) == nil, "an EdDSA signature passed an ES256/RS256-only verifier")
    guard let verified else { return }

    require(verified.algorithm == .edDSA && verified.header.algorithm == "EdDSA", "accepted alg \(verified.header.algorithm)")
    require(verified.header.keyID == nil || verified.header.keyID == "ed", "accepted a token naming key \(verified.header.keyID ?? "")")
    require(verified.header.critical == nil, "accepted a crit header")
    let claims = verified.claims
    require(claims.issuer == "https://issuer.example", "accepted issuer \(claims.issuer ?? "nil")")
    require(claims.audience.contains("client-1"), "accepted audience \(claims.audience)")
    require(claims.subject != nil, "accepted a token without sub")
    guard let exp = claims.all["exp"]?.numberValue else { return require(false, "accepted a token without exp") }
    require(now.timeIntervalSince1970 < exp + 60, "accepted an expired token (exp \(exp))")
    if let nbf = claims.all["nbf"]?.numberValue { require(now.timeIntervalSince1970 + 60 >= nbf, "accepted before nbf") }
    if let iat = claims.all["iat"]?.numberValue { require(now.timeIntervalSince1970 + 60 >= iat, "accepted iat in the future") }
    require(JSONValue(parsing: payload) == .object(claims.all), "claims differ from the payload's JSON")
}

private func checkBase64URL(_ input: [UInt8]) {
    let text = String(decoding: input, as: UTF8.self)
    if let decoded = Base64URL.decode(text) {
        require(Base64URL.encode(decoded) == text, "base64url accepted a non-canonical spelling: \(text)")
    }
    require(Base64URL.decode(Base64URL.encode(input)) == input, "base64url round trip failed")
}
