import Foundation
import FuzzSupport
import GatehouseIdentity

/// OAuth request parameters whose parsing decides where codes go: redirect-URI registration and
/// matching (RFC 8252 §7.3, DESIGN §4) and `scope` (RFC 6749 §3.3).
///
/// The input is NUL-separated strings: the presented redirect URI, then the registered ones.
/// Properties, checked on the raw text rather than through `URLComponents` (which the code uses):
/// a match is the exact string or a loopback `http` URI that differs from a registered one only in
/// its port; a URI that registers has no fragment, and plain `http` only when the host a browser
/// would go to (WHATWG parsing, not RFC 3986) is loopback or an allowed `localhost`; a scope parses to distinct tokens of allowed characters and its text re-parses
/// to the same scope.
func fuzzOAuthParameters(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let strings = bytes(data, size).split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    guard let presented = strings.first else { return 0 }
    let registered = Array(strings.dropFirst().prefix(8))

    if RedirectURIRules.matches(presented, registered: registered), !registered.contains(presented) {
        let loose = withoutLoopbackPort(presented)
        require(loose != nil && registered.contains { withoutLoopbackPort($0) == loose },
                "\(presented) matched \(registered) though no registered URI differs from it only in the port")
    }
    for uri in [presented] + registered {
        for allowLocalhost in [false, true] where RedirectURIRules.problem(with: uri, allowLocalhost: allowLocalhost) == nil {
            require(!uri.utf8.contains(UInt8(ascii: "#")), "registered \(uri) with a fragment")
            let lower = uri.lowercased()
            if lower.hasPrefix("http:") {
                let hosts = ["127.0.0.1", "[::1]"] + (allowLocalhost ? ["localhost"] : [])
                require(browserHost(lower).map(hosts.contains) == true, "registered plain-http \(uri) on a host that is not loopback")
            }
            require(!["javascript:", "data:", "file:", "vbscript:"].contains { lower.hasPrefix($0) }, "registered \(uri)")
        }
    }

    if let scope = Scope(parsing: presented) {
        require(Set(scope.values).count == scope.values.count, "duplicate scopes in \(scope.values)")
        require(scope.values.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy(isScopeByte) }, "a scope token with a forbidden byte")
        require(Scope(parsing: scope.description) == scope, "scope text does not re-parse: \(scope.description)")
    }
    return 0
}

/// The host a browser navigates to for an `http://` URL (WHATWG URL): the authority ends at the first
/// `/ ? #` or `\\`, userinfo ends at its last `@`, a port must be digits, the host is percent-decoded.
/// Works on scalars: a combining mark must not hide a `/` or `@`. Nil when there is no such host.
private func browserHost(_ url: String) -> String? {
    let scalars = Array(url.unicodeScalars)
    guard url.hasPrefix("http://") else { return nil }
    let authority = scalars[7...].prefix { !"/?#\\".unicodeScalars.contains($0) }
    var host = authority.lastIndex(of: "@").map { authority[($0 + 1)...] } ?? authority[...]
    if let colon = host.lastIndex(of: ":"), !host[colon...].contains("]") {
        guard host[(colon + 1)...].allSatisfy({ (0x30...0x39).contains($0.value) }) else { return nil }
        host = host[..<colon]
    }
    var text = ""
    text.unicodeScalars.append(contentsOf: host)
    return text.removingPercentEncoding ?? text
}

/// `http://127.0.0.1:PORT/rest` or `http://[::1]:PORT/rest` without `:PORT`; nil for anything else.
private func withoutLoopbackPort(_ uri: String) -> String? {
    for host in ["http://127.0.0.1", "http://[::1]"] where uri.hasPrefix(host) {
        var rest = Substring(uri.dropFirst(host.count))
        if rest.first == ":" {
            rest = rest.dropFirst()
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            rest = rest.dropFirst(digits.count)
        }
        guard rest.isEmpty || rest.first == "/" || rest.first == "?" else { return nil }
        return host + rest
    }
    return nil
}

private func isScopeByte(_ b: UInt8) -> Bool { b == 0x21 || (0x23...0x5B).contains(b) || (0x5D...0x7E).contains(b) }
