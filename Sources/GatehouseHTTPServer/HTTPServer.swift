import CMicroHTTPD
import GatehouseHTTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Serves a `RequestPipeline` over HTTP/1.1 with libmicrohttpd: epoll and a small I/O thread pool.
/// Immediate handlers answer on the I/O thread; deferred ones run as tasks while the connection is
/// suspended. See DESIGN.md §5 for the traps this avoids.
public final class HTTPServer: Sendable {
    public enum StartError: Error, CustomStringConvertible {
        case invalidAddress(String)
        case cannotListen(String)
        public var description: String {
            switch self {
            case .invalidAddress(let address): "invalid listen address \(address)"
            case .cannotListen(let address): "cannot listen on \(address) (address in use or not permitted)"
            }
        }
    }

    let pipeline: RequestPipeline
    public let configuration: HTTPServerConfiguration
    /// Requests whose connection is suspended (handled by a task); shutdown waits for them.
    let suspended = Atomic<Int>(0)
    /// Set at shutdown: requests still arriving on kept-alive connections get 503.
    let draining = Atomic<Bool>(false)
    private let daemon = Mutex<DaemonHandle?>(nil)
    /// The retained `cls` pointer handed to the daemon, as an address (raw pointers are not Sendable).
    private let retainedSelf = Mutex<UInt?>(nil)

    public init(pipeline: RequestPipeline, configuration: HTTPServerConfiguration) {
        self.pipeline = pipeline
        self.configuration = configuration
    }

    /// Binds and starts serving; returns the bound port (useful when `listen.port` is 0).
    @discardableResult
    public func start() throws -> UInt16 {
        guard let address = SocketAddress(host: configuration.listen.host, port: configuration.listen.port) else {
            throw StartError.invalidAddress(configuration.listen.description)
        }
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
        if configuration.listen.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        let limits = gh_mhd_limits(
            thread_pool_size: UInt32(max(1, configuration.ioThreads)),
            connection_limit: UInt32(configuration.maxConnections),
            per_ip_connection_limit: UInt32(configuration.maxConnectionsPerIP),
            connection_timeout_seconds: UInt32(configuration.connectionTimeoutSeconds),
            connection_memory_limit: max(configuration.maxHeaderBytes, 4096))
        // The daemon holds this pointer for its whole life; released in `stop`.
        let cls = Unmanaged.passRetained(self).toOpaque()
        let started = address.storage.withUnsafeBytes { raw in
            gh_mhd_start(flags, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self),
                         mhdAccessHandler, cls, mhdCompletedHandler, mhdURILogHandler, limits)
        }
        guard let started else {
            Unmanaged<HTTPServer>.fromOpaque(cls).release()
            throw StartError.cannotListen(configuration.listen.description)
        }
        daemon.withLock { $0 = DaemonHandle(pointer: started) }
        retainedSelf.withLock { $0 = UInt(bitPattern: cls) }
        return gh_mhd_bound_port(started)
    }

    /// Stops accepting, lets requests in flight finish within the grace period, then stops the daemon.
    /// Returns false when requests were still running at the deadline (the daemon is then left as it is,
    /// since stopping it with suspended connections would abort the process; the caller exits).
    @discardableResult
    public func stop() async -> Bool {
        guard let handle = daemon.withLock({ $0 }) else { return true }
        // Quiescing hands the listening socket back to us; closing it refuses new connections at once.
        // Only the first stop does it: a second close of that number could hit a descriptor reused since.
        if !draining.exchange(true, ordering: .acquiringAndReleasing) {
            let listener = MHD_quiesce_daemon(handle.pointer)
            if listener >= 0 { close(listener) }
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(configuration.shutdownGraceSeconds * 1000))
        while suspended.load(ordering: .acquiring) > 0 {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        MHD_stop_daemon(handle.pointer)
        daemon.withLock { $0 = nil }
        if let address = retainedSelf.withLock({ $0.take() }), let cls = UnsafeMutableRawPointer(bitPattern: address) {
            Unmanaged<HTTPServer>.fromOpaque(cls).release()
        }
        return true
    }

    /// Requests currently being handled by tasks.
    public var requestsInFlight: Int { suspended.load(ordering: .relaxed) }
}

/// The daemon pointer, shared between `start` and `stop`. @unchecked: a C handle; MHD makes it thread-safe.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
