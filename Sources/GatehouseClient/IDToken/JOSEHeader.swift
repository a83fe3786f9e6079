import Foundation

/// The protected header of a JWS (RFC 7515 §4): what the signature verifier needs to pick a key.
public struct JOSEHeader: Codable, Equatable, Sendable {
    /// Signature algorithm, e.g. `RS256`, `ES256`. `none` is always rejected.
    public var alg: String
    /// Key id, matched against the JWKS.
    public var kid: String?
    public var typ: String?

    public init(alg: String, kid: String? = nil, typ: String? = nil) {
        self.alg = alg
        self.kid = kid
        self.typ = typ
    }
}

/// A compact-serialized JWS split into its parts, not yet verified.
public struct CompactJWS: Sendable, Equatable {
    public let header: JOSEHeader
    /// `BASE64URL(header) || '.' || BASE64URL(payload)`: the bytes the signature covers.
    public let signingInput: Data
    public let payload: Data
    public let signature: Data

    /// Splits and decodes `token`; throws `IDTokenError.malformed` on anything odd.
    public init(_ token: String) throws {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let headerData = Base64URL.decode(String(parts[0])),
              let payload = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2])) else { throw IDTokenError.malformed }
        guard let header = try? JSONDecoder().decode(JOSEHeader.self, from: headerData) else { throw IDTokenError.malformed }
        self.header = header
        self.signingInput = Data("\(parts[0]).\(parts[1])".utf8)
        self.payload = payload
        self.signature = signature
    }
}
