import GatehouseCrypto

/// The client data a browser or platform signed over (WebAuthn Level 3 §5.8.1), parsed from the
/// exact `clientDataJSON` bytes with the strict JSON parser (duplicate members refused).
public struct CollectedClientData: Sendable, Equatable {
    /// `webauthn.create` or `webauthn.get`.
    public let type: String
    /// The challenge, decoded from its base64url form.
    public let challenge: [UInt8]
    /// Where the ceremony ran: `https://host[:port]`, or `android:apk-key-hash:…` from an Android app.
    public let origin: String
    /// True when the ceremony ran in a cross-origin iframe.
    public let crossOrigin: Bool
    /// The top-level origin of a cross-origin ceremony.
    public let topOrigin: String?

    /// Parses `json`; throws ``WebAuthnRefusal/malformedClientData`` unless it is an object with a
    /// string `type`, a base64url `challenge` and a string `origin`.
    public init(json: [UInt8]) throws(WebAuthnRefusal) {
        guard case .object(let members)? = JSONValue(parsing: json),
              case .string(let type)? = members["type"],
              case .string(let encodedChallenge)? = members["challenge"],
              let challenge = Base64URL.decode(encodedChallenge),
              case .string(let origin)? = members["origin"] else { throw .malformedClientData }
        switch members["crossOrigin"] {
        case nil, .null?: crossOrigin = false
        case .bool(let flag)?: crossOrigin = flag
        default: throw .malformedClientData
        }
        switch members["topOrigin"] {
        case nil: topOrigin = nil
        case .string(let top)?: topOrigin = top
        default: throw .malformedClientData
        }
        self.type = type
        self.challenge = challenge
        self.origin = origin
    }
}
