import CMicroHTTPD
import GatehouseHTTP
import Synchronization

/// Per-request state kept in libmicrohttpd's `*con_cls`. Only the I/O thread that owns the connection
/// touches it, apart from `pending`, which a task fills.
final class ConnectionState {
    let rawTarget: String
    var headersSeen = false
    var method = HTTPMethod.get
    var headers = HTTPHeaders()
    var remoteAddress: String?
    var body: [UInt8] = []
    var bodyTooLarge = false
    var answered = false
    /// Request line plus header bytes, as libmicrohttpd parsed them (for the 431 limit).
    var headBytes = 0
    /// A header name or value held a NUL or another control byte (RFC 9110 §5.5): the request gets 400.
    /// The gate screens a connection's first head; this catches later ones on a kept-alive connection.
    var malformedHeader = false
    /// The connection's deadline tracker (nil for a connection the gate did not hand over).
    var watch: ConnectionWatch?
    /// Set while a task produces the response; the connection is suspended meanwhile.
    var pending: PendingResponse?
    /// The queued response's body: libmicrohttpd sends it from this array's storage (no copy), so it is
    /// set once, never mutated, and lives until the request is over.
    var responseBody: [UInt8] = []

    init(rawTarget: String) { self.rawTarget = rawTarget }
}

/// Where a request's task leaves its response, and whether the connection had to be suspended for it.
///
/// The task may finish on the I/O thread before `mhdAccess` returns (then the response is queued at
/// once, with no suspend) or later on another thread (then the connection is suspended and the task
/// resumes it). Both decisions are taken under one lock, so a resume never precedes its suspend.
final class PendingResponse: Sendable {
    private struct State {
        var response: Response?
        var suspended = false
    }
    private let state = Mutex(State())

    /// Called by the task when its response is ready: resumes the connection if it was suspended.
    func complete(_ response: Response, connection: ConnectionHandle) {
        let resume = state.withLock { state in
            state.response = response
            return state.suspended
        }
        if resume { MHD_resume_connection(connection.pointer) }
    }

    /// Called by the I/O thread after the inline part of the task: the response if it is ready,
    /// otherwise nil with the connection suspended until `complete` resumes it.
    func responseOrSuspend(_ connection: OpaquePointer) -> Response? {
        state.withLock { state in
            if let response = state.response.take() { return response }
            MHD_suspend_connection(connection)
            state.suspended = true
            return nil
        }
    }

    /// The response, once the resumed connection is called again (nil until then).
    func take() -> Response? { state.withLock { $0.response.take() } }
}

/// A connection pointer carried into a task to resume it. @unchecked: a C handle; MHD allows
/// `MHD_resume_connection` from any thread.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
