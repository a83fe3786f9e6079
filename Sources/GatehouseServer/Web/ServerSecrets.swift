import Foundation
import GatehouseCrypto

/// The server's master secret and the keys derived from it (CSRF tokens, private-key encryption).
///
/// From `GATEHOUSE_SECRET_KEY` (32 bytes, base64 or hex) when set; otherwise generated once into a
/// 0600 file beside the SQLite database. Several processes (PostgreSQL deployments) must share it,
/// so there it has to come from the environment.
public struct ServerSecrets: Sendable {
    let master: [UInt8]

    public init(master: [UInt8]) { self.master = master }

    /// A key for one purpose; keys for different purposes are independent.
    public func derivedKey(_ purpose: String) -> [UInt8] {
        HMACSHA256.authenticationCode(for: Array("gatehouse/v1/\(purpose)".utf8), key: master)
    }

    public var keyEncryptionKey: KeyEncryptionKey {
        get throws { try KeyEncryptionKey(bytes: derivedKey("key-encryption")) }
    }

    public static func load(environment: [String: String], databaseURL: String) throws -> ServerSecrets {
        if let encoded = environment["GATEHOUSE_SECRET_KEY"] {
            guard let bytes = decode(encoded), bytes.count == 32 else {
                throw ConfigurationError(key: "GATEHOUSE_SECRET_KEY", problem: "must be 32 bytes in base64 or hex (e.g. `openssl rand -base64 32`)")
            }
            return ServerSecrets(master: bytes)
        }
        guard databaseURL.hasPrefix("sqlite:"), !databaseURL.contains(":memory:") else {
            throw ConfigurationError(key: "GATEHOUSE_SECRET_KEY",
                                     problem: "must be set when the database is not a SQLite file (every process needs the same key)")
        }
        let path = keyFilePath(forDatabaseURL: databaseURL)
        if let existing = FileManager.default.contents(atPath: path) {
            guard let bytes = decode(String(decoding: existing, as: UTF8.self)), bytes.count == 32 else {
                throw ConfigurationError(key: "GATEHOUSE_SECRET_KEY", problem: "the key file \(path) is damaged")
            }
            return ServerSecrets(master: bytes)
        }
        let bytes = SecureRandom.bytes(32)
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // Created 0600 from the start (never world-readable, even briefly); O_EXCL so two first starts agree.
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        if fd < 0 {
            if errno == EEXIST { return try load(environment: environment, databaseURL: databaseURL) }
            throw ConfigurationError(key: "GATEHOUSE_SECRET_KEY", problem: "cannot create the key file \(path)")
        }
        let text = Array((Data(bytes).base64EncodedString() + "\n").utf8)
        _ = text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        return ServerSecrets(master: bytes)
    }

    /// `sqlite://./var/gatehouse.sqlite` → `./var/gatehouse.key`.
    static func keyFilePath(forDatabaseURL url: String) -> String {
        var path = url
        for prefix in ["sqlite://", "sqlite:"] where path.hasPrefix(prefix) {
            path = String(path.dropFirst(prefix.count))
            break
        }
        let directory = (path as NSString).deletingLastPathComponent
        return (directory.isEmpty ? "." : directory) + "/gatehouse.key"
    }

    static func decode(_ text: String) -> [UInt8]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.count == 64, let hex = Hex.decode(trimmed) { return hex }
        return Data(base64Encoded: trimmed).map { Array($0) }
    }
}
