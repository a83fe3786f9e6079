import COpenSSL

/// Algorithm implementations fetched from the default provider once per process.
///
/// OpenSSL 3 resolves `EVP_sha256()` and friends through a provider lookup on every `*Init` call;
/// passing an explicitly fetched object skips that lookup on the hot path.
enum OpenSSLAlgorithms {
    // EVP_MD / EVP_MAC / EVP_CIPHER are immutable, reference-counted and documented as shareable
    // between threads; Swift 6 still rejects a global OpaquePointer, hence nonisolated(unsafe).
    nonisolated(unsafe) static let sha256: OpaquePointer = fetch(EVP_MD_fetch(nil, "SHA256", nil), "SHA256")
    nonisolated(unsafe) static let hmac: OpaquePointer = fetch(EVP_MAC_fetch(nil, "HMAC", nil), "HMAC")
    nonisolated(unsafe) static let aes256GCM: OpaquePointer = fetch(EVP_CIPHER_fetch(nil, "AES-256-GCM", nil), "AES-256-GCM")

    private static func fetch(_ pointer: OpaquePointer?, _ name: String) -> OpaquePointer {
        guard let pointer else { fatalError("OpenSSL provider has no \(name)") }
        return pointer
    }
}

/// Describes and clears OpenSSL's thread-local error queue, so a failure never leaks into the next call.
func openSSLFailure(_ call: String) -> CryptoError {
    let code = ERR_get_error()
    ERR_clear_error()
    guard code != 0 else { return .openSSL(call) }
    var buffer = [CChar](repeating: 0, count: 256)
    ERR_error_string_n(code, &buffer, buffer.count)
    let reason = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    return .openSSL("\(call): \(reason)")
}
