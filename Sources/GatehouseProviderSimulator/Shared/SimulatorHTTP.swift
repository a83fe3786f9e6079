import Foundation
import GatehouseCrypto
import GatehouseHTTP

/// Small HTTP helpers shared by the three simulated providers.
enum SimulatorHTTP {
    /// The request's parameters: the query for GET, the form body for POST (the real authorize
    /// endpoints accept both).
    static func parameters(_ request: Request) throws(HTTPError) -> URLEncodedForm {
        request.method == .post ? try request.form() : request.query
    }

    /// A JSON body with `Cache-Control: no-store`, as token endpoints answer.
    static func json(_ object: [String: JSONValue], status: HTTPStatus = .ok) -> Response {
        var response = Response.json(bytes: JSONValue.object(object).jsonBytes, status: status)
        response.headers.set("Cache-Control", "no-store")
        response.headers.set("Pragma", "no-cache")
        return response
    }

    /// An RFC 6749 §5.2 error body.
    static func oauthError(_ code: String, description: String? = nil, status: HTTPStatus = .badRequest) -> Response {
        var body: [String: JSONValue] = ["error": .string(code)]
        if let description { body["error_description"] = .string(description) }
        return json(body, status: status)
    }

    /// `uri` with `parameters` appended to its query (or, with `fragment`, as its fragment).
    static func redirectURL(_ uri: String, _ parameters: [(String, String)], fragment: Bool = false) -> String {
        let encoded = URLEncodedForm(pairs: parameters).encoded
        if fragment { return uri + "#" + encoded }
        return uri + (uri.contains("?") ? "&" : "?") + encoded
    }

    /// A 302 as the providers send from their authorize endpoints.
    static func found(_ location: String) -> Response {
        var response = Response.redirect(to: location, status: .found)
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    /// `client_id`/`client_secret` from an `Authorization: Basic` header (RFC 6749 §2.3.1:
    /// both form-urlencoded before base64).
    static func basicCredentials(_ request: Request) -> (id: String, secret: String)? {
        guard let header = request.headers["Authorization"], header.count > 6,
              header.prefix(6).lowercased() == "basic ",
              let data = Data(base64Encoded: String(header.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let decoded = String(data: data, encoding: .utf8), let colon = decoded.firstIndex(of: ":") else { return nil }
        let id = String(decoded[..<colon]), secret = String(decoded[decoded.index(after: colon)...])
        guard let id = try? PercentDecoding.decode(Array(id.utf8), plusIsSpace: true),
              let secret = try? PercentDecoding.decode(Array(secret.utf8), plusIsSpace: true) else { return nil }
        return (id, secret)
    }

    /// The token of an `Authorization: <scheme> <token>` header, for any of `schemes` (case-insensitive).
    static func authorizationToken(_ request: Request, schemes: [String]) -> String? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, schemes.contains(where: { $0.caseInsensitiveEquals(String(parts[0])) }) else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// Constant-time string comparison for client secrets.
    static func secretsMatch(_ a: String, _ b: String) -> Bool { ConstantTime.equals(a, b) }

    /// A random opaque token with a provider-looking prefix.
    static func token(_ prefix: String, bytes: Int = 24) -> String { prefix + SecureRandom.token(byteCount: bytes) }

    /// `c_hash` / `at_hash` (OIDC Core §3.3.2.11): base64url of the left half of SHA-256.
    static func halfHash(_ value: String) -> String { Base64URL.encode(SHA256.hash(value).prefix(16)) }

    /// Seconds since 1970 as a JSON integer.
    static func numericDate(_ date: Date) -> JSONValue { .integer(Int64(date.timeIntervalSince1970.rounded(.down))) }
}
