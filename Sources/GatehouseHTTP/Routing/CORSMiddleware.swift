/// Cross-origin reads for a group of routes (the Fetch standard's CORS protocol): when the request's `Origin`
/// is one of the allowed origins, the answer names it, with the headers and methods a browser may use. Any
/// other origin, or none, gets no CORS headers, so the browser keeps the answer from the page.
public struct CORSMiddleware: RouteMiddleware {
    public static let name = "cors"
    public var name: String { Self.name }

    let origins: @Sendable () async -> Set<String>
    let allowedHeaders: String
    let allowedMethods: String

    /// - Parameter origins: the allowed origins now (read per request: clients can be registered while the
    ///   server runs).
    public init(allowedHeaders: String, allowedMethods: String, origins: @escaping @Sendable () async -> Set<String>) {
        self.origins = origins; self.allowedHeaders = allowedHeaders; self.allowedMethods = allowedMethods
    }

    public func wrap(_ handler: Handler) -> Handler {
        let run: @Sendable (Request) async throws -> Response
        switch handler {
        case .immediate(let immediate): run = { try immediate($0) }
        case .deferred(let deferred): run = deferred
        }
        return .deferred { [self] request in
            do {
                var response = try await run(request)
                if let headers = await headers(for: request) { for (name, value) in headers { response.headers.set(name, value) } }
                return response
            } catch var error as HTTPError {
                if let headers = await headers(for: request) { for (name, value) in headers { error.headers.set(name, value) } }
                throw error
            }
        }
    }

    /// The CORS headers for this request, or nil when its origin is not allowed (or it sent none, which needs no read).
    func headers(for request: Request) async -> HTTPHeaders? {
        guard let origin = request.headers["Origin"], await origins().contains(origin) else { return nil }
        return ["Access-Control-Allow-Origin": origin, "Vary": "Origin",
                "Access-Control-Allow-Headers": allowedHeaders, "Access-Control-Allow-Methods": allowedMethods]
    }
}
