/// Where to go after signing in: only a path on this server, never another origin (no open redirect).
public enum ReturnPath {
    public static let fallback = "/account"

    /// `candidate` when it is a same-origin absolute path, else nil.
    public static func validated(_ candidate: String?) -> String? {
        guard let candidate, !candidate.isEmpty, candidate.utf8.count <= 2048 else { return nil }
        let bytes = Array(candidate.utf8)
        // "/" but not "//host" or "/\host" (browsers treat backslashes as slashes); no control characters.
        guard bytes[0] == UInt8(ascii: "/") else { return nil }
        if bytes.count > 1, bytes[1] == UInt8(ascii: "/") || bytes[1] == UInt8(ascii: "\\") { return nil }
        guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x7F || $0 == UInt8(ascii: "\\") }) else { return nil }
        return candidate
    }
}
