import Foundation

/// A PKCE (RFC 7636) verifier and its S256 challenge. `plain` is deliberately not offered.
public struct PKCE: Sendable, Equatable {
    /// The secret the client keeps and later sends as `code_verifier`.
    public let verifier: String
    /// `BASE64URL(SHA256(ASCII(verifier)))`, sent as `code_challenge`.
    public let challenge: String
    /// Always `S256`.
    public let method: String = "S256"

    /// Generates a fresh 43-character verifier from 256 random bits.
    public init() {
        // 32 random bytes in base64url are 43 characters of the unreserved set: the RFC's own advice.
        self.verifier = RandomString.base64URL(byteCount: 32)
        self.challenge = PKCE.challenge(for: verifier)
    }

    /// Wraps an existing verifier; throws if it is not 43–128 characters of `[A-Za-z0-9-._~]`.
    public init(verifier: String) throws {
        guard PKCE.isValidVerifier(verifier) else { throw PKCEError.invalidVerifier }
        self.verifier = verifier
        self.challenge = PKCE.challenge(for: verifier)
    }

    /// The S256 challenge for `verifier`.
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(SHA256.hash(verifier))
    }

    /// RFC 7636 §4.1: 43–128 characters from the unreserved set.
    public static func isValidVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count) && verifier.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                return true
            default:
                return false
            }
        }
    }
}

/// Raised when a caller-supplied PKCE verifier breaks RFC 7636 §4.1.
public enum PKCEError: Error, Equatable, Sendable {
    case invalidVerifier
}
