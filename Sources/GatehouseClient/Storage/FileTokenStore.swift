import Foundation

/// Tokens in a JSON file readable by the owner only: for the CLI and other Linux/macOS tools
/// where there is no keychain.
///
/// Every save writes a new file created with mode 0600 (never wider, not even for an instant)
/// next to the target, then renames it over the target, so a crash leaves the old file or the
/// new one and never half of either. The directory is created 0700 when missing.
public struct FileTokenStore: TokenStore {
    public let url: URL

    public init(url: URL) { self.url = url }

    public func load() throws -> TokenSet? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do { return try JSONDecoder.tokens.decode(TokenSet.self, from: data) }
        catch { throw FileTokenStoreError.corrupt(url.path) }
    }

    public func save(_ tokens: TokenSet) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let data = try JSONEncoder.tokens.encode(tokens)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(RandomString.base64URL(byteCount: 8)).tmp")

        // open(2) with the mode, not FileManager.createFile: the latter writes first and sets
        // permissions after, leaving a window where the tokens are world-readable.
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw FileTokenStoreError.io("create \(temporary.path)", errno) }
        var written = 0
        let writeResult: Int32 = data.withUnsafeBytes { buffer in
            while written < buffer.count {
                let count = write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 { if errno == EINTR { continue }; return errno }
                written += count
            }
            return fsync(descriptor) == 0 ? 0 : errno
        }
        close(descriptor)
        guard writeResult == 0 else {
            unlink(temporary.path)
            throw FileTokenStoreError.io("write \(temporary.path)", writeResult)
        }
        guard rename(temporary.path, url.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw FileTokenStoreError.io("rename to \(url.path)", code)
        }
    }

    public func clear() throws {
        guard unlink(url.path) == 0 || errno == ENOENT else { throw FileTokenStoreError.io("remove \(url.path)", errno) }
    }
}

/// Why a `FileTokenStore` operation failed.
public enum FileTokenStoreError: Error, Equatable, Sendable {
    /// A system call failed with this `errno`.
    case io(String, Int32)
    /// The file exists but is not a token set.
    case corrupt(String)
}

extension JSONEncoder {
    static var tokens: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}

extension JSONDecoder {
    static var tokens: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }
}
