import Foundation
import GatehouseHTTP
import GatehouseProviders

/// Sends requests for URLs under `base` straight to an in-process pipeline (the mounted simulator),
/// everything else to `fallback`. The server never calls itself over the network, which on a small
/// thread pool could wait on itself.
public struct InProcessProviderTransport: ProviderTransport {
    let base: String
    let pipeline: RequestPipeline
    let fallback: any ProviderTransport

    public init(base: String, pipeline: RequestPipeline, fallback: any ProviderTransport) {
        self.base = base; self.pipeline = pipeline; self.fallback = fallback
    }

    public func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
        let text = request.url.absoluteString
        guard text.hasPrefix(base + "/") else { return try await fallback.send(request) }
        // The simulator's routes include its mount prefix: keep the whole path, drop only the origin.
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let target = (components?.percentEncodedPath ?? "/") + (components?.percentEncodedQuery.map { "?" + $0 } ?? "")
        var headers = HTTPHeaders()
        for (name, value) in request.headers { headers.set(name, value) }
        let method = HTTPMethod(request.method)
        let outcome = pipeline.start(method: method, target: target, headers: headers, body: request.body, remoteAddress: "127.0.0.1")
        let response: Response
        switch outcome {
        case .ready(let ready): response = ready
        case .pending(let work): response = await work()
        }
        var out: [String: String] = [:]
        for name in ["Content-Type", "Cache-Control", "Location"] { if let value = response.headers[name] { out[name] = value } }
        return ProviderHTTPResponse(status: response.status.code, headers: out, body: response.body)
    }
}
