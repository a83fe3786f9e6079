import GatehouseHTTPServer

/// Where `/metrics` is served (the `metrics` settings). Never anonymously on the public port: with
/// neither setting it is not served at all.
public struct MetricsSettings: Sendable, Equatable {
    /// `metrics.listen`: a separate address (e.g. `127.0.0.1:9464`) serving only `/metrics` and `/healthz`.
    public var listen: ListenAddress?
    /// `metrics.bearer_token_env`: when set, every `/metrics` request needs `Authorization: Bearer <token>`,
    /// and the public port serves `/metrics` to such requests.
    public var bearerToken: String?

    public init(listen: ListenAddress? = nil, bearerToken: String? = nil) {
        self.listen = listen; self.bearerToken = bearerToken
    }

    /// Whether the public port has a `/metrics` route (only behind the token).
    public var onPublicPort: Bool { bearerToken != nil }

    /// Shortest token accepted: a scrape credential is guessed online, but it is also a long-lived secret.
    static let minimumTokenLength = 32
}
