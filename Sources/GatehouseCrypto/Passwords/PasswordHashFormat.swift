/// The password hash formats Gatehouse accepts: its own Argon2id, and the formats other systems
/// export so their users can be imported with the passwords they have (verified as they are,
/// then rehashed to Argon2id at the next successful sign-in).
public enum PasswordHashFormat: String, Sendable, Equatable {
    /// `$argon2id$v=19$m=…,t=…,p=…$salt$hash` (PHC string).
    case argon2id
    /// `$argon2i$v=19$…` (PHC string; verified by libsodium, rehashed at next sign-in).
    case argon2i
    /// `$2a$`, `$2b$` or `$2y$` with a two-digit cost (OpenBSD bcrypt, as Ruby's bcrypt gem and Devise write it).
    case bcrypt

    /// The format of `hash`, or nil when it is none Gatehouse can verify (argon2d, `$2x$`, MD5-crypt, plain text…).
    ///
    /// The shape is checked strictly so an import rejects a truncated or mangled hash up front
    /// instead of storing a password nobody can ever match.
    public static func of(_ hash: String) -> PasswordHashFormat? {
        let bytes = Array(hash.utf8)
        if hash.hasPrefix("$argon2id$v=19$m=") { return bytes.count < 128 && hash.split(separator: "$").count == 5 ? .argon2id : nil }
        if hash.hasPrefix("$argon2i$v=19$m=") { return bytes.count < 128 && hash.split(separator: "$").count == 5 ? .argon2i : nil }
        // $2b$10$ + 22 salt characters + 31 hash characters = 60 bytes, alphabet ./A-Za-z0-9.
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
              [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]),
              bytes[3] == UInt8(ascii: "$"), bytes[6] == UInt8(ascii: "$"),
              let cost = Int(String(decoding: bytes[4...5], as: UTF8.self)), (4...31).contains(cost) else { return nil }
        let alphabet = Set("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        return bytes[7...].allSatisfy(alphabet.contains) ? .bcrypt : nil
    }
}
