import CMicroHTTPD
import GatehouseHTTP
#if canImport(Glibc)
import Glibc
#endif

// libmicrohttpd's callbacks: plain global functions (no captures, nonisolated), state via `cls` pointers.

/// Sees the raw request target before libmicrohttpd decodes it; its result becomes `*con_cls`, so we
/// keep the exact target (query string included) and decode it ourselves.
func mhdURILog(_ cls: UnsafeMutableRawPointer?, _ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer?)
    -> UnsafeMutableRawPointer?
{
    let target = uri.map { String(cString: $0) } ?? "/"
    return Unmanaged.passRetained(ConnectionState(rawTarget: target)).toOpaque()
}

func mhdAccess(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ url: UnsafePointer<CChar>?,
               _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
               _ uploadData: UnsafePointer<CChar>?, _ uploadDataSize: UnsafeMutablePointer<Int>?,
               _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
    guard let cls, let connection, let method, let uploadDataSize, let conCls, let raw = conCls.pointee else {
        return .NO
    }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<ConnectionState>.fromOpaque(raw).takeUnretainedValue()

    if !state.headersSeen {
        // First call: headers are in, no body yet. Never answer here (it would turn off keep-alive)
        // unless the request is refused anyway.
        state.headersSeen = true
        server.active.add(1, ordering: .relaxed)
        if let context = gh_mhd_socket_context(connection) {
            state.watch = Unmanaged<ConnectionWatch>.fromOpaque(context).takeUnretainedValue()
            state.watch?.enter(.body)
        }
        state.method = knownMethod(method) ?? HTTPMethod(String(cString: method))
        state.headBytes = state.rawTarget.utf8.count + strlen(method) + 12
        collectHeaders(connection, into: state)
        if state.malformedHeader {
            return queue(badHead(), on: connection, closing: true, state: state)
        }
        // The gate's connections carry their peer's address, formatted once per connection.
        state.remoteAddress = state.watch.map(\.remoteAddress) ?? clientAddress(connection)
        if server.draining.load(ordering: .acquiring) {
            return queue(unavailable(), on: connection, closing: true, state: state)
        }
        if state.headBytes > server.configuration.maxHeaderBytes {
            // libmicrohttpd's pool is larger than the limit (so it always has room to answer): the limit is ours.
            let targetTooLong = state.rawTarget.utf8.count > server.configuration.maxHeaderBytes / 2
            return queue(headTooLarge(server, uri: targetTooLong), on: connection, closing: true, state: state)
        }
        if let length = state.headers["Content-Length"].flatMap(Int.init), length > server.configuration.maxBodyBytes {
            return queue(tooLarge(server), on: connection, closing: true, state: state)
        }
        return .YES
    }

    if uploadDataSize.pointee > 0 {
        let count = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        state.watch?.bodyBytes.add(count, ordering: .relaxed)
        if state.answered || state.bodyTooLarge { return .YES }
        if state.body.count + count > server.configuration.maxBodyBytes {
            // A chunked body past the limit: libmicrohttpd cannot answer mid-upload, so the rest is
            // read and dropped (memory stays bounded) and 413 goes out when the upload ends.
            state.bodyTooLarge = true
            state.body = []
            return .YES
        }
        if let uploadData {
            uploadData.withMemoryRebound(to: UInt8.self, capacity: count) {
                state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
            }
        }
        return .YES
    }
    if state.answered { return .YES }
    state.watch?.enter(.handling)
    if state.bodyTooLarge { return queue(tooLarge(server), on: connection, closing: true, state: state) }

    if let pending = state.pending {
        // Called again after the task resumed the connection.
        guard let response = pending.take() else { return .YES }
        return queue(response, on: connection, closing: state.watch?.reserved ?? false, state: state)
    }

    switch server.pipeline.start(method: state.method, target: state.rawTarget, headers: state.headers,
                                 body: state.body, remoteAddress: state.remoteAddress) {
    case .ready(let response):
        // A health check let in past the caps gives its slot back at once.
        return queue(response, on: connection, closing: state.watch?.reserved ?? false, state: state)
    case .pending(let work):
        // The task starts here, on this I/O thread, and stays as long as it does not wait on another
        // thread (IOThreadTaskExecutor); a request that never waits is answered without a suspend.
        let pending = PendingResponse()
        let handle = ConnectionHandle(pointer: connection)
        let executor = IOThreadTaskExecutor()
        Task(executorPreference: executor) {
            pending.complete(await work(), connection: handle)
        }
        executor.drain()
        if let response = pending.responseOrSuspend(connection) {
            return queue(response, on: connection, closing: state.watch?.reserved ?? false, state: state)
        }
        state.pending = pending
        server.suspended.add(1, ordering: .relaxed)
        server.suspensions.add(1, ordering: .relaxed)
        return .YES
    }
}

