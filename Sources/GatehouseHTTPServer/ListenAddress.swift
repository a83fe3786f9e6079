/// A numeric IPv4 or IPv6 address and port to listen on: `127.0.0.1:8080`, `[::1]:8080`, `0.0.0.0:80`.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: UInt16

    public init(host: String, port: UInt16) { self.host = host; self.port = port }

    /// Parses `host:port`; IPv6 hosts are bracketed. Host names are refused: a server binds addresses.
    public init?(parsing text: String) {
        let hostPart: Substring, portPart: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            hostPart = text[text.index(after: text.startIndex)..<close]
            portPart = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        guard let port = UInt16(portPart), !hostPart.isEmpty else { return nil }
        let host = String(hostPart)
        guard SocketAddress(host: host, port: port) != nil else { return nil }
        self.init(host: host, port: port)
    }

    public var isIPv6: Bool { host.contains(":") }
    public var description: String { isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
