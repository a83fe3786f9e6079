/// Failures of the cryptographic primitives (hashing, AEAD, randomness, key handling, passwords).
///
/// JOSE-level failures (tokens, keys from JWKs, claims) use ``JOSEError`` instead, so callers can
/// tell "this token is bad" apart from "the crypto library failed".
public enum CryptoError: Error, Sendable, Equatable {
    /// A key had the wrong length (expected, actual), e.g. an AES-256 key that is not 32 bytes.
    case invalidKeyLength(expected: Int, actual: Int)
    /// An encoded key (base64 / hex) could not be decoded.
    case invalidKeyEncoding
    /// AEAD open failed: wrong key, wrong associated data, or tampered ciphertext.
    case authenticationFailed
    /// The sealed box is too short to hold a nonce and a tag.
    case malformedCiphertext
    /// A parameter is outside its allowed range (the message says which).
    case invalidParameter(String)
    /// The password exceeds ``PasswordHasher/maximumPasswordBytes``.
    case passwordTooLong
    /// libsodium could not hash (usually: not enough memory for the Argon2 parameters).
    case passwordHashingFailed
    /// OpenSSL reported an error; the string names the call and OpenSSL's reason.
    case openSSL(String)
}
