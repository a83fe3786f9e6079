/// A step every request passes through, before and after its handler. Both hooks are synchronous so
/// cheap routes can be answered entirely on the I/O thread.
public protocol Middleware: Sendable {
    /// Inspects or amends the request; throwing answers at once with that error.
    func prepare(_ request: inout Request) throws(HTTPError)
    /// Amends the response on its way out (runs in reverse order, also for errors and early answers).
    func finish(_ request: Request, _ response: inout Response)
}

extension Middleware {
    public func prepare(_ request: inout Request) throws(HTTPError) {}
    public func finish(_ request: Request, _ response: inout Response) {}
}
