/// A step around the handlers of one group of routes, in the manner of Hummingbird's router middleware: it is
/// declared once where the group's routes are registered (``Router/group(_:register:)``), so a route added to the group
/// gets it without remembering. Unlike a pipeline ``Middleware`` it sees only its group's requests.
///
/// A step amends what the handler answers, and the ``HTTPError`` a handler throws (through its `headers`, which
/// every error renderer copies), so an error page of the group carries the step's headers too. Other errors go on
/// untouched to the pipeline, whose generic 500 or 503 says nothing a cache could keep.
public protocol RouteMiddleware: Sendable {
    /// The group's name in ``Router/routes`` (tests walk a group by it).
    var name: String { get }
    /// Wraps one handler, once, at registration. A step that does no I/O keeps an immediate handler immediate.
    func wrap(_ handler: Handler) -> Handler
}

/// A ``RouteMiddleware`` that only sets response headers: it keeps an immediate handler on the I/O thread.
public protocol ResponseHeadersMiddleware: RouteMiddleware {
    /// The headers to set on every answer of the group.
    var headers: HTTPHeaders { get }
}

extension ResponseHeadersMiddleware {
    public func wrap(_ handler: Handler) -> Handler {
        let headers = headers
        switch handler {
        case .immediate(let run):
            return .immediate { request in
                do {
                    var response = try run(request)
                    for (name, value) in headers { response.headers.set(name, value) }
                    return response
                } catch var error as HTTPError {
                    for (name, value) in headers { error.headers.set(name, value) }
                    throw error
                }
            }
        case .deferred(let run):
            return .deferred { request in
                do {
                    var response = try await run(request)
                    for (name, value) in headers { response.headers.set(name, value) }
                    return response
                } catch var error as HTTPError {
                    for (name, value) in headers { error.headers.set(name, value) }
                    throw error
                }
            }
        }
    }
}

/// Never stored by a browser or a proxy (RFC 9111 §5.2.2.5; `Pragma` for HTTP/1.0 caches, RFC 6749 §5.1): the
/// group of pages that carry CSRF tokens, personal data or one-time links, and of token and API answers.
public struct NoStoreMiddleware: ResponseHeadersMiddleware {
    public static let name = "no-store"
    public var name: String { Self.name }
    public let headers: HTTPHeaders = ["Cache-Control": "no-store", "Pragma": "no-cache"]

    public init() {}
}
