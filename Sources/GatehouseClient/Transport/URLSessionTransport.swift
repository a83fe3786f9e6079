import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `HTTPTransport` over an ephemeral `URLSession`.
///
/// Ephemeral because the shared session persists cookies and caches to disk, and an auth SDK
/// must not leave session cookies or token responses behind. Redirects are refused by default:
/// OAuth endpoints never legitimately redirect a POST, and following one could send a code or
/// client secret somewhere unexpected.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession

    /// - Parameters:
    ///   - timeout: per-request timeout in seconds; rounded down to whole seconds and at least 1,
    ///     because Foundation on Linux truncates fractions (0.5 would mean "no timeout").
    ///   - followsRedirects: follow 3xx responses instead of returning them.
    public init(timeout: TimeInterval = 30, followsRedirects: Bool = false) {
        let configuration = URLSessionConfiguration.ephemeral
        let seconds = Swift.max(1, timeout.rounded(.down))
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        configuration.httpCookieAcceptPolicy = .never
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let delegate: URLSessionTaskDelegate? = followsRedirects ? nil : RedirectRefusingDelegate()
        self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    public func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw HTTPTransportError.notHTTP }
        return (data, http)
    }
}

/// Answers every redirect with "don't", so the 3xx response itself is returned to the caller.
private final class RedirectRefusingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
