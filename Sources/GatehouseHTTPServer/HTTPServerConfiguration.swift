/// Socket-level settings and limits of the HTTP server. Every limit is configurable; the defaults suit
/// one small machine behind a reverse proxy.
public struct HTTPServerConfiguration: Sendable {
    public var listen: ListenAddress
    /// I/O threads (libmicrohttpd's epoll thread pool). Slow work never runs on them.
    public var ioThreads: Int
    /// Largest request body accepted; larger gets 413.
    public var maxBodyBytes: Int
    /// Bound on the request line plus headers per connection; larger gets 431 (or 414 for a long URL).
    public var maxHeaderBytes: Int
    /// Seconds a connection may sit idle (slow clients included) before it is closed.
    public var connectionTimeoutSeconds: Int
    /// Open connections in total, and per client address; beyond that new connections are refused.
    public var maxConnections: Int
    public var maxConnectionsPerIP: Int
    /// How long shutdown waits for requests in flight before giving up on them.
    public var shutdownGraceSeconds: Double
    /// A request head (request line and headers) must arrive within this many seconds of the connection
    /// opening, or of the previous response on a kept-alive connection (then `connectionTimeoutSeconds`
    /// applies); a client trickling bytes is closed at the deadline.
    public var headerTimeoutSeconds: Int
    /// Once the head is in, a body must keep arriving at least this fast (bytes per second, averaged
    /// from the head's arrival, checked after `headerTimeoutSeconds`); 0 turns the check off.
    public var minimumReceiveBytesPerSecond: Int
    /// Connections accepted past `maxConnections` / `maxConnectionsPerIP` for health checks only (`GET` or
    /// `HEAD` of `healthCheckPaths`, answered with `Connection: close`), so a flood holding every slot
    /// cannot make a load balancer's checks fail; 0 turns the reserve off.
    public var healthCheckConnections: Int = 8
    /// The exact paths (as they arrive, without the query) the reserve serves.
    public var healthCheckPaths: Set<String> = ["/healthz", "/readyz"]

    public init(listen: ListenAddress = ListenAddress(host: "127.0.0.1", port: 8080), ioThreads: Int = 2,
                maxBodyBytes: Int = 64 * 1024, maxHeaderBytes: Int = 32 * 1024, connectionTimeoutSeconds: Int = 30,
                maxConnections: Int = 4096, maxConnectionsPerIP: Int = 256, shutdownGraceSeconds: Double = 10,
                headerTimeoutSeconds: Int = 10, minimumReceiveBytesPerSecond: Int = 512) {
        self.listen = listen; self.ioThreads = ioThreads; self.maxBodyBytes = maxBodyBytes
        self.maxHeaderBytes = maxHeaderBytes; self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.maxConnections = maxConnections; self.maxConnectionsPerIP = maxConnectionsPerIP
        self.shutdownGraceSeconds = shutdownGraceSeconds
        self.headerTimeoutSeconds = headerTimeoutSeconds; self.minimumReceiveBytesPerSecond = minimumReceiveBytesPerSecond
    }
}
