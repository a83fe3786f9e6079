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

    init(rawTarget: String) { self.rawTarget = rawTarget }
}

/// The slot a task writes its response into before resuming the connection.
final class PendingResponse: Sendable {
    let slot = Mutex<Response?>(nil)
}

/// A connection pointer carried into a task to resume it. @unchecked: a C handle; MHD allows
/// `MHD_resume_connection` from any thread.
struct ConnectionHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
