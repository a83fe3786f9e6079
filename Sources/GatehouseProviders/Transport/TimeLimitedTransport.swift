/// Bounds every request by a deadline, whatever the inner transport does (an in-process simulator has
/// no socket timeout): a provider slower than `timeout` fails with ``ProviderError/timedOut``.
public struct TimeLimitedTransport: ProviderTransport {
    public let inner: any ProviderTransport
    public let timeout: Duration

    public init(_ inner: any ProviderTransport, timeout: Duration) {
        self.inner = inner
        self.timeout = timeout
    }

    public func send(_ request: ProviderHTTPRequest) async throws -> ProviderHTTPResponse {
        let inner = self.inner, timeout = self.timeout
        return try await withThrowingTaskGroup(of: ProviderHTTPResponse.self) { group in
            group.addTask { try await inner.send(request) }
            group.addTask {
                try await Task.sleep(for: timeout)
                throw ProviderError.timedOut
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw ProviderError.timedOut }
            return first
        }
    }
}
