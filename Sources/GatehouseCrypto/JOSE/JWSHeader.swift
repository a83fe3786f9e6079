import Foundation

/// The protected header of a JWS (RFC 7515 §4). Only members this library acts on are modelled.
public struct JWSHeader: Sendable, Hashable, Codable {
    /// `alg`, as written in the token (may name an algorithm we do not implement).
    public var algorithm: String
    /// `kid`: which key signed.
    public var keyID: String?
    /// `typ`: e.g. "JWT", "at+jwt".
    public var type: String?
    /// `cty`: content type; only nested JWTs use it.
    public var contentType: String?
    /// `crit`: extensions the recipient must understand; we understand none, so any is refused.
    public var critical: [String]?

    enum CodingKeys: String, CodingKey {
        case algorithm = "alg", keyID = "kid", type = "typ", contentType = "cty", critical = "crit"
    }

    public init(algorithm: JWSAlgorithm, keyID: String? = nil, type: String? = "JWT") {
        self.algorithm = algorithm.rawValue
        self.keyID = keyID
        self.type = type
    }

    /// Reads a header from its JSON bytes: an object whose `alg` is a string and whose other
    /// modelled members, when present, have their registered types.
    init(json: [UInt8]) throws(JOSEError) {
        guard case .object(let members)? = JSONParser.parse(json), case .string(let alg)? = members["alg"] else {
            throw .malformedJSON
        }
        func optionalString(_ name: String) throws(JOSEError) -> String? {
            guard let value = members[name] else { return nil }
            guard case .string(let string) = value else { throw .malformedJSON }
            return string
        }
        algorithm = alg
        keyID = try optionalString("kid")
        type = try optionalString("typ")
        contentType = try optionalString("cty")
        if let crit = members["crit"] {
            guard case .array(let names) = crit else { throw .malformedJSON }
            critical = names.compactMap(\.stringValue)
            guard critical?.count == names.count else { throw .malformedJSON }
        }
    }

    /// Compact JSON for the protected header.
    var jsonBytes: [UInt8] {
        var members: [String: JSONValue] = ["alg": .string(algorithm)]
        if let keyID { members["kid"] = .string(keyID) }
        if let type { members["typ"] = .string(type) }
        if let contentType { members["cty"] = .string(contentType) }
        if let critical { members["crit"] = .array(critical.map(JSONValue.string)) }
        return JSONValue.object(members).jsonBytes
    }
}

/// A JWS in compact serialisation (RFC 7515 §7.1), split and decoded but not yet verified.
public struct CompactJWS: Sendable {
    /// The decoded protected header.
    public let header: JWSHeader
    /// The decoded payload bytes.
    public let payload: [UInt8]
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// `BASE64URL(header) '.' BASE64URL(payload)` as bytes: what the signature covers.
    public let signingInput: [UInt8]

    /// Default maximum token size: 16 KiB is far above any real ID or access token.
    public static let defaultMaximumBytes = 16 * 1024

    /// Parses `token`, refusing anything longer than `maximumBytes` before any decoding work.
    public init(_ token: String, maximumBytes: Int = defaultMaximumBytes) throws(JOSEError) {
        let utf8 = token.utf8
        guard utf8.count <= maximumBytes else { throw .tokenTooLarge(limit: maximumBytes) }
        let bytes = Array(utf8)
        guard let firstDot = bytes.firstIndex(of: UInt8(ascii: ".")),
              let secondDot = bytes[(firstDot + 1)...].firstIndex(of: UInt8(ascii: ".")),
              !bytes[(secondDot + 1)...].contains(UInt8(ascii: ".")) else { throw .malformedToken }
        func decode(_ range: Range<Int>) throws(JOSEError) -> [UInt8] {
            let decoded = bytes.withUnsafeBytes { Base64URL.decode(utf8: UnsafeRawBufferPointer(rebasing: $0[range])) }
            guard let decoded else { throw .malformedBase64 }
            return decoded
        }
        let headerBytes = try decode(0..<firstDot)
        payload = try decode((firstDot + 1)..<secondDot)
        signature = try decode((secondDot + 1)..<bytes.count)
        guard !headerBytes.isEmpty, !signature.isEmpty else { throw .malformedToken }
        header = try JWSHeader(json: headerBytes)
        signingInput = Array(bytes[0..<secondDot])
    }

    /// The `alg` as an implemented algorithm, or ``JOSEError/unsupportedAlgorithm(_:)``.
    public func algorithm() throws(JOSEError) -> JWSAlgorithm {
        guard let algorithm = JWSAlgorithm(rawValue: header.algorithm) else { throw .unsupportedAlgorithm(header.algorithm) }
        return algorithm
    }

    /// Checks the algorithm against `allowed`, the key against the algorithm, then the signature.
    ///
    /// The order matters: the allow-list is consulted before any key is touched, so an attacker
    /// choosing `alg` can never pick how the key is used.
    public func verify(with key: VerificationKey, allowedAlgorithms allowed: Set<JWSAlgorithm>) throws(JOSEError) {
        let algorithm = try checkedAlgorithm(allowed: allowed)
        try key.verify(signature: signature, for: signingInput, algorithm: algorithm)
    }

    /// The header's algorithm after the `crit`, support and allow-list checks.
    func checkedAlgorithm(allowed: Set<JWSAlgorithm>) throws(JOSEError) -> JWSAlgorithm {
        let algorithm = try algorithm()
        guard allowed.contains(algorithm) else { throw .algorithmNotAllowed(algorithm) }
        if header.critical != nil { throw .unsupportedCriticalHeader }
        return algorithm
    }

    /// Produces a compact JWS over `payload` signed with `key`. The header's `alg` comes from the
    /// key and its `kid` is the key's thumbprint unless `keyID` overrides it (e.g. Apple's key id).
    public static func sign(payload: [UInt8], with key: SigningKey, keyID: String? = nil, type: String? = "JWT") throws(JOSEError) -> String {
        let header = JWSHeader(algorithm: key.algorithm, keyID: keyID ?? key.keyID, type: type)
        var input = Base64URL.encode(header.jsonBytes)
        input += "."
        input += Base64URL.encode(payload)
        let signature = try key.sign(input.utf8)
        return input + "." + Base64URL.encode(signature)
    }
}
