import CMicroHTTPD
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Accepts connections on the server's socket and decides, before libmicrohttpd sees them:
///
/// - past `maxConnections` (or `maxConnectionsPerIP` for one address) a new connection gets a `503` and
///   is closed as soon as its request line shows it is not a health check, never left waiting in the
///   kernel's backlog. A few slots (`healthCheckConnections`) are kept for `GET`/`HEAD` of the health
///   paths, so a load balancer still sees `/healthz` and `/readyz` answer while a flood holds every slot;
/// - its head must look like HTTP up to the blank line that ends it: blank lines, binary garbage, NUL
///   bytes get a `400`, a TLS hello is closed, a head that does not end within `screenBytes`
///   gets a `431`; a connection that sends nothing is closed at the header deadline;
/// - once handed to libmicrohttpd its request head must complete within `headerTimeoutSeconds` and a
///   body must keep arriving at `minimumReceiveBytesPerSecond` (the sweeper below `shutdown(2)`s
///   connections that do not: libmicrohttpd then closes them itself).
///
/// One thread runs the loop; it is cheap (a `poll` over the listening socket and the few connections
/// that have not yet sent a request line, waking at least every 100 ms for the deadlines and to stop).
final class ConnectionGate: Sendable {
    struct Limits: Sendable {
        var maxConnections: Int
        var maxConnectionsPerIP: Int
        var headerTimeoutMs: Int64
        var idleTimeoutMs: Int64
        var minimumBytesPerSecond: Int
        /// Slots past the caps for health checks only, and the paths they may ask for.
        var healthCheckConnections: Int = 0
        var healthCheckPaths: Set<String> = []
        /// The most of a head the screen looks at (below libmicrohttpd's per-connection memory, so a head it lets
        /// through always leaves libmicrohttpd room to answer).
        var screenBytes: Int = 16 * 1024
    }

    /// A connection past the caps must show a health-check request line within this, or it gets 503.
    static let healthCheckScreenMs: Int64 = 1_000

    /// Connections of the daemon, by their `ConnectionWatch`; guarded with the counters.
    private struct Shared {
        var watches: [ObjectIdentifier: ConnectionWatch] = [:]
        /// Open connections by client address (screened and handed over alike).
        var perAddress: [String: Int] = [:]
        /// Connections being screened plus those handed to libmicrohttpd and not yet closed.
        var open = 0
        /// Connections in the health-check reserve (screened and handed over alike).
        var reserved = 0
        /// Accept times of connections handed over but not yet started (and whether they hold a
        /// health-check slot), by descriptor.
        var handedOverAt: [Int32: (acceptedAt: Int64, reserved: Bool)] = [:]
    }

    let listenFD: Int32
    private let limits: Limits
    private let daemon: DaemonHandle
    private let shared = Mutex(Shared())
    /// Connections holding a health-check reserve slot right now.
    var reservedInUse: Int { shared.withLock { $0.reserved } }
    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    /// Set by `stopAccepting`; the loop then closes the listening socket itself (never under its poll).
    private let closeListener = Atomic<Bool>(false)
    private let listenerClosed = Atomic<Bool>(false)
    /// Connections accepted and still being screened (the loop's own table, counted for `isQuiet`).
    private let screeningCount = Atomic<Int>(0)

    init(listenFD: Int32, daemon: DaemonHandle, limits: Limits) {
        self.listenFD = listenFD; self.daemon = daemon; self.limits = limits
    }

