import CMicroHTTPD
import GatehouseHTTP
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Serves a `RequestPipeline` over HTTP/1.1 with libmicrohttpd: epoll and a small I/O thread pool.
/// Immediate handlers answer on the I/O thread. Deferred ones run as tasks that start on the I/O thread
/// and are answered there when they never wait on another thread; a task that waits (a database write,
/// a hash) moves to Swift's pool while its connection is suspended. See DESIGN.md §5 for the traps this
/// avoids and docs/hot-paths.md for the inline start.
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

    /// Swapped whole by `replacePipeline` (a configuration reload); reading it costs a lock and one retain.
    private let currentPipeline: Mutex<RequestPipeline>
    /// The pipeline a request arriving now goes through.
    var pipeline: RequestPipeline { currentPipeline.withLock { $0 } }
    public let configuration: HTTPServerConfiguration
    /// Requests whose connection is suspended (handled by a task); shutdown waits for them.
    let suspended = Atomic<Int>(0)
    /// Deferred requests that had to leave the I/O thread (their task waited on another thread), since start.
    let suspensions = Atomic<Int>(0)
    /// Requests whose head has arrived and that are not finished (bodies still arriving included);
    /// shutdown waits for them too.
    let active = Atomic<Int>(0)
    /// Set at shutdown: requests still arriving on kept-alive connections get 503.
    let draining = Atomic<Bool>(false)
    /// Accepts and screens connections; set once the daemon runs.
    let gate = Mutex<ConnectionGate?>(nil)
    private let daemon = Mutex<DaemonHandle?>(nil)
    /// The retained `cls` pointer handed to the daemon, as an address (raw pointers are not Sendable).
    private let retainedSelf = Mutex<UInt?>(nil)

    public init(pipeline: RequestPipeline, configuration: HTTPServerConfiguration) {
        currentPipeline = Mutex(pipeline)
        self.configuration = configuration
    }

    /// Binds and starts serving; returns the bound port (useful when `listen.port` is 0).
    @discardableResult
    public func start() throws -> UInt16 {
        guard let address = SocketAddress(host: configuration.listen.host, port: configuration.listen.port) else {
            throw StartError.invalidAddress(configuration.listen.description)
        }
        let ipv6 = configuration.listen.isIPv6
        guard let listener = ListeningSocket.open(address, ipv6: ipv6) else {
            throw StartError.cannotListen(configuration.listen.description)
        }
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ITC.rawValue
        if ipv6 { flags |= MHD_USE_IPv6.rawValue }
        // The caps are the gate's (it refuses at once); libmicrohttpd's own limit is only a backstop, set
        // above ours because it is split evenly between its threads. The memory pool is larger than the
        // head limit so a head just under the limit still leaves room to build the answer; the limit
        // itself is enforced in the access handler (431). libmicrohttpd zeroes the whole pool after every
        // keep-alive request, so its slack is the 8 KiB the largest screened head needs to be answered, not more.
        let limits = gh_mhd_limits(
            thread_pool_size: UInt32(max(1, configuration.ioThreads)),
            connection_limit: UInt32(min(Int(UInt32.max / 2), configuration.maxConnections * 2 + configuration.healthCheckConnections + 64)),
            per_ip_connection_limit: 0,
            connection_timeout_seconds: UInt32(configuration.connectionTimeoutSeconds),
            connection_memory_limit: max(configuration.maxHeaderBytes, 4096) + 8 * 1024)
        // The daemon holds this pointer for its whole life; released in `stop`.
        let cls = Unmanaged.passRetained(self).toOpaque()
        let started = gh_mhd_start_external(flags, mhdAccessHandler, cls, mhdCompletedHandler, mhdURILogHandler,
                                            mhdNotifyConnectionHandler, limits)
        guard let started else {
            Unmanaged<HTTPServer>.fromOpaque(cls).release()
            close(listener)
            throw StartError.cannotListen(configuration.listen.description)
        }
        let handle = DaemonHandle(pointer: started)
        daemon.withLock { $0 = handle }
        retainedSelf.withLock { $0 = UInt(bitPattern: cls) }
        let gate = ConnectionGate(listenFD: listener, daemon: handle, limits: ConnectionGate.Limits(
            maxConnections: configuration.maxConnections, maxConnectionsPerIP: configuration.maxConnectionsPerIP,
            headerTimeoutMs: Int64(configuration.headerTimeoutSeconds) * 1000,
            idleTimeoutMs: Int64(configuration.connectionTimeoutSeconds) * 1000,
            minimumBytesPerSecond: configuration.minimumReceiveBytesPerSecond,
            healthCheckConnections: configuration.healthCheckConnections, healthCheckPaths: configuration.healthCheckPaths,
            // Less than libmicrohttpd's memory: a head the screen lets through always leaves it room to answer.
            screenBytes: max(configuration.maxHeaderBytes, 4096) + 2 * 1024))
        self.gate.withLock { $0 = gate }
        let port = ListeningSocket.port(of: listener)
        gate.start()
        return port
    }

    /// Stops accepting, lets requests in flight — those being handled, those whose body is still
    /// arriving, and those already sent on a kept-alive connection (answered 503 with `Connection: close`)
    /// — finish within the grace period, then stops the daemon once every connection is idle with nothing
    /// unread. Returns false when requests were still running at the deadline. With handlers still
    /// suspended the daemon is left as it is (stopping it then would abort the process; the caller exits).
    @discardableResult
    public func stop() async -> Bool {
        guard let handle = daemon.withLock({ $0 }) else { return true }
        // Closing the listening socket refuses new connections at once; requests arriving on kept-alive
        // connections from now on get 503.
        draining.store(true, ordering: .releasing)
        let gate = gate.withLock { $0 }
        await gate?.stopAccepting()
        let deadline = ContinuousClock.now + .milliseconds(Int(configuration.shutdownGraceSeconds * 1000))
        var finished = true
        // Quiet for a moment, not an instant: a head libmicrohttpd has read but not yet parsed shows
        // neither as unread bytes nor as a request, and becomes one within milliseconds.
        var quietSince: ContinuousClock.Instant?
        while true {
            let busy = suspended.load(ordering: .acquiring) > 0 || active.load(ordering: .acquiring) > 0
            if busy { quietSince = nil }
            if !busy {
                if gate?.isQuiet ?? true {
                    let since = quietSince ?? ContinuousClock.now
                    quietSince = since
                    if ContinuousClock.now - since >= .milliseconds(50) { break }
                } else {
                    quietSince = nil
                }
            }
            if ContinuousClock.now >= deadline { finished = !busy; break }
            try? await Task.sleep(for: .milliseconds(5))
        }
        await gate?.stop()
        if suspended.load(ordering: .acquiring) > 0 { return false }
        MHD_stop_daemon(handle.pointer)
        daemon.withLock { $0 = nil }
        if let address = retainedSelf.withLock({ $0.take() }), let cls = UnsafeMutableRawPointer(bitPattern: address) {
            Unmanaged<HTTPServer>.fromOpaque(cls).release()
        }
        return finished
    }

    /// Sends requests that arrive from now on through `pipeline`; requests already started finish on the
    /// old one. Socket settings (`configuration`) stay as they are.
    public func replacePipeline(_ pipeline: RequestPipeline) { currentPipeline.withLock { $0 = pipeline } }

    /// Connections accepted past the caps into the health-check reserve and not yet closed.
    public var healthCheckReserveInUse: Int { gate.withLock { $0 }?.reservedInUse ?? 0 }

    /// Requests currently being handled by tasks.
    public var requestsInFlight: Int { suspended.load(ordering: .relaxed) }

    /// Deferred requests since start whose task waited on another thread, so their connection was
    /// suspended and resumed; the others were answered on the I/O thread (`IOThreadTaskExecutor`).
    public var suspendedRequestsTotal: Int { suspensions.load(ordering: .relaxed) }
}

/// The daemon pointer, shared between `start` and `stop`. @unchecked: a C handle; MHD makes it thread-safe.
struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
