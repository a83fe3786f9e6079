/// The path Gatehouse is served under: `""` at a host's root, `/auth` for `https://app.example/auth` (the
/// one-origin deployment, behind the product's reverse proxy).
///
/// Handlers and pages work in Gatehouse's own path space — routes, redirects, form actions and `return_to`
/// values are root-relative (`/sign-in`). This type is the one place that maps between that space and the
/// public one: `BasePathMiddleware` strips the prefix from every request and adds it to everything a browser
/// follows (root-relative `Location`, `href`, `action`, `src`). Non-HTML outputs that carry paths (scripts,
/// JSON) use `path(_:)` explicitly; absolute URLs are built from the public URL, which already has the prefix.
public struct BasePath: Sendable, Equatable {
    /// `""` or `/segment[/segment…]`, never with a trailing slash.
    public let prefix: String

    /// The root: no prefix.
    public static let root = BasePath(validated: "")

    private init(validated prefix: String) { self.prefix = prefix }

    /// From a URL path such as `/auth` or `/auth/` (`nil` for a path with empty, dot or unsafe segments).
    public init?(_ path: String) {
        var trimmed = Substring(path)
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        if trimmed.isEmpty { self.prefix = ""; return }
        guard trimmed.hasPrefix("/") else { return nil }
        let segments = trimmed.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            guard !segment.isEmpty, segment != ".", segment != "..",
                  segment.utf8.allSatisfy({ Self.isSegmentByte($0) }) else { return nil }
        }
        self.prefix = String(trimmed)
    }

    public var isRoot: Bool { prefix.isEmpty }

    /// The public path for one of Gatehouse's own paths: `/sign-in` → `/auth/sign-in`.
    public func path(_ internalPath: String) -> String { prefix + internalPath }

    /// The cookie `Path` attribute that scopes Gatehouse's cookies to its own paths.
    public var cookiePath: String { isRoot ? "/" : prefix }

    /// Gatehouse's own path for a request path, or `nil` when the request is outside the prefix.
    public func strip(_ publicPath: String) -> String? {
        if isRoot { return publicPath }
        guard publicPath.hasPrefix(prefix) else { return nil }
        let rest = publicPath.dropFirst(prefix.count)
        if rest.isEmpty { return "/" }
        return rest.hasPrefix("/") ? String(rest) : nil
    }

    /// A root-relative reference (`/x`, not `//host` or `/\host`) gets the prefix; anything else is returned as is.
    public func publicReference(_ reference: String) -> String {
        guard !isRoot, Self.isRootRelative(reference.utf8) else { return reference }
        return prefix + reference
    }

    static func isRootRelative<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        var iterator = bytes.makeIterator()
        guard iterator.next() == UInt8(ascii: "/") else { return false }
        let second = iterator.next()
        return second != UInt8(ascii: "/") && second != UInt8(ascii: "\\")
    }

    private static func isSegmentByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"): true
        default: false
        }
    }
}
