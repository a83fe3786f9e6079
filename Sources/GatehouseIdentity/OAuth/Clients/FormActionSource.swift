import Foundation

/// The CSP source (CSP3 §2.3.1) that lets a form submission's redirect chain end at a URI: Chromium checks
/// `form-action` on every redirect after a submission, so a page's policy must name where its flows end.
public enum FormActionSource {
    /// `https://host[:port]` for a web URI; `http://127.0.0.1:*` for a loopback redirect (any port matches,
    /// RFC 8252 §7.3); `scheme:` for a native app's private-use scheme; nil for what no source can express.
    public static func of(_ uri: String) -> String? {
        guard let parts = URLComponents(string: uri), let scheme = parts.scheme?.lowercased(), !scheme.isEmpty else { return nil }
        guard scheme == "http" || scheme == "https" else {
            // A scheme source is the scheme and a colon; only the scheme grammar may reach the header.
            let allowed = scheme.utf8.allSatisfy { isASCIIAlphanumeric($0) || "+-.".utf8.contains($0) }
            return allowed && isASCIIAlphanumeric(scheme.utf8.first!) && scheme.first!.isLetter ? scheme + ":" : nil
        }
        guard let host = parts.host?.lowercased(), !host.isEmpty,
              host.utf8.allSatisfy({ isASCIIAlphanumeric($0) || "-.[]:".utf8.contains($0) }) else { return nil }
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        if scheme == "http" && RedirectURIRules.isLoopbackIP(bracketed) { return "http://\(bracketed):*" }
        return "\(scheme)://\(bracketed)" + (parts.port.map { ":\($0)" } ?? "")
    }

    private static func isASCIIAlphanumeric(_ b: UInt8) -> Bool { (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }
}
