import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import Synchronization

/// An `HTTPTransport` that answers from a closure and records every request, so tests can
/// count network calls exactly.
final class StubTransport: HTTPTransport {
    struct Reply: Sendable {
        var status: Int
        var body: Data
        var headers: [String: String]

        static func json(_ body: String) -> Reply { json(200, body) }

        static func json(_ status: Int, _ body: String, headers: [String: String] = [:]) -> Reply {
            Reply(status: status, body: Data(body.utf8), headers: ["Content-Type": "application/json"].merging(headers) { $1 })
        }
    }

    private let handler: @Sendable (URLRequest) async throws -> Reply
    private let log = Mutex<[URLRequest]>([])

    init(_ handler: @escaping @Sendable (URLRequest) async throws -> Reply) {
        self.handler = handler
    }

    var requests: [URLRequest] { log.withLock { $0 } }

    /// Requests whose URL path is `path`.
    func count(path: String) -> Int { requests.filter { $0.url?.path == path }.count }

    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        log.withLock { $0.append(request) }
        let reply = try await handler(request)
        let response = HTTPURLResponse(url: request.url!, statusCode: reply.status, httpVersion: "HTTP/1.1", headerFields: reply.headers)!
        return (reply.body, response)
    }
}

extension URLRequest {
    /// The form body as a dictionary (last value wins), for assertions.
    var formFields: [String: String] {
        guard let body = httpBody, let text = String(data: body, encoding: .utf8) else { return [:] }
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }
}
