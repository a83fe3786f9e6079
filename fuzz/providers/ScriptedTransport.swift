import Foundation
import GatehouseProviders

/// A provider's side of the conversation, scripted by the fuzz input: each URL path answers with a
/// fixed status and body; anything else is a 404.
struct ScriptedTransport: ProviderTransport {
    let answers: [String: ProviderHTTPResponse]

    func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
        answers[request.url.path] ?? ProviderHTTPResponse(status: 404, body: Array("{}".utf8))
    }
}
