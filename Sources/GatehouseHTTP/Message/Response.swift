import Foundation

/// An HTTP response: status, headers and a fully buffered body.
public struct Response: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status; self.headers = headers; self.body = body
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// A `text/html; charset=utf-8` response.
    public static func html(_ html: String, status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// A JSON response from pre-serialised bytes.
    public static func json(bytes: [UInt8], status: HTTPStatus = .ok) -> Response {
        Response(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }

    /// A JSON response from an `Encodable` value (sorted keys, so output is stable).
    public static func json<T: Encodable>(_ value: T, status: HTTPStatus = .ok) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return .json(bytes: Array(data), status: status)
    }

    /// A redirect; `303 See Other` by default, the right answer after a POST.
    public static func redirect(to location: String, status: HTTPStatus = .seeOther) -> Response {
        Response(status: status, headers: ["Location": location])
    }

    /// Adds a `Set-Cookie` header.
    public mutating func setCookie(_ cookie: SetCookie) { headers.add("Set-Cookie", cookie.headerValue) }

    /// The body as UTF-8 text (tests and logs).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