/// Runs when a request is over (answered, or the connection dropped): frees its state and, for a
/// request that was suspended, tells shutdown it is done.
func mhdCompleted(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
                  _ conCls: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, _ reason: MHD_RequestTerminationCode) {
    guard let cls, let conCls, let raw = conCls.pointee else { return }
    let state = Unmanaged<ConnectionState>.fromOpaque(raw).takeRetainedValue()
    conCls.pointee = nil
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    state.watch?.enter(.idle)
    if state.headersSeen { server.active.subtract(1, ordering: .releasing) }
    if state.pending != nil { server.suspended.subtract(1, ordering: .releasing) }
}

/// Every connection the gate hands over opens and closes here: the deadline tracker lives in the
/// connection's socket context meanwhile.
func mhdNotifyConnection(_ cls: UnsafeMutableRawPointer?, _ connection: OpaquePointer?,
                         _ socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
                         _ code: MHD_ConnectionNotificationCode) {
    guard let cls, let connection, let socketContext else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard let gate = server.gate.withLock({ $0 }) else { return }
    switch code.rawValue {
    case 0:   // MHD_CONNECTION_NOTIFY_STARTED
        let key = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            gh_mhd_client_address(connection, buffer.baseAddress!, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
        let watch = gate.started(gh_mhd_connection_fd(connection), addressKey: key)
        socketContext.pointee = Unmanaged.passRetained(watch).toOpaque()
    default:
        guard let raw = socketContext.pointee else { return }
        socketContext.pointee = nil
        gate.closed(Unmanaged<ConnectionWatch>.fromOpaque(raw).takeRetainedValue())
    }
}

/// The peer's address as text (nil when unknown). A stack buffer: the address is at most 46 bytes.
private func clientAddress(_ connection: OpaquePointer) -> String? {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
        gh_mhd_client_address(connection, buffer.baseAddress!, buffer.count)
        return buffer[0] == 0 ? nil : String(cString: buffer.baseAddress!)
    }
}

/// The common methods as shared values: no string is built for them on every request.
private func knownMethod(_ method: UnsafePointer<CChar>) -> HTTPMethod? {
    if strcmp(method, "GET") == 0 { return .get }
    if strcmp(method, "POST") == 0 { return .post }
    if strcmp(method, "HEAD") == 0 { return .head }
    return nil
}

/// Fills `state.headers` during `MHD_get_connection_values_n` (synchronous, same thread); the state
/// itself is the callback's context, so no box is allocated.
private func collectHeaders(_ connection: OpaquePointer, into state: ConnectionState) {
    let pointer = Unmanaged.passUnretained(state).toOpaque()
    _ = MHD_get_connection_values_n(connection, .HEADER_KIND, mhdCollectHeader, pointer)
}

private func mhdCollectHeaderImpl(_ cls: UnsafeMutableRawPointer?, _ kind: MHD_ValueKind,
                                  _ key: UnsafePointer<CChar>?, _ keySize: Int,
                                  _ value: UnsafePointer<CChar>?, _ valueSize: Int) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let state = Unmanaged<ConnectionState>.fromOpaque(cls).takeUnretainedValue()
    state.headBytes += keySize + valueSize + 4
    if !state.malformedHeader, hasControlBytes(key, keySize) || value.map({ hasControlBytes($0, valueSize) }) == true {
        state.malformedHeader = true
    }
    let name = key.withMemoryRebound(to: UInt8.self, capacity: keySize) {
        String(decoding: UnsafeBufferPointer(start: $0, count: keySize), as: UTF8.self)
    }
    let text = value.map { pointer in
        pointer.withMemoryRebound(to: UInt8.self, capacity: valueSize) {
            String(decoding: UnsafeBufferPointer(start: $0, count: valueSize), as: UTF8.self)
        }
    } ?? ""
    state.headers.add(name, text)
    return .YES
}

