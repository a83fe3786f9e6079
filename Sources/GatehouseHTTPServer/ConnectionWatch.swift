import Synchronization

/// Where one connection is in its life, for the deadline sweeper: libmicrohttpd only knows an idle
/// timeout, which a client sending a byte every few seconds never trips.
final class ConnectionWatch: Sendable {
    enum Phase: Int {
        /// Waiting for (the rest of) a request head; the header deadline runs.
        case head = 0
        /// Head in, body arriving; the minimum rate applies.
        case body = 1
        /// The request is being handled or answered: no deadline of ours.
        case handling = 2
        /// Kept alive after a response; the next head must come within the idle timeout.
        case idle = 3
    }

    let fd: Int32
    /// The per-address counter key (the client's IP bytes).
    let addressKey: [UInt8]
    /// The client's address as text, formatted once when the connection opens: every request on a
    /// kept-alive connection has the same peer, so none formats it again (nil when unknown).
    let remoteAddress: String?
    /// Holds a health-check slot past the caps: answered once, then closed.
    let reserved: Bool
    private let phaseValue = Atomic<Int>(Phase.head.rawValue)
    /// Monotonic milliseconds when the current phase began.
    private let since: Atomic<Int64>
    let bodyBytes = Atomic<Int>(0)

    init(fd: Int32, addressKey: [UInt8], acceptedAt: Int64, reserved: Bool = false) {
        self.fd = fd; self.addressKey = addressKey; self.reserved = reserved; since = Atomic(acceptedAt)
        remoteAddress = addressKey.isEmpty ? nil : String(decoding: addressKey, as: UTF8.self)
    }

    var phase: Phase { Phase(rawValue: phaseValue.load(ordering: .acquiring)) ?? .handling }
    var phaseStartedAt: Int64 { since.load(ordering: .acquiring) }

    func enter(_ phase: Phase, at now: Int64 = MonotonicClock.milliseconds()) {
        since.store(now, ordering: .releasing)
        if phase == .body { bodyBytes.store(0, ordering: .relaxed) }
        phaseValue.store(phase.rawValue, ordering: .releasing)
    }
}

/// Milliseconds of CLOCK_MONOTONIC (cheap, no allocation).
enum MonotonicClock {
    static func milliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}

#if canImport(Glibc)
import Glibc
#endif
