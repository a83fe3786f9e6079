import Foundation
import GatehouseCrypto

/// One outbound HTTP request to a provider.
public struct ProviderHTTPRequest: Sendable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, url: URL, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method; self.url = url; self.headers = headers; self.body = body
    }

    /// A `POST` of `application/x-www-form-urlencoded` fields, asking for JSON back.
    public static func form(_ url: URL, _ fields: [(String, String)], headers: [String: String] = [:]) -> ProviderHTTPRequest {
        var all = headers
        all["Content-Type"] = "application/x-www-form-urlencoded"
        all["Accept"] = all["Accept"] ?? "application/json"
        return ProviderHTTPRequest(method: "POST", url: url, headers: all, body: Array(FormEncoding.encode(fields).utf8))
    }
}

/// A provider's answer. Header names are lower-cased.
public struct ProviderHTTPResponse: Sendable {
    public var status: Int
    public var headers: [String: String]
    public var body: [UInt8]

    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }

    /// The body as a JSON object, or nil.
    public var jsonObject: [String: JSONValue]? {
        if case .object(let members)? = JSONValue(parsing: body) { return members }
        return nil
    }
}

/// How providers reach the network. The URLSession implementation is the real one; tests and the
/// demo inject one that hands requests to the in-process simulator.
public protocol ProviderTransport: Sendable {
    func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse
}

extension ProviderTransport {
    /// Sends and maps transport failures to ``ProviderError/unavailable(_:)`` (timeouts stay ``ProviderError/timedOut``).
    func exchange(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
        do { return try await send(request) } catch let error as ProviderError { throw error } catch is CancellationError {
            throw ProviderError.timedOut
        } catch {
            throw ProviderError.unavailable("\(request.url.host ?? "provider"): \(error)")
        }
    }

    /// A JSON object from a successful response; 5xx is "unavailable", other failures carry the OAuth `error`.
    func json(_ request: ProviderHTTPRequest) async throws -> [String: JSONValue] {
        let response = try await exchange(request)
        if response.status >= 500 { throw ProviderError.unavailable("HTTP \(response.status) from \(request.url.path)") }
        guard let object = response.jsonObject else {
            throw ProviderError.invalidCallback("\(request.url.path) did not answer with JSON (HTTP \(response.status))")
        }
        guard response.status == 200 else {
            throw ProviderError.providerError(object["error"]?.stringValue ?? "http_\(response.status)")
        }
        return object
    }
}

/// `application/x-www-form-urlencoded` encoding (RFC 3986 unreserved characters kept, the rest escaped).
public enum FormEncoding {
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    public static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// `base` with `fields` appended to its query.
    public static func url(_ base: URL, adding fields: [(String, String)]) -> URL {
        let text = base.absoluteString
        return URL(string: text + (text.contains("?") ? "&" : "?") + encode(fields)) ?? base
    }
}
