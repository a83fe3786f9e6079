/// Maps method + path to a handler. Patterns are literal segments and `{name}` parameters, e.g.
/// `/oauth/clients/{id}`; a final `{name...}` captures the rest of the path. Literal segments win
/// over parameters. `HEAD` is answered by the `GET` handler for every route.
public struct Router: Sendable {
    /// The result of looking a request up.
    public enum Match: Sendable {
        case found(Handler, pattern: String, parameters: [String: String])
        case notFound
        /// The path exists but not for this method; `allowed` feeds the `Allow` header.
        case methodNotAllowed(allowed: [HTTPMethod])
    }

    /// A tree of path segments; a value type so a finished router is immutable and freely shared.
    private struct Node: Sendable {
        var literals: [String: Node] = [:]
        /// The `{name}` child, stored in a one-element array because a struct cannot hold itself directly.
        var parameter: [Node] = []
        var parameterName: String?
        var catchAllName: String?
        var catchAllHandlers: [HTTPMethod: Handler] = [:]
        var catchAllPattern = ""
        var handlers: [HTTPMethod: Handler] = [:]
        var pattern = ""

        mutating func insert(_ segments: ArraySlice<String>, _ method: HTTPMethod, _ handler: Handler,
                             pattern fullPattern: String) {
            guard let segment = segments.first else {
                precondition(handlers[method] == nil, "duplicate route \(method) \(fullPattern)")
                handlers[method] = handler
                pattern = fullPattern
                return
            }
            let rest = segments.dropFirst()
            if segment.hasPrefix("{") && segment.hasSuffix("...}") {
                precondition(rest.isEmpty, "a catch-all must be the last segment: \(fullPattern)")
                precondition(catchAllHandlers[method] == nil, "duplicate route \(method) \(fullPattern)")
                catchAllName = String(segment.dropFirst().dropLast(4))
                catchAllHandlers[method] = handler
                catchAllPattern = fullPattern
            } else if segment.hasPrefix("{") && segment.hasSuffix("}") {
                let name = String(segment.dropFirst().dropLast())
                precondition(parameterName == nil || parameterName == name,
                             "conflicting parameter names in \(fullPattern)")
                parameterName = name
                if parameter.isEmpty { parameter = [Node()] }
                parameter[0].insert(rest, method, handler, pattern: fullPattern)
            } else {
                literals[segment, default: Node()].insert(rest, method, handler, pattern: fullPattern)
            }
        }
    }

    private var root = Node()
    /// Handlers of patterns without parameters, keyed by the pattern itself: most requests hit one of
    /// these, and one hash lookup then replaces splitting the path into segment strings. A path equal
    /// to such a pattern walks literal children only and ends at that pattern's node, so the answer
    /// is the same as the tree's.
    private var literalRoutes: [String: [HTTPMethod: Handler]] = [:]

    public init() {}

    /// Registers a handler. Registering the same method and pattern twice is a programming error.
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: Handler) {
        root.insert(Self.segments(of: pattern)[...], method, handler, pattern: pattern)
        if !pattern.utf8.contains(UInt8(ascii: "{")) { literalRoutes[pattern, default: [:]][method] = handler }
    }

    /// Registers an immediate handler.
    public mutating func on(_ method: HTTPMethod, _ pattern: String,
                            _ handler: @escaping @Sendable (Request) throws -> Response) {
        add(method, pattern, .immediate(handler))
    }

    /// Registers a deferred (async) handler.
    public mutating func on(_ method: HTTPMethod, _ pattern: String,
                            _ handler: @escaping @Sendable (Request) async throws -> Response) {
        add(method, pattern, .deferred(handler))
    }

    public mutating func get(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        on(.get, pattern, handler)
    }
    public mutating func get(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) {
        on(.get, pattern, handler)
    }
    public mutating func post(_ pattern: String, _ handler: @escaping @Sendable (Request) throws -> Response) {
        on(.post, pattern, handler)
    }
    public mutating func post(_ pattern: String, _ handler: @escaping @Sendable (Request) async throws -> Response) {
        on(.post, pattern, handler)
    }

    /// Finds the handler for a method and decoded path.
    public func match(_ method: HTTPMethod, _ path: String) -> Match {
        if let handlers = literalRoutes[path] { return Self.pick(method, handlers, path, [:]) }
        var node = root
        var parameters: [String: String] = [:]
        let segments = Self.segments(of: path)
        var index = 0
        while index < segments.count {
            let segment = segments[index]
            if let child = node.literals[segment] {
                node = child
            } else if let name = node.parameterName, !segment.isEmpty {
                parameters[name] = segment
                node = node.parameter[0]
            } else if let name = node.catchAllName {
                parameters[name] = segments[index...].joined(separator: "/")
                return Self.pick(method, node.catchAllHandlers, node.catchAllPattern, parameters)
            } else {
                return .notFound
            }
            index += 1
        }
        if node.handlers.isEmpty {
            guard let name = node.catchAllName else { return .notFound }
            parameters[name] = ""
            return Self.pick(method, node.catchAllHandlers, node.catchAllPattern, parameters)
        }
        return Self.pick(method, node.handlers, node.pattern, parameters)
    }

    private static func pick(_ method: HTTPMethod, _ handlers: [HTTPMethod: Handler], _ pattern: String,
                             _ parameters: [String: String]) -> Match {
        if let handler = handlers[method] ?? (method == .head ? handlers[.get] : nil) {
            return .found(handler, pattern: pattern, parameters: parameters)
        }
        var allowed = Set(handlers.keys)
        if allowed.contains(.get) { allowed.insert(.head) }
        return .methodNotAllowed(allowed: allowed.sorted { $0.rawValue < $1.rawValue })
    }

    private static func segments(of path: String) -> [String] {
        // "/" is the root (no segments); a trailing slash is a distinct, empty last segment.
        // Split on the byte, not on Characters: "/" followed by a combining mark is one Character, so a
        // Character split let "/\u{301}x" reach "/" and a `{name}` value hold a slash (found by fuzz/http-request).
        let bytes = path.utf8
        guard !bytes.elementsEqual("/".utf8) else { return [] }
        return bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst().map { String(Substring($0)) }
    }
}
