/// A CIDR block (`10.0.0.0/8`, `2001:db8::/32`; a bare address is a single host), as configured for
/// `http.trusted_proxies`.
public struct IPNetwork: Sendable, Hashable, CustomStringConvertible {
    public let address: IPAddress
    /// In the address's own family: 0…32 for IPv4, 0…128 for IPv6.
    public let prefixLength: Int

    public init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else { return nil }
        let maximum = address.isIPv4 ? 32 : 128
        var length = maximum
        if parts.count == 2 {
            guard parts[1].allSatisfy(\.isASCII), let value = Int(parts[1]), (0...maximum).contains(value),
                  !parts[1].hasPrefix("+") else { return nil }
            length = value
        }
        // The network is stored masked, so `10.1.2.3/8` means `10.0.0.0/8` (as routers read it).
        self.address = address.masked(to: length)
        self.prefixLength = length
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        guard candidate.isIPv4 == address.isIPv4 else { return false }
        return candidate.masked(to: prefixLength) == address
    }

    public var description: String { "\(address)/\(prefixLength)" }
}
