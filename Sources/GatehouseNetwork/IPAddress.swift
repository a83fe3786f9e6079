#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address as 16 bytes (IPv4 and IPv4-mapped IPv6 are the same address), parsed from
/// its numeric text. Used to decide whether a peer is a trusted proxy and to key rate limits.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// Network byte order; IPv4 is stored IPv4-mapped (`::ffff:a.b.c.d`).
    public let bytes: [UInt8]

    /// Whether this is an IPv4 address (or an IPv4-mapped IPv6 one).
    public var isIPv4: Bool { bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff }

    /// Parses `192.0.2.1`, `2001:db8::1` or `[2001:db8::1]`. Host names, ports and zones are refused.
    public init?(_ text: some StringProtocol) {
        var text = String(text)
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        if text.contains(":") {
            var address = in6_addr()
            guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
            bytes = withUnsafeBytes(of: &address) { Array($0) }
        } else {
            var address = in_addr()
            // inet_pton (unlike inet_aton) accepts only dotted-quad decimal: no "1", "0x7f.1" or octal.
            guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
            bytes = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff] + withUnsafeBytes(of: &address) { Array($0) }
        }
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The address with every bit past `prefixLength` (counted in its own family) cleared.
    public func masked(to prefixLength: Int) -> IPAddress {
        let bits = isIPv4 ? 96 + min(max(prefixLength, 0), 32) : min(max(prefixLength, 0), 128)
        var out = bytes
        for index in 0..<16 {
            let keep = min(max(bits - index * 8, 0), 8)
            out[index] &= keep == 8 ? 0xff : UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        }
        return IPAddress(bytes: out)
    }

    /// Canonical text: dotted quad for IPv4, RFC 5952 for IPv6.
    public var description: String {
        if isIPv4 { return bytes[12...].map { String($0) }.joined(separator: ".") }
        var address = in6_addr()
        withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            guard inet_ntop(AF_INET6, &address, buffer.baseAddress!, socklen_t(buffer.count)) != nil else { return "::" }
            return String(cString: buffer.baseAddress!)
        }
    }
}
