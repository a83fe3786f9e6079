/// Router + middleware + error mapping: the whole of request handling, independent of any socket.
///
/// The libmicrohttpd bridge calls `start`, answering `.ready` responses on the I/O thread and running
/// `.pending` ones in a task; tests call `respond(to:)` and need no port at all.
public struct RequestPipeline: Sendable {
    /// What `start` produced.
    public enum Outcome: Sendable {
        case ready(Response)
        case pending(@Sendable () async -> Response)
    }

    /// The parts live in one immutable object: the server copies the pipeline for every request, and
    /// copying a single reference costs one retain instead of one per field (the router's tree included).
    private final class Parts: Sendable {
        let router: Router
        let middleware: [any Middleware]
        let renderError: ErrorRenderer
        let reportFailure: @Sendable (any Error, Request) -> Void
        let classifyFailure: @Sendable (any Error) -> HTTPError?

        init(router: Router, middleware: [any Middleware], renderError: @escaping ErrorRenderer,
             reportFailure: @escaping @Sendable (any Error, Request) -> Void,
             classifyFailure: @escaping @Sendable (any Error) -> HTTPError?) {
            self.router = router; self.middleware = middleware
            self.renderError = renderError; self.reportFailure = reportFailure; self.classifyFailure = classifyFailure
        }
    }
    private let parts: Parts

    public var router: Router { parts.router }
    public var middleware: [any Middleware] { parts.middleware }
    public var renderError: ErrorRenderer { parts.renderError }
    /// Reports errors that are not `HTTPError` (they become a bare 500); the server logs them.
    public var reportFailure: @Sendable (any Error, Request) -> Void { parts.reportFailure }

    /// - Parameter classifyFailure: turns some errors that are not `HTTPError` into a client-facing
    ///   answer (a database outage into 503 with `Retry-After`); they are still reported. Others are 500.
    public init(router: Router, middleware: [any Middleware] = [], renderError: @escaping ErrorRenderer = DefaultErrorRenderer.render,
                reportFailure: @escaping @Sendable (any Error, Request) -> Void = { _, _ in },
                classifyFailure: @escaping @Sendable (any Error) -> HTTPError? = { _ in nil }) {
        parts = Parts(router: router, middleware: middleware, renderError: renderError, reportFailure: reportFailure,
                      classifyFailure: classifyFailure)
    }

    /// The in-process entry point: handles a request completely and returns the response.
    public func respond(to request: Request) async -> Response {
        switch start(request) {
        case .ready(let response): response
        case .pending(let work): await work()
        }
    }

    /// Builds the request from wire parts; a target that does not decode gets a 400 through the
    /// normal middleware (so it is logged, counted and carries the security headers).
    public func start(method: HTTPMethod, target: String, headers: HTTPHeaders, body: [UInt8],
                      remoteAddress: String?) -> Outcome {
        do {
            return start(try Request(method: method, target: target, headers: headers, body: body,
                                     remoteAddress: remoteAddress))
        } catch {
            // The path "/" stands in for a target that could not be decoded.
            var placeholder = try! Request(method: method, target: "/", headers: headers, remoteAddress: remoteAddress)
            placeholder.route = "(invalid)"
            return start(placeholder, rejecting: error)
        }
    }

    /// Runs middleware and routing; returns the response, or the work that will produce it.
    public func start(_ incoming: consuming Request) -> Outcome { start(incoming, rejecting: nil) }

    /// With `rejection`, middleware still prepares the request (id, metrics) but the router is skipped.
    private func start(_ incoming: consuming Request, rejecting rejection: HTTPError?) -> Outcome {
        // Consumed, not copied: a copy retains and later releases every field of the request.
        var request = incoming
        var prepared = 0
        do throws(HTTPError) {
            for step in middleware {
                try step.prepare(&request)
                prepared += 1
            }
        } catch {
            return .ready(finish(request, renderError(error, request), through: prepared))
        }
        if let rejection { return .ready(answer(request, with: rejection)) }
        switch router.match(request.method, request.path) {
        case .notFound:
            request.route = "(unmatched)"
            return .ready(answer(request, with: HTTPError(.notFound, "There is nothing at this address.")))
        case .methodNotAllowed(let allowed):
            request.route = "(unmatched)"
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            return .ready(answer(request, with: HTTPError(.methodNotAllowed, "This address does not accept \(request.method).",
                                                          headers: ["Allow": allow])))
        case .found(let handler, let pattern, let parameters):
            request.route = pattern
            request.pathParameters = parameters
            switch handler {
            case .immediate(let run):
                let response: Response
                do { response = try run(request) } catch { response = errorResponse(error, request) }
                return .ready(finish(request, response, through: middleware.count))
            case .deferred(let run):
                let routed = request
                return .pending {
                    let response: Response
                    do { response = try await run(routed) } catch { response = errorResponse(error, routed) }
                    return finish(routed, response, through: middleware.count)
                }
            }
        }
    }

    private func answer(_ request: Request, with error: HTTPError) -> Response {
        finish(request, renderError(error, request), through: middleware.count)
    }

    private func errorResponse(_ error: any Error, _ request: Request) -> Response {
        if let error = error as? HTTPError { return renderError(error, request) }
        reportFailure(error, request)
        if let answer = parts.classifyFailure(error) { return renderError(answer, request) }
        return renderError(HTTPError(.internalServerError, "Something went wrong on our side. It has been logged."), request)
    }

    private func finish(_ request: Request, _ response: Response, through count: Int) -> Response {
        var response = response
        for step in middleware[..<count].reversed() { step.finish(request, &response) }
        return response
    }
}
