import GatehouseNetwork

/// Replaces `request.remoteAddress` (the TCP peer) with the client's address when the peer is a
/// trusted reverse proxy (`http.trusted_proxies`). It runs first, so rate limits, session lists, the
/// audit log and the access log all see the same address. Without trusted proxies it does nothing.
public struct ClientAddressMiddleware: Middleware {
    let resolver: ClientAddressResolver

    public init(resolver: ClientAddressResolver) { self.resolver = resolver }

    public func prepare(_ request: inout Request) throws(HTTPError) {
        guard !resolver.trustedProxies.isEmpty else { return }
        request.remoteAddress = resolver.resolve(peer: request.remoteAddress,
                                                 headerValues: request.headers.values(resolver.header.rawValue))
    }
}
