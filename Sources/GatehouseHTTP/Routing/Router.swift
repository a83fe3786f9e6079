/// Maps method + path to a handler. Patterns are literal segments and `{name}` parameters, e.g.
/// `/oauth/clients/{id}`; a final `{name...}` captures the rest of the path. Literal segments win
/// over parameters.
///
/// `HEAD` must never run side effects (a link scanner or a proxy may send it): it is answered by a
/// route's `GET` handler only when the route declares that safe (``HeadPolicy``). Immediate handlers
/// do no I/O, so they allow it by default; deferred (async) handlers refuse it unless they opt in, and
/// a refused `HEAD` is a 405 whose `Allow` header omits `HEAD`.
public struct Router: Sendable {
    /// Whether `HEAD` may be answered by a route's `GET` handler.
    public enum HeadPolicy: Sendable {
        /// The handler only reads: `HEAD` runs it and the server drops the body.
        case servedByGet
        /// The handler changes state (spends a token, mints a code, …): `HEAD` is 405.
        case refused
    }

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

    /// The route middleware of the groups being registered now, outermost first (``group(_:register:)``).
    private var groupMiddleware: [any RouteMiddleware] = []

    /// One registered method and pattern, with the names of the route groups it belongs to, outermost first.
    public struct Route: Sendable, Equatable {
        public let method: HTTPMethod
        public let pattern: String
        public let groups: [String]
    }
    /// Every registered method and pattern (`HEAD` included where a `GET` answers it), in registration order.
    public private(set) var routes: [Route] = []

    public init() {}

    /// Registers what `register` adds as a group: every handler is wrapped by `middleware` (the first listed is the
    /// outermost), and by the middleware of any group around this one. Declared once where routes are
    /// registered, so a route added to the group gets its headers without remembering them.
    public mutating func group(_ middleware: any RouteMiddleware..., register: (inout Router) -> Void) {
        let outer = groupMiddleware
        groupMiddleware += middleware
        register(&self)
        groupMiddleware = outer
    }

    /// Registers a handler. Registering the same method and pattern twice is a programming error.
    /// A `GET` handler also answers `HEAD` when `head` is `.servedByGet` (the default for immediate
    /// handlers; deferred ones refuse `HEAD` unless they say otherwise).
    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ handler: Handler, head: HeadPolicy? = nil) {
        // The policy is the route's own: a group's wrapper may turn an immediate handler into a deferred one.
        let head = head ?? Self.defaultHeadPolicy(handler)
        let handler = groupMiddleware.reversed().reduce(handler) { wrapped, step in step.wrap(wrapped) }
        insert(method, pattern, handler)
        if method == .get, head == .servedByGet { insert(.head, pattern, handler) }
    }

    private mutating func insert(_ method: HTTPMethod, _ pattern: String, _ handler: Handler) {
        root.insert(Self.segments(of: pattern)[...], method, handler, pattern: pattern)
        routes.append(Route(method: method, pattern: pattern, groups: groupMiddleware.map(\.name)))
        if !pattern.utf8.contains(UInt8(ascii: "{")) { literalRoutes[pattern, default: [:]][method] = handler }
    }

    /// Immediate handlers answer on the I/O thread without I/O, so they cannot spend anything;
    /// deferred ones may, so they must opt in.
    private static func defaultHeadPolicy(_ handler: Handler) -> HeadPolicy {
        if case .immediate = handler { return .servedByGet }
        return .refused
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

    public mutating func get(_ pattern: String, head: HeadPolicy = .servedByGet,
                             _ handler: @escaping @Sendable (Request) throws -> Response) {
        add(.get, pattern, .immediate(handler), head: head)
    }
    /// A deferred `GET`; pass `head: .servedByGet` only when the handler has no side effects.
    public mutating func get(_ pattern: String, head: HeadPolicy = .refused,
                             _ handler: @escaping @Sendable (Request) async throws -> Response) {
        add(.get, pattern, .deferred(handler), head: head)
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
        if let handler = handlers[method] {
            return .found(handler, pattern: pattern, parameters: parameters)
        }
        return .methodNotAllowed(allowed: handlers.keys.sorted { $0.rawValue < $1.rawValue })
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
