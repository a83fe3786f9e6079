import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches JWKS documents over HTTPS with URLSession (DESIGN §5): an `.ephemeral` session (no
/// cookie jar on disk), whole-second timeouts (fractions are truncated on Linux), redirects refused.
public final class URLSessionJWKSFetcher: JWKSFetcher {
    /// Errors specific to fetching.
    public enum FetchError: Error, Sendable, Equatable {
        case httpStatus(Int)
        case bodyTooLarge
    }

    private let session: URLSession
    private let timeout: TimeInterval
    private let maximumBodyBytes: Int

    /// `timeoutSeconds` is rounded to whole seconds, at least 1.
    public init(timeoutSeconds: Int = 5, maximumBodyBytes: Int = 512 * 1024) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let seconds = TimeInterval(max(1, timeoutSeconds))
        configuration.timeoutIntervalForRequest = seconds
        configuration.timeoutIntervalForResource = seconds
        session = URLSession(configuration: configuration, delegate: RedirectRefusingDelegate(), delegateQueue: nil)
        timeout = seconds
        self.maximumBodyBytes = maximumBodyBytes
    }

    deinit { session.finishTasksAndInvalidate() }

    public func fetch(_ url: URL) async throws -> (body: Data, maxAge: TimeInterval?) {
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else { throw FetchError.httpStatus(status) }
        guard data.count <= maximumBodyBytes else { throw FetchError.bodyTooLarge }
        let cacheControl = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Cache-Control")
        return (data, cacheControl.flatMap(CacheControl.maxAge(from:)))
    }
}

/// A session-level delegate (per-call delegates are ignored on Linux) that refuses redirects, so
/// a compromised or misconfigured endpoint cannot point us at another host's keys.
final class RedirectRefusingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                    newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        completionHandler(nil)
    }
}

/// Reading the caching directives that matter for a JWKS.
public enum CacheControl {
    /// The `max-age` in seconds; `0` for `no-store`/`no-cache`; `nil` if the header says neither.
    public static func maxAge(from header: String) -> TimeInterval? {
        var result: TimeInterval?
        for directive in header.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            switch parts.first {
            case "no-store", "no-cache": return 0
            case "max-age":
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if let seconds = Int(value), seconds >= 0 { result = TimeInterval(seconds) }
            default: continue
            }
        }
        return result
    }
}
