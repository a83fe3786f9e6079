import Foundation
import GatehouseHTTP
import Synchronization

/// Wraps a `TestClient` with a cookie jar, like a browser: stores `Set-Cookie`s (honouring `Max-Age=0`)
/// and sends them back. Also reads hidden form fields such as CSRF tokens out of pages.
public final class BrowserLikeClient: Sendable {
    let client: any TestClient
    let userAgent: String
    private let jar = Mutex<[String: String]>([:])

    public init(_ client: any TestClient, userAgent: String = "Mozilla/5.0 (X11; Linux x86_64) Chrome/120 Safari/537.36") {
        self.client = client; self.userAgent = userAgent
    }

    public var cookies: [String: String] { jar.withLock { $0 } }

    public func setCookie(_ name: String, _ value: String?) { jar.withLock { $0[name] = value } }

    public func get(_ target: String) async throws -> TestResponse {
        try await send(.get, target, headers: HTTPHeaders(), body: [])
    }

    /// POSTs a form; `csrfFrom` adds the `csrf_token` read from that page first.
    public func post(_ target: String, _ fields: [(String, String)], headers: HTTPHeaders = HTTPHeaders()) async throws -> TestResponse {
        var headers = headers
        headers.set("Content-Type", "application/x-www-form-urlencoded")
        return try await send(.post, target, headers: headers, body: Array(URLEncodedForm(pairs: fields).encoded.utf8))
    }

    public func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders, body: [UInt8]) async throws -> TestResponse {
        var headers = headers
        headers.setIfAbsent("User-Agent", userAgent)
        let cookieHeader = jar.withLock { $0.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "; ") }
        if !cookieHeader.isEmpty { headers.set("Cookie", cookieHeader) }
        let response = try await client.send(method, target, headers: headers, body: body)
        for header in response.headers.values("Set-Cookie") {
            let first = header.split(separator: ";", maxSplits: 1)[0]
            guard let eq = first.firstIndex(of: "=") else { continue }
            let name = String(first[..<eq]), value = String(first[first.index(after: eq)...])
            let expired = header.contains("Max-Age=0")
            jar.withLock { $0[name] = expired ? nil : value }
        }
        return response
    }

    /// The value of the first hidden input named `name` in an HTML page.
    public static func hiddenField(_ name: String, in html: String) -> String? {
        guard let range = html.range(of: #"name="\#(name)" value=""#) else { return nil }
        let rest = html[range.upperBound...]
        return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
    }

    /// GETs `page`, then POSTs `fields` plus that page's CSRF token to `action`.
    public func submit(_ page: String, to action: String, _ fields: [(String, String)]) async throws -> TestResponse {
        let form = try await get(page)
        let token = Self.hiddenField("csrf_token", in: form.text) ?? ""
        return try await post(action, [("csrf_token", token)] + fields)
    }
}
