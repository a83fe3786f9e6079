import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The RFC 8252 §7.3 loopback redirect receiver of `gatehouse login`: a listening socket on
/// `127.0.0.1` with a port the kernel picks, and a small blocking accept loop on its own thread.
///
/// It answers anything that is not `GET <path>?…state=<expected>…` with an error page and keeps
/// waiting, so a stray request (a favicon, a port scan, a forged callback with the wrong `state`)
/// cannot end or hijack the sign-in. The matching request is handed back still open, so the
/// browser's page can say how the sign-in really ended.
struct LoopbackReceiver: Sendable {
    /// The listening socket.
    let descriptor: Int32
    /// The port the kernel chose.
    let port: UInt16

    /// Listens on `127.0.0.1:0` (loopback only: nothing off this machine can reach it).
    static func listen() throws -> LoopbackReceiver {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoginError("cannot create a socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(fd, generic, length) == 0 && Glibc.listen(fd, 16) == 0 && getsockname(fd, generic, &length) == 0
            }
        }
        guard bound else {
            let message = String(cString: strerror(errno))
            _ = Glibc.close(fd)
            throw LoginError("cannot listen on 127.0.0.1: \(message)")
        }
        return LoopbackReceiver(descriptor: fd, port: UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:<port><path>`.
    func redirectURI(path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Waits on a dedicated thread (the accept loop blocks) for `GET path?…` carrying exactly one
    /// `state` equal to `state`, answering everything else; gives up after `timeout` seconds.
    func waitForCallback(path: String, state: String, timeout: TimeInterval) async throws -> LoopbackRequest {
        let deadline = Date().addingTimeInterval(timeout)
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try acceptLoop(path: path, state: state, deadline: deadline) })
            }
            thread.name = "gatehouse-login-loopback"
            thread.start()
        }
    }

    /// Stops listening.
    func close() { _ = Glibc.close(descriptor) }

    private func acceptLoop(path: String, state: String, deadline: Date) throws -> LoopbackRequest {
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw LoginError.timedOut }
            var listener = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&listener, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0 && errno != EINTR { throw LoginError("waiting for the browser failed: \(String(cString: strerror(errno)))") }
            guard ready > 0 else { continue }
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { continue }
            var request = LoopbackRequest(descriptor: connection, port: port)
            guard let target = request.readTarget() else {
                request.respond(status: 400, title: "Bad request", message: "This address only receives the sign-in response.")
                continue
            }
            guard let components = URLComponents(string: target), components.path == path else {
                request.respond(status: 404, title: "Not found", message: "This address only receives the sign-in response.")
                continue
            }
            let states = (components.queryItems ?? []).filter { $0.name == "state" }.map(\.value)
            guard states.count == 1, states[0] == state else {
                request.respond(status: 400, title: "Not this sign-in",
                                message: "This response does not belong to the sign-in in progress, so it was ignored.")
                continue
            }
            guard let url = URL(string: "http://127.0.0.1:\(port)\(target)") else {
                request.respond(status: 400, title: "Bad request", message: "The response address could not be read.")
                continue
            }
            request.url = url
            return request
        }
    }
}

/// One accepted browser connection: its request target, and the page to answer with.
struct LoopbackRequest: Sendable {
    let descriptor: Int32
    let port: UInt16
    /// The full callback URL; set by the receiver before it hands a matching request over.
    var url = URL(string: "http://127.0.0.1/")!

    init(descriptor: Int32, port: UInt16) {
        self.descriptor = descriptor
        self.port = port
        // A browser that connects and says nothing must not stall the loop.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Reads the request head (at most 16 KiB) and returns the target of a `GET`, or nil.
    func readTarget() -> String? {
        var head = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.count < 16_384 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            head += buffer[0..<count]
            if String(decoding: head, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        guard let line = String(decoding: head, as: UTF8.self).split(separator: "\r\n", maxSplits: 1).first else { return nil }
        let parts = line.split(separator: " ")
        guard parts.count == 3, parts[0] == "GET", parts[1].hasPrefix("/"), parts[2].hasPrefix("HTTP/1.") else { return nil }
        return String(parts[1])
    }

    /// Sends a small HTML page and closes the connection.
    func respond(status: Int, title: String, message: String) {
        let reason = [200: "OK", 400: "Bad Request", 404: "Not Found"][status] ?? "Error"
        let body = """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>\(escape(title))</title>
            <style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#222}</style>
            </head><body><h1>\(escape(title))</h1><p>\(escape(message))</p></body></html>
            """
        let bytes = Array(body.utf8)
        let head = "HTTP/1.1 \(status) \(reason)\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: \(bytes.count)\r\n"
            + "Cache-Control: no-store\r\nReferrer-Policy: no-referrer\r\nX-Content-Type-Options: nosniff\r\n"
            + "Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'\r\nConnection: close\r\n\r\n"
        let response = Array(head.utf8) + bytes
        var sent = 0
        while sent < response.count {
            let count = response[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            sent += count
        }
        shutdown(descriptor, Int32(SHUT_WR))
        _ = Glibc.close(descriptor)
    }

    private func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
