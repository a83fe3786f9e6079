import GatehouseHTTP

/// Where to go after signing in: only a path on this server, never another origin (no open redirect), and
/// never a path that leaves Gatehouse's own space once the one-origin prefix is put in front of it
/// (`/auth` + `/../x` is any page of the product).
public enum ReturnPath {
    public static let fallback = "/account"

    /// `candidate` when it is a same-origin absolute path, with literal dot segments removed (RFC 3986
    /// §5.2.4); nil when it is not, or when a dot segment hides in an encoding (`%2e%2e`, `.%2E`, `%252e`,
    /// `..%2f`): browsers and the product's server resolve those as `..` too, after the prefix is added.
    public static func validated(_ candidate: String?) -> String? {
        guard let candidate, !candidate.isEmpty, candidate.utf8.count <= 2048 else { return nil }
        let bytes = Array(candidate.utf8)
        // "/" but not "//host" or "/\host" (browsers treat backslashes as slashes); no control characters.
        guard bytes[0] == UInt8(ascii: "/") else { return nil }
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") || bytes[1] == UInt8(ascii: "\\") { return nil }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) else { return nil }
        let split = candidate.firstIndex { $0 == "?" || $0 == "#" } ?? candidate.endIndex
        let path = removingDotSegments(String(candidate[..<split]))
        guard !hidesDotSegment(path) else { return nil }
        let normalised = path + candidate[split...]
        guard !normalised.hasPrefix("//") else { return nil }
        return normalised
    }

    /// RFC 3986 §5.2.4 for an absolute path: `.` segments dropped, `..` removes the segment before it
    /// (never above the root).
    static func removingDotSegments(_ path: String) -> String {
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let last = index == segments.count - 1
            switch segment {
            case ".": if last { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if last { output.append("") }
            default: output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// Whether decoding once — or twice, as a product server that decodes again would — turns a segment
    /// into `.` or `..` (a `%2f` or `%5c` inside a segment splits it first, as some servers do).
    static func hidesDotSegment(_ path: String) -> Bool {
        var text = path
        for _ in 0..<2 {
            guard text.contains("%") else { return false }
            guard let decoded = try? PercentDecoding.decode(Array(text.utf8)[...], plusIsSpace: false) else { return true }
            let segments = decoded.split(omittingEmptySubsequences: false) { $0 == "/" || $0 == "\\" }
            if segments.contains(where: { $0 == "." || $0 == ".." }) { return true }
            if decoded.hasPrefix("//") || decoded.contains("\\") || decoded.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                return true
            }
            text = decoded
        }
        return false
    }
}
