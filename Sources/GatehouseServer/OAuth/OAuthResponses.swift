import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity

/// JSON answers of the OAuth endpoints: RFC 6749 §5.2 errors and token responses. `no-store` and CORS come
/// from the route groups the endpoints are registered in (`GatehouseApp`: `NoStoreMiddleware`, `CORSMiddleware`).
enum OAuthResponses {
    static func error(_ error: OAuthError) -> Response {
        var body: [String: String] = ["error": error.code.rawValue]
        if !error.description.isEmpty { body["error_description"] = error.description }
        var response = Response.json(body, status: HTTPStatus(error.status))
        if error.code == .invalidClient {
            response.headers.set("WWW-Authenticate", #"Basic realm="gatehouse", error="invalid_client""#)
        }
        if error.code == .invalidToken {
            response.headers.set("WWW-Authenticate", #"Bearer realm="gatehouse", error="invalid_token""#)
        }
        if error.code == .insufficientScope {
            response.headers.set("WWW-Authenticate", #"Bearer realm="gatehouse", error="insufficient_scope", scope="openid""#)
        }
        if let retryAfter = error.retryAfter { response.headers.set("Retry-After", String(retryAfter)) }
        return response
    }

    /// A request without any Bearer credentials: the challenge alone, no error code (RFC 6750 §3.1: the client
    /// may not have known authentication was needed).
    static func bearerChallenge() -> Response {
        var response = Response(status: .unauthorized)
        response.headers.set("WWW-Authenticate", #"Bearer realm="gatehouse""#)
        return response
    }

    /// The answer for an error no OAuth rule produced: 503 `temporarily_unavailable` with `Retry-After`
    /// while the database is out of reach, otherwise 500 `server_error`.
    static func unexpected(_ error: any Error) -> Response {
        guard let outage = DatabaseOutage.answer(for: error) else {
            return self.error(OAuthError(.serverError, "Something went wrong on our side."))
        }
        var response = self.error(OAuthError(.temporarilyUnavailable, outage.publicMessage))
        for (name, value) in outage.headers { response.headers.set(name, value) }
        return response
    }

    static func json(_ value: some Encodable) -> Response { Response.json(value) }

    static func json(object: [String: JSONValue]) -> Response {
        // GatehouseCrypto's writer: Foundation's JSONEncoder was a tenth of a userinfo request's CPU.
        Response.json(bytes: JSONValue.object(object).jsonBytes)
    }

    /// Parses an `application/x-www-form-urlencoded` body where every parameter may appear once
    /// (RFC 6749 §3.1, §3.2): repeated parameters are `invalid_request`.
    static func singleValuedForm(_ request: Request) throws(OAuthError) -> [String: String] {
        guard request.mediaType == "application/x-www-form-urlencoded" else {
            throw .invalidRequest("The body must be application/x-www-form-urlencoded.")
        }
        let form: URLEncodedForm
        do { form = try URLEncodedForm(parsing: request.body) } catch {
            throw .invalidRequest("The body is not valid form encoding (bad escape or UTF-8).")
        }
        var parameters: [String: String] = [:]
        for (key, value) in form.pairs {
            guard parameters[key] == nil else { throw .invalidRequest("The \(key) parameter appears more than once.") }
            parameters[key] = value
        }
        return parameters
    }

    /// A pushed authorization request's form (RFC 9126 §2.1): each parameter once, as at the token endpoint,
    /// except `resource`, which RFC 8707 §2 lets an authorization request repeat.
    static func authorizationForm(_ request: Request) throws(OAuthError) -> [(key: String, value: String)] {
        guard request.mediaType == "application/x-www-form-urlencoded" else {
            throw .invalidRequest("The body must be application/x-www-form-urlencoded.")
        }
        let form: URLEncodedForm
        do { form = try URLEncodedForm(parsing: request.body) } catch {
            throw .invalidRequest("The body is not valid form encoding (bad escape or UTF-8).")
        }
        var seen: Set<String> = []
        for (key, _) in form.pairs where key != "resource" {
            guard seen.insert(key).inserted else { throw .invalidRequest("The \(key) parameter appears more than once.") }
        }
        return form.pairs.map { (key: $0.0, value: $0.1) }
    }

    /// The client credentials of a token/revoke/introspect request: HTTP Basic, or the form; never both.
    static func clientCredentials(_ request: Request, _ parameters: [String: String]) throws(OAuthError) -> ClientCredentials {
        if let header = request.headers["Authorization"] {
            // Bytes, not Foundation strings: NSString percent-decoding was a tenth of an introspection's CPU.
            guard let encoded = HTTPWhitespace.credentials(header, scheme: "basic"),
                  let decoded = Data(base64Encoded: String(encoded)).map(Array.init),
                  String(validating: decoded, as: UTF8.self) != nil, let colon = decoded.firstIndex(of: UInt8(ascii: ":")),
                  let id = try? PercentDecoding.decode(decoded[..<colon], plusIsSpace: true),
                  let secret = try? PercentDecoding.decode(decoded[(colon + 1)...], plusIsSpace: true), !id.isEmpty else {
                throw .invalidClient("The Authorization header is not valid HTTP Basic client authentication.")
            }
            if parameters["client_secret"] != nil {
                throw .invalidRequest("Use one client authentication method, not both Basic and client_secret.")
            }
            if let bodyID = parameters["client_id"], bodyID != id {
                throw .invalidRequest("client_id in the body differs from the authenticated client.")
            }
            return .basic(id: id, secret: secret)
        }
        guard let id = parameters["client_id"], !id.isEmpty else {
            throw .invalidClient("Client authentication is missing.")
        }
        if let secret = parameters["client_secret"] { return .post(id: id, secret: secret) }
        return .none(id: id)
    }

    /// CORS for the OAuth endpoints a browser client calls: the origins some registered client names, with
    /// the headers a token or userinfo request sends (a DPoP proof among them).
    static func cors(origins: WebOriginCache) -> CORSMiddleware {
        CORSMiddleware(allowedHeaders: "Authorization, Content-Type, DPoP", allowedMethods: "GET, POST") { await origins.origins() }
    }
}
