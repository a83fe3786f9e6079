import Foundation
import GatehouseCrypto

/// Lets ``RemoteJWKS`` (caching, rate-limited refetch on unknown `kid`) fetch through a provider transport.
struct TransportJWKSFetcher: JWKSFetcher {
    let transport: any ProviderTransport

    func fetch(_ url: URL) async throws -> (body: Data, maxAge: TimeInterval?) {
        let response = try await transport.send(ProviderHTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
        guard response.status == 200 else { throw ProviderError.unavailable("JWKS answered HTTP \(response.status)") }
        return (Data(response.body), response.headers["cache-control"].flatMap(CacheControl.maxAge(from:)))
    }
}
