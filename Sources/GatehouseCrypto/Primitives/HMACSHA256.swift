import COpenSSL
import Synchronization

/// HMAC-SHA256 (RFC 2104) with a key fixed at construction.
///
/// The key is loaded into an `EVP_MAC_CTX` once (hashing the padded key is the costly part of a
/// short HMAC) and every call re-initialises that context, which is about 3× faster than a one-shot
/// `HMAC()`. The context is guarded by a mutex because an `EVP_MAC_CTX` is not thread-safe; an
/// uncontended lock costs nanoseconds against the ~1 µs of the MAC itself.
// @unchecked Sendable: a thin owner of an EVP_MAC_CTX*, which is only touched under `lock`.
public final class HMACSHA256: @unchecked Sendable {
    /// MAC length in bytes.
    public static let byteCount = 32

    private let ctx: OpaquePointer
    private let lock = Mutex(())

    /// Creates a MAC for `key` (any length; keys longer than 64 bytes are hashed as RFC 2104 says).
    public init<Key: Collection>(key: Key) where Key.Element == UInt8 {
        let keyBytes = Array(key)
        guard let ctx = EVP_MAC_CTX_new(OpenSSLAlgorithms.hmac) else { fatalError("EVP_MAC_CTX_new failed") }
        // An OSSL_PARAM keeps pointers to its name and value, so both C strings must outlive
        // EVP_MAC_init. Passing the imported `OSSL_MAC_PARAM_DIGEST` String straight to the construct
        // call made a temporary that was gone by then: under load OpenSSL read freed memory as the
        // parameter name, found no digest, and the precondition below stopped the server.
        let ok = OSSL_MAC_PARAM_DIGEST.withCString { name in
            "SHA256".withCString { digest in
                var params = [
                    OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                    OSSL_PARAM_construct_end(),
                ]
                return keyBytes.withUnsafeBufferPointer { k in
                    // An empty key still needs a non-NULL pointer or OpenSSL keeps "no key set".
                    withUnsafePointer(to: UInt8(0)) { zero in
                        EVP_MAC_init(ctx, k.baseAddress ?? zero, k.count, &params)
                    }
                }
            }
        }
        precondition(ok == 1, "EVP_MAC_init(HMAC-SHA256) failed")
        self.ctx = ctx
    }

    deinit { EVP_MAC_CTX_free(ctx) }

    /// The 32-byte MAC of `message`.
    public func authenticationCode<Message: Collection>(for message: Message) -> [UInt8] where Message.Element == UInt8 {
        if let mac = message.withContiguousStorageIfAvailable({ authenticationCode(buffer: UnsafeRawBufferPointer($0)) }) {
            return mac
        }
        return Array(message).withUnsafeBytes { authenticationCode(buffer: $0) }
    }

    /// The 32-byte MAC of `message` (concrete overload: no generic dispatch on the hot path).
    public func authenticationCode(for message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { authenticationCode(buffer: $0) }
    }

    /// The MAC of the UTF-8 bytes of `message`.
    public func authenticationCode(for message: String) -> [UInt8] {
        var message = message
        return message.withUTF8 { authenticationCode(buffer: UnsafeRawBufferPointer($0)) }
    }

    /// Checks `mac` against the MAC of `message` in constant time.
    public func isValid<Message: Collection>(_ mac: [UInt8], for message: Message) -> Bool where Message.Element == UInt8 {
        ConstantTime.equals(authenticationCode(for: message), mac)
    }

    /// One-shot convenience for a key used once; prefer an instance for repeated use.
    public static func authenticationCode<Key: Collection, Message: Collection>(for message: Message, key: Key) -> [UInt8]
    where Key.Element == UInt8, Message.Element == UInt8 {
        HMACSHA256(key: key).authenticationCode(for: message)
    }

    func authenticationCode(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        lock.withLock { _ in
            [UInt8](unsafeUninitializedCapacity: Self.byteCount) { out, initialized in
                var length = 0
                // Re-init with NULL key keeps the loaded key and resets the inner/outer digests.
                let ok = EVP_MAC_init(ctx, nil, 0, nil) == 1
                    && EVP_MAC_update(ctx, buffer.baseAddress, buffer.count) == 1
                    && EVP_MAC_final(ctx, out.baseAddress, &length, Self.byteCount) == 1
                precondition(ok && length == Self.byteCount, "HMAC-SHA256 failed")
                initialized = Self.byteCount
            }
        }
    }
}