    func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in self.run() }
        thread.name = "gatehouse-gate"
        thread.start()
    }

    /// Refuses new connections (the listening socket is closed) while the connections already accepted
    /// keep being screened, handed over and swept, so each request already sent still gets an answer.
    func stopAccepting() async {
        closeListener.store(true, ordering: .releasing)
        while running.load(ordering: .acquiring), !listenerClosed.load(ordering: .acquiring) {
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Whether no connection has a request under way: none is being screened, and every daemon
    /// connection sits idle between requests with nothing unread in its socket.
    var isQuiet: Bool {
        guard screeningCount.load(ordering: .acquiring) == 0 else { return false }
        // Under the lock `closed` takes, so each descriptor is still the connection's.
        return shared.withLock { state in
            state.handedOverAt.isEmpty && state.watches.values.allSatisfy { watch in
                var unread: Int32 = 0
                return watch.phase == .idle && ioctl(watch.fd, UInt(FIONREAD), &unread) == 0 && unread == 0
            }
        }
    }

    /// Stops the loop: closes the listening socket (if `stopAccepting` has not) and every connection
    /// still being screened. Returns once the loop has exited.
    func stop() async {
        closeListener.store(true, ordering: .releasing)
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        while running.load(ordering: .acquiring) { try? await Task.sleep(for: .milliseconds(2)) }
        if !listenerClosed.exchange(true, ordering: .acquiringAndReleasing) { close(listenFD) }
    }

    // MARK: libmicrohttpd's side (called on its threads)

    /// A connection handed over has started in libmicrohttpd.
    func started(_ watchFD: Int32, addressKey: String) -> ConnectionWatch {
        shared.withLock { state in
            let handed = state.handedOverAt.removeValue(forKey: watchFD)
            let watch = ConnectionWatch(fd: watchFD, addressKey: Array(addressKey.utf8),
                                        acceptedAt: handed?.acceptedAt ?? MonotonicClock.milliseconds(),
                                        reserved: handed?.reserved ?? false)
            state.watches[ObjectIdentifier(watch)] = watch
            return watch
        }
    }

    /// libmicrohttpd is closing the connection (its descriptor is still open during this call).
    func closed(_ watch: ConnectionWatch) {
        shared.withLock { state in
            state.watches[ObjectIdentifier(watch)] = nil
            Self.release(String(decoding: watch.addressKey, as: UTF8.self), reserved: watch.reserved, in: &state)
        }
    }

    /// Gives back the slot a connection held: a health-check one, or one of the caps' (and its address's).
    private static func release(_ key: String, reserved: Bool, in state: inout Shared) {
        if reserved { state.reserved -= 1; return }
        state.open -= 1
        if let count = state.perAddress[key], count > 1 { state.perAddress[key] = count - 1 } else { state.perAddress[key] = nil }
    }

    // MARK: the loop

    private struct Screening {
        var acceptedAt: Int64
        var address: [UInt8]
        var key: String
        /// Past the caps: only a health check may proceed, and its request line must come quickly.
        var reserved = false
        var progress = RequestHeadScreen.Progress()
        /// When bytes last arrived (or the connection opened): silence past the idle timeout closes it,
        /// as libmicrohttpd would.
        var lastArrivalAt: Int64 = 0
        /// Bytes seen at the last peek; a re-peek is due at `recheckAt` (a peek does not consume, so
        /// the descriptor stays readable and is not polled again until then).
        var seen = 0
        var recheckAt: Int64?
    }

    private func run() {
        defer { running.store(false, ordering: .releasing) }
        var screening: [Int32: Screening] = [:]
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(4096, limits.screenBytes), alignment: 8)
        defer { buffer.deallocate() }
        var lastSweep: Int64 = 0
        var fds: [pollfd] = []
        while !stopping.load(ordering: .acquiring) {
            if closeListener.load(ordering: .acquiring), !listenerClosed.load(ordering: .acquiring) {
                // Take what the kernel has already accepted first: closing a listener resets every
                // connection still in its queue, and those clients have sent requests that deserve an answer.
                acceptAll(into: &screening, now: MonotonicClock.milliseconds())
                close(listenFD)
                listenerClosed.store(true, ordering: .releasing)
            }
            screeningCount.store(screening.count, ordering: .releasing)
            fds.removeAll(keepingCapacity: true)
            // Once closed, a negative descriptor keeps the slot (poll ignores it) so indices stay put.
            fds.append(pollfd(fd: listenerClosed.load(ordering: .acquiring) ? -1 : listenFD, events: Int16(POLLIN), revents: 0))
            var nextRecheck: Int64 = .max
            for (fd, entry) in screening {
                if let recheck = entry.recheckAt { nextRecheck = min(nextRecheck, recheck) } else {
                    fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
                }
            }
            let now0 = MonotonicClock.milliseconds()
            let timeout = Int32(max(0, min(100, nextRecheck == .max ? 100 : nextRecheck - now0)))
            let ready = poll(&fds, nfds_t(fds.count), timeout)
            if stopping.load(ordering: .acquiring) { break }
            let now = MonotonicClock.milliseconds()
            if ready > 0 {
                if fds[0].fd >= 0, fds[0].revents & Int16(POLLIN) != 0 { acceptAll(into: &screening, now: now) }
                for entry in fds.dropFirst(1) where entry.revents != 0 {
                    screen(entry.fd, &screening, buffer: buffer, now: now)
                }
            }
            for (fd, entry) in screening {
                if let recheck = entry.recheckAt, recheck <= now { screen(fd, &screening, buffer: buffer, now: now) }
            }
            if now - lastSweep >= 100 {
                lastSweep = now
                expireScreening(&screening, now: now)
                sweepDaemonConnections(now: now)
            }
        }
        screeningCount.store(0, ordering: .releasing)
        for fd in screening.keys { close(fd) }
        shared.withLock { state in
            for (_, entry) in screening { Self.release(entry.key, reserved: entry.reserved, in: &state) }
        }
    }

    private func acceptAll(into screening: inout [Int32: Screening], now: Int64) {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    accept(listenFD, $0, &length)
                }
            }
            guard fd >= 0 else { return }   // EAGAIN (drained), or EMFILE and friends: retried next round
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let address = withUnsafeBytes(of: &storage) { Array($0.prefix(Int(length))) }
            let key = Self.addressText(storage)
            // nil: refused; false: a slot under the caps; true: a health-check slot past them.
            let admitted = shared.withLock { state -> Bool? in
                if state.open < limits.maxConnections, (state.perAddress[key] ?? 0) < limits.maxConnectionsPerIP {
                    state.open += 1
                    state.perAddress[key, default: 0] += 1
                    return false
                }
                guard state.reserved < limits.healthCheckConnections else { return nil }
                state.reserved += 1
                return true
            }
            if let reserved = admitted {
                screening[fd] = Screening(acceptedAt: now, address: address, key: key, reserved: reserved, lastArrivalAt: now)
            } else {
                Self.answer(fd, Self.tooManyConnections)
            }
        }
    }

    private func screen(_ fd: Int32, _ screening: inout [Int32: Screening], buffer: UnsafeMutableRawBufferPointer, now: Int64) {
        guard var entry = screening[fd] else { return }
        if entry.seen > 0 {
            // Nothing new since the last look (a trickling client): do not copy and scan the head again.
            var queued: Int32 = 0
            if ioctl(fd, UInt(FIONREAD), &queued) == 0, Int(queued) == entry.seen {
                entry.recheckAt = now + 50
                screening[fd] = entry
                return
            }
        }
        let count = recv(fd, buffer.baseAddress, buffer.count, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
            entry.recheckAt = nil
            screening[fd] = entry
            return
        }
        guard count > 0 else {   // closed by the client, or an error
            drop(fd, &screening, answer: nil)
            return
        }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<count])
        switch RequestHeadScreen.classify(bytes, limit: buffer.count, progress: &entry.progress) {
        case .needMore:
            // Peeked bytes stay readable; look again shortly instead of polling (which would spin).
            let grew = count > entry.seen
            if grew { entry.lastArrivalAt = now }
            entry.seen = count
            entry.recheckAt = now + (grew ? 10 : 50)
            screening[fd] = entry
        case .http:
            if entry.reserved, !isHealthCheck(bytes) {
                drop(fd, &screening, answer: Self.tooManyConnections)
                return
            }
            screening[fd] = nil
            handOver(fd, entry)
        case .badRequest:
            drop(fd, &screening, answer: Self.badRequest)
        case .close:
            drop(fd, &screening, answer: nil)
        case .tooLarge:
            drop(fd, &screening, answer: entry.reserved ? Self.tooManyConnections : Self.headTooLarge)
        }
    }

    /// Whether a complete head asks for a health path with GET or HEAD.
    private func isHealthCheck(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let target = RequestHeadScreen.readOnlyTarget(bytes) else { return false }
        return limits.healthCheckPaths.contains(String(target))
    }

    private func handOver(_ fd: Int32, _ entry: Screening) {
        shared.withLock { $0.handedOverAt[fd] = (entry.acceptedAt, entry.reserved) }
        let added = entry.address.withUnsafeBytes { raw in
            MHD_add_connection(daemon.pointer, fd, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
        if added != .YES {
            // libmicrohttpd closed the socket already.
            shared.withLock { state in
                state.handedOverAt[fd] = nil
                Self.release(entry.key, reserved: entry.reserved, in: &state)
            }
        }
    }

    private func drop(_ fd: Int32, _ screening: inout [Int32: Screening], answer: String?) {
        guard let entry = screening.removeValue(forKey: fd) else { return }
        // The slot first: a client that reads the answer and connects again at once must find it free.
        shared.withLock { state in Self.release(entry.key, reserved: entry.reserved, in: &state) }
        if let answer { Self.answer(fd, answer) } else { close(fd) }
    }

    private func expireScreening(_ screening: inout [Int32: Screening], now: Int64) {
        for (fd, entry) in screening {
            if entry.reserved, now - entry.acceptedAt >= min(limits.headerTimeoutMs, Self.healthCheckScreenMs) {
                // Past the caps and still no health-check request line: refused like any other.
                drop(fd, &screening, answer: Self.tooManyConnections)
            } else if now - entry.acceptedAt >= limits.headerTimeoutMs || now - entry.lastArrivalAt >= limits.idleTimeoutMs {
                drop(fd, &screening, answer: entry.seen > 0 ? Self.requestTimeout : nil)
            }
        }
    }

    /// Closes daemon connections past their deadline. Runs under the lock that `closed` takes, so a
    /// descriptor is never shut down after libmicrohttpd closed it (and the number was reused).
    private func sweepDaemonConnections(now: Int64) {
        shared.withLock { state in
            for watch in state.watches.values {
                let elapsed = now - watch.phaseStartedAt
                let expired: Bool
                switch watch.phase {
                case .head: expired = elapsed >= limits.headerTimeoutMs
                case .idle: expired = elapsed >= limits.idleTimeoutMs
                case .body:
                    expired = limits.minimumBytesPerSecond > 0 && elapsed >= limits.headerTimeoutMs
                        && Int64(watch.bodyBytes.load(ordering: .relaxed)) * 1000 < elapsed * Int64(limits.minimumBytesPerSecond)
                case .handling: expired = false
                }
                guard expired else { continue }
                if watch.phase != .idle {
                    _ = Self.requestTimeout.withCString { send(watch.fd, $0, strlen($0), Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) }
                }
                watch.enter(.handling, at: now)   // once
                shutdown(watch.fd, Int32(SHUT_RDWR))
            }
        }
    }

    // MARK: canned answers (no request exists yet, so no pipeline runs)

    static let tooManyConnections = cannedResponse("503 Service Unavailable", "Too many connections. Retry shortly.\n", extra: "Retry-After: 1\r\n")
    static let badRequest = cannedResponse("400 Bad Request", "This is not an HTTP/1.1 request.\n")
    static let requestTimeout = cannedResponse("408 Request Timeout", "The request took too long to arrive.\n")
    static let headTooLarge = cannedResponse("431 Request Header Fields Too Large", "The request head is too large.\n")

    private static func cannedResponse(_ status: String, _ body: String, extra: String = "") -> String {
        "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\nX-Content-Type-Options: nosniff\r\n\(extra)\r\n\(body)"
    }

    /// Writes a short answer and closes. What the client sent is read first (a close with unread bytes
    /// would reset the connection and could destroy the answer before the client reads it).
    private static func answer(_ fd: Int32, _ text: String) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<4 where recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT)) > 0 {}
        _ = text.withCString { send(fd, $0, strlen($0), Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) }
        shutdown(fd, Int32(SHUT_WR))
        close(fd)
    }

    /// The client address as text, the same form `gh_mhd_client_address` gives libmicrohttpd's side.
    static func addressText(_ storage: sockaddr_storage) -> String {
        var storage = storage
        let family = storage.ss_family
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            let ok: Bool = withUnsafePointer(to: &storage) { pointer in
                if family == sa_family_t(AF_INET6) {
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                        var raw = address.pointee.sin6_addr
                        return inet_ntop(AF_INET6, &raw, buffer.baseAddress!, 64) != nil
                    }
                }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var raw = address.pointee.sin_addr
                    return inet_ntop(AF_INET, &raw, buffer.baseAddress!, 64) != nil
                }
            }
            return ok ? String(cString: buffer.baseAddress!) : "?"
        }
    }
}