private func queue(_ response: Response, on connection: OpaquePointer, closing: Bool,
                   state: ConnectionState) -> MHD_Result {
    state.answered = true
    // The body is not copied into libmicrohttpd (RESPMEM_PERSISTENT): the request's state keeps the
    // array, unmutated, until `mhdCompleted`, and libmicrohttpd reads the bytes only while sending,
    // which ends before it calls `mhdCompleted` (whether the response went out or the connection dropped).
    state.responseBody = response.body
    let mhdResponse = state.responseBody.withUnsafeBytes { buffer in
        MHD_create_response_from_buffer(buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                                        .RESPMEM_PERSISTENT)
    }
    guard let mhdResponse else { return .NO }
    for (name, value) in response.headers where !name.caseInsensitiveEquals("Content-Length") {
        addHeader(mhdResponse, name, value)
    }
    if closing { addHeader(mhdResponse, "Connection", "close") }
    let result = MHD_queue_response(connection, UInt32(response.status.code), mhdResponse)
    MHD_destroy_response(mhdResponse)
    return result
}

/// Adds one header through a stack buffer holding both NUL-terminated strings. Passing Swift strings
/// straight to the C call would heap-allocate a C copy of every small (inline) string; MHD copies
/// the bytes itself, so the buffer only has to live for the call.
private func addHeader(_ response: OpaquePointer, _ name: String, _ value: String) {
    let nameCount = name.utf8.count, valueCount = value.utf8.count
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: nameCount + valueCount + 2) { buffer in
        let base = UnsafeMutableRawPointer(buffer.baseAddress!)
        copyUTF8(name, to: base)
        base.storeBytes(of: 0, toByteOffset: nameCount, as: UInt8.self)
        let valueStart = base + nameCount + 1
        copyUTF8(value, to: valueStart)
        valueStart.storeBytes(of: 0, toByteOffset: valueCount, as: UInt8.self)
        _ = MHD_add_response_header(response, buffer.baseAddress!, valueStart.assumingMemoryBound(to: CChar.self))
    }
}

/// Copies a string's UTF-8 bytes: straight from its storage when contiguous (native and literal
/// strings, i.e. always here), without the copy that `withUTF8` on a `var` would make of a bridged one.
private func copyUTF8(_ text: String, to destination: UnsafeMutableRawPointer) {
    let copied: Void? = text.utf8.withContiguousStorageIfAvailable { bytes in
        if let source = bytes.baseAddress, bytes.count > 0 { destination.copyMemory(from: source, byteCount: bytes.count) }
    }
    if copied == nil {
        for (offset, byte) in text.utf8.enumerated() { destination.storeBytes(of: byte, toByteOffset: offset, as: UInt8.self) }
    }
}

/// Whether `count` bytes hold a control byte other than HTAB (never valid in a field name or value).
private func hasControlBytes(_ pointer: UnsafePointer<CChar>, _ count: Int) -> Bool {
    pointer.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
        for index in 0..<count {
            let byte = bytes[index]
            if (byte < 0x20 && byte != 9) || byte == 0x7f { return true }
        }
        return false
    }
}

private func badHead() -> Response {
    var response = Response.text("The request head holds control bytes.\n", status: .badRequest)
    response.headers.set("X-Content-Type-Options", "nosniff")
    return response
}

private func tooLarge(_ server: HTTPServer) -> Response {
    var response = Response.text("The request body is larger than \(server.configuration.maxBodyBytes) bytes.\n",
                                 status: .payloadTooLarge)
    response.headers.set("X-Content-Type-Options", "nosniff")
    return response
}

private func headTooLarge(_ server: HTTPServer, uri: Bool) -> Response {
    var response = Response.text(uri ? "The request URL is too long.\n"
                                     : "The request head is larger than \(server.configuration.maxHeaderBytes) bytes.\n",
                                 status: uri ? HTTPStatus(414) : .requestHeaderFieldsTooLarge)
    response.headers.set("X-Content-Type-Options", "nosniff")
    return response
}

private func unavailable() -> Response {
    var response = Response.text("The server is shutting down. Retry shortly.\n", status: .serviceUnavailable)
    response.headers.set("Retry-After", "1")
    return response
}

let mhdAccessHandler: MHD_AccessHandlerCallback = mhdAccess
let mhdCompletedHandler: MHD_RequestCompletedCallback = mhdCompleted
let mhdURILogHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?)
    -> UnsafeMutableRawPointer? = mhdURILog
private let mhdCollectHeader: MHD_KeyValueIteratorN = mhdCollectHeaderImpl
let mhdNotifyConnectionHandler: MHD_NotifyConnectionCallback = mhdNotifyConnection
