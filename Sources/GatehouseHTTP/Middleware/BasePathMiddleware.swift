/// Serves the application under a `BasePath`: a request outside the prefix is a 404; inside it, the handler
/// sees Gatehouse's own path. On the way out, a root-relative `Location` and the root-relative `href`, `action`
/// (and `formaction`) and `src` attributes of an HTML page get the prefix, so pages and redirects written in
/// Gatehouse's own path space work under any prefix. At the root it does nothing.
///
/// Page markup is produced by Gatehouse with every attribute value HTML-escaped, so a user-supplied value can
/// never contain the `attr="/` sequence this rewrites.
public struct BasePathMiddleware: Middleware {
    public let base: BasePath

    public init(_ base: BasePath) { self.base = base }

    public func prepare(_ request: inout Request) throws(HTTPError) {
        guard !base.isRoot else { return }
        guard let path = base.strip(request.path) else {
            throw HTTPError(.notFound, "There is nothing at this address.")
        }
        request.path = path
    }

    public func finish(_ request: Request, _ response: inout Response) {
        guard !base.isRoot else { return }
        if let location = response.headers["Location"] {
            response.headers.set("Location", base.publicReference(location))
        }
        if let type = response.headers["Content-Type"], type.hasPrefix("text/html") {
            response.body = Self.prefixAttributes(response.body, with: Array(base.prefix.utf8))
        }
    }

    private static let attributes: [[UInt8]] = [Array(#"href=""#.utf8), Array(#"action=""#.utf8), Array(#"src=""#.utf8)]

    /// Inserts `prefix` after every `href="`, `action="` or `src="` whose value is root-relative.
    static func prefixAttributes(_ body: [UInt8], with prefix: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(body.count + 16 * prefix.count)
        var index = 0
        var copied = 0
        let quote = UInt8(ascii: "\"")
        while index < body.count {
            // Every pattern ends with `="`: look for the quote first, then check what precedes and follows it.
            guard body[index] == quote, index > 0, body[index - 1] == UInt8(ascii: "=") else { index += 1; continue }
            let valueStart = index + 1
            if valueStart < body.count, BasePath.isRootRelative(body[valueStart...]),
               attributes.contains(where: { pattern in
                   valueStart >= pattern.count && body[(valueStart - pattern.count)..<valueStart].elementsEqual(pattern)
               }) {
                output.append(contentsOf: body[copied..<valueStart])
                output.append(contentsOf: prefix)
                copied = valueStart
            }
            index = valueStart
        }
        if copied == 0 { return body }
        output.append(contentsOf: body[copied...])
        return output
    }
}
