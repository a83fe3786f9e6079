/// Finds the client's address behind reverse proxies: the peer's own address unless the peer is a
/// trusted proxy, in which case the forwarding header is read from the right (the hop the nearest
/// proxy appended) and the first untrusted hop is the client. Anything to the left of it was written
/// by the client itself and is ignored, so a spoofed header changes nothing.
public struct ClientAddressResolver: Sendable {
    /// Which header the proxies write. Only one is read: a proxy that sets one header passes the other
    /// through untouched, and reading that one would let any client choose its address.
    public enum Header: String, Sendable, CaseIterable {
        case xForwardedFor = "X-Forwarded-For"
        /// RFC 7239 `Forwarded: for=…`.
        case forwarded = "Forwarded"
    }

    public let trustedProxies: [IPNetwork]
    public let header: Header

    public init(trustedProxies: [IPNetwork], header: Header = .xForwardedFor) {
        self.trustedProxies = trustedProxies; self.header = header
    }

    public func isTrusted(_ address: IPAddress) -> Bool { trustedProxies.contains { $0.contains(address) } }

    /// The client address for a connection from `peer` carrying `headerValues` (every line of the
    /// configured header, in order). Returns the peer unchanged when it is not trusted or unparsable.
    public func resolve(peer: String?, headerValues: [String]) -> String? {
        guard !trustedProxies.isEmpty, let peer, let peerAddress = IPAddress(peer), isTrusted(peerAddress) else { return peer }
        let hops = headerValues.flatMap { value in
            value.split(separator: ",").map { $0.trimmingCharacters(in: " \t") }
        }
        var client = peerAddress
        for hop in hops.reversed() {
            let text = header == .forwarded ? Self.forwardedFor(hop) : Self.stripPort(Substring(hop))
            // A hop that is not an address ("unknown", an obfuscated name, garbage): the trusted proxy
            // could not say who its client was, so the nearest known hop stands.
            guard let text, let address = IPAddress(text) else { break }
            client = address
            if !isTrusted(address) { break }
        }
        return client.description
    }

    /// `for=` of one RFC 7239 element (`for=192.0.2.60;proto=http;by=203.0.113.43`).
    static func forwardedFor(_ element: String) -> String? {
        for pair in element.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: " \t").lowercased() == "for" else { continue }
            var value = Substring(parts[1].trimmingCharacters(in: " \t"))
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = value.dropFirst().dropLast() }
            return stripPort(value)
        }
        return nil
    }

    /// `[2001:db8::1]:4711` → `2001:db8::1`, `192.0.2.1:80` → `192.0.2.1`; bare addresses unchanged.
    static func stripPort(_ text: Substring) -> String? {
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber)) else { return nil }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        let colons = text.filter { $0 == ":" }.count
        if colons == 1, let colon = text.firstIndex(of: ":") { return String(text[..<colon]) }
        return String(text)
    }
}

private extension String {
    func trimmingCharacters(in set: String) -> String {
        var slice = Substring(self)
        while let first = slice.first, set.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, set.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}
private extension Substring {
    func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
