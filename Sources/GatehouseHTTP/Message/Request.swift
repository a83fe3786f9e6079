import Foundation

/// An HTTP request as handlers see it: decoded path, parsed query, case-insensitive headers,
/// cookies, the raw body and where it came from.
public struct Request: Sendable {
    public var method: HTTPMethod
    /// The percent-decoded path, always starting with `/`.
    public var path: String
    /// The query string exactly as received (without `?`), for logging decisions and signatures.
    public var rawQuery: String?
    public var query: URLEncodedForm
    public var headers: HTTPHeaders
    public var cookies: RequestCookies
    public var body: [UInt8]
    public var remoteAddress: String?
    /// Values captured by `{name}` segments of the matched route.
    public var pathParameters: [String: String] = [:]
    /// The route pattern that matched (`/users/{id}`), set by the router; metrics label by it.
    public var route: String?
    /// Set by `RequestIDMiddleware`; echoed in `X-Request-Id` and every log line.
    public var requestID: String = ""
    public var receivedAt: ContinuousClock.Instant

    /// Builds a request from a request target (`/path?query`), decoding and validating it.
    /// Throws `HTTPError.badRequest` for bad percent-escapes or invalid UTF-8.
    public init(method: HTTPMethod, target: String, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [],
                remoteAddress: String? = nil) throws(HTTPError) {
        // Works on the target's own UTF-8 view: no byte array is copied out per request.
        let bytes = target.utf8
        let questionMark = bytes.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = bytes[..<(questionMark ?? bytes.endIndex)]
        guard rawPath.first == UInt8(ascii: "/") else { throw HTTPError(.badRequest, "The request target must be a path.") }
        do {
            // Without escapes, decoding would copy the bytes unchanged (a String is valid UTF-8 already).
            path = rawPath.contains(UInt8(ascii: "%"))
                ? try PercentDecoding.decode(rawPath, plusIsSpace: false) : String(Substring(rawPath))
            if let questionMark {
                let queryBytes = bytes[bytes.index(after: questionMark)...]
                rawQuery = String(Substring(queryBytes))
                query = try URLEncodedForm(parsing: queryBytes)
            } else {
                rawQuery = nil
                query = URLEncodedForm()
            }
        } catch {
            throw HTTPError(.badRequest, "The request URL is not valid (bad percent-encoding or UTF-8).")
        }
        guard !path.utf8.contains(0) else { throw HTTPError(.badRequest, "The request path holds a NUL byte.") }
        self.method = method
        self.headers = headers
        self.cookies = RequestCookies(headerValues: headers.values("Cookie"))
        self.body = body
        self.remoteAddress = remoteAddress
        self.receivedAt = .now
    }

    /// The media type of the body without parameters, lower-cased (`application/json`).
    public var mediaType: String? {
        guard let value = headers["Content-Type"] else { return nil }
        // The common value is already bare and lower-case (`application/x-www-form-urlencoded`): it is
        // returned as it is, without the split, trim and lower-casing copies every form post paid for.
        if !value.isEmpty, !value.utf8.contains(where: { $0 == UInt8(ascii: ";") || $0 == 0x20 || $0 == 0x09 || ($0 >= 0x41 && $0 <= 0x5A) || $0 >= 0x80 }) {
            return value
        }
        return value.split(separator: ";", maxSplits: 1).first.map {
            HTTPWhitespace.trimmed($0).lowercased()
        }
    }

    /// The body as an `application/x-www-form-urlencoded` form.
    /// Throws 415 for another content type and 400 for undecodable content.
    public func form() throws(HTTPError) -> URLEncodedForm {
        guard mediaType == "application/x-www-form-urlencoded" else {
            throw HTTPError(.unsupportedMediaType, "Expected a form (application/x-www-form-urlencoded).")
        }
        do { return try URLEncodedForm(parsing: body) } catch {
            throw HTTPError(.badRequest, "The form is not valid (bad percent-encoding or UTF-8).")
        }
    }

    /// The body decoded as JSON. Throws 415 for another content type and 400 for malformed JSON.
    public func json<T: Decodable>(_ type: T.Type = T.self) throws(HTTPError) -> T {
        guard let mediaType, mediaType == "application/json" || mediaType.hasSuffix("+json") else {
            throw HTTPError(.unsupportedMediaType, "Expected a JSON body (application/json).")
        }
        do { return try JSONDecoder().decode(T.self, from: Data(body)) } catch {
            throw HTTPError(.badRequest, "The JSON body is malformed or misses a required field.")
        }
    }

    /// Whether the client said it prefers JSON over HTML (used to pick the error format).
    public var prefersJSON: Bool {
        guard let accept = headers["Accept"] else { return false }
        return accept.contains("application/json") && !accept.contains("text/html")
    }
}
