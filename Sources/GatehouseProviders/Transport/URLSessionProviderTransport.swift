import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real transport (DESIGN §5): an `.ephemeral` URLSession (no cookie file), whole-second timeouts
/// of at least one second (Linux truncates fractions), redirects refused, bodies bounded.
public final class URLSessionProviderTransport: ProviderTransport {
    private let session: URLSession
    private let timeout: TimeInterval
    private let maximumBodyBytes: Int

    public init(timeoutSeconds: Int = 10, maximumBodyBytes: Int = 1 << 20) {
        let seconds = TimeInterval(max(1, timeoutSeconds))
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        session = URLSession(configuration: configuration, delegate: RefuseRedirects(), delegateQueue: nil)
        timeout = seconds
        self.maximumBodyBytes = maximumBodyBytes
    }

    deinit { session.finishTasksAndInvalidate() }

    public func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if urlRequest.value(forHTTPHeaderField: "User-Agent") == nil { urlRequest.setValue("Gatehouse", forHTTPHeaderField: "User-Agent") }
        if !request.body.isEmpty { urlRequest.httpBody = Data(request.body) }
        let (data, response) = try await session.data(for: urlRequest)
        guard data.count <= maximumBodyBytes else { throw ProviderError.unavailable("answer larger than \(maximumBodyBytes) bytes") }
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return ProviderHTTPResponse(status: http?.statusCode ?? 0, headers: headers, body: Array(data))
    }
}

/// Session-level (per-task delegates are ignored on Linux): a redirect is answered as is, never followed,
/// so a provider endpoint cannot bounce a code or secret to another host.
private final class RefuseRedirects: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}
