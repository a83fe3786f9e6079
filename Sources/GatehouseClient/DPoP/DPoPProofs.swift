import Foundation

/// Makes DPoP proofs (RFC 9449 §4.2) with a ``DPoPKey``: a JWS with `typ: dpop+jwt`, the key's public
/// `jwk`, and the claims `jti` (random), `htm`, `htu` (without query and fragment), `iat`, plus `ath`
/// for a request carrying an access token and `nonce` once the server sent one.
public struct DPoPProofs: Sendable {
    public let key: any DPoPKey

    public init(key: any DPoPKey) { self.key = key }

    public func proof(method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, now: Date = Date()) throws -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        components?.fragment = nil
        let htu = components?.string ?? url.absoluteString
        let header: [String: Any] = ["typ": "dpop+jwt", "alg": key.algorithm, "jwk": key.publicJWK]
        var claims: [String: Any] = ["jti": RandomString.base64URL(byteCount: 16), "htm": method.uppercased(), "htu": htu,
                                     "iat": Int(now.timeIntervalSince1970)]
        if let accessToken { claims["ath"] = Base64URL.encode(SHA256.hash(Array(accessToken.utf8))) }
        if let nonce { claims["nonce"] = nonce }
        let options: JSONSerialization.WritingOptions = [.sortedKeys, .withoutEscapingSlashes]
        let input = Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: options)) + "."
            + Base64URL.encode(try JSONSerialization.data(withJSONObject: claims, options: options))
        return input + "." + Base64URL.encode(try key.sign(Array(input.utf8)))
    }
}
