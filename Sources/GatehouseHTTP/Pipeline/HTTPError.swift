/// An error a handler throws to answer with a client-facing status and message.
///
/// `publicMessage` is shown to the client; nothing else about the failure is. Errors of any other
/// type become a 500 whose body says only that something went wrong, with the request id.
public struct HTTPError: Error, Sendable, Equatable {
    public var status: HTTPStatus
    public var publicMessage: String
    /// Extra headers the answer needs (`Allow` on 405, `Retry-After` on 429, `WWW-Authenticate` on 401).
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, _ publicMessage: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status; self.publicMessage = publicMessage; self.headers = headers
    }
}
