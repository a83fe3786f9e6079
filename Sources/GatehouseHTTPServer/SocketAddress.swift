#if canImport(Glibc)
import Glibc
#endif

/// A `sockaddr_in` / `sockaddr_in6` built from a numeric host, kept as bytes so it is a plain value.
struct SocketAddress: Sendable {
    let storage: [UInt8]

    init?(host: String, port: UInt16) {
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { return nil }
            storage = withUnsafeBytes(of: &address) { Array($0) }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
            storage = withUnsafeBytes(of: &address) { Array($0) }
        }
    }
}
