import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseIdentity

/// Posts webhooks and logout tokens: an ephemeral session (no cookies, no cache), whole-second
/// timeouts, redirects refused (a receiver that moved must be reconfigured, not followed blindly).
final class URLSessionOutboundTransport: NSObject, OutboundTransport, URLSessionTaskDelegate, Sendable {
    let timeout: TimeInterval
    private let session: URLSession

    init(timeout: TimeInterval = 5) {
        self.timeout = timeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = max(timeout.rounded(), 1)
        configuration.timeoutIntervalForResource = max(timeout.rounded(), 1)
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    func post(_ url: URL, headers: [(String, String)], body: [UInt8]) async throws -> Int {
        var request = URLRequest(url: url, timeoutInterval: max(timeout.rounded(), 1))
        request.httpMethod = "POST"
        request.setValue("Gatehouse", forHTTPHeaderField: "User-Agent")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = Data(body)
        let (_, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return http.statusCode
    }
}

private final class NoRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
