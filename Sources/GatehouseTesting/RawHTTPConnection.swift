import Foundation
import GatehouseHTTP
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP connection to a loopback port for tests that need the real wire: raw bytes out,
/// a parsed HTTP/1.1 response (Content-Length bodies) back. Runs its blocking calls off the cooperative pool.
public final class RawHTTPConnection: Sendable {
    public enum Failure: Error { case connect, closed, timeout, malformed }

    let fd: Int32

    /// Connects to 127.0.0.1:`port` with a receive timeout.
    public init(port: UInt16, timeoutSeconds: Int = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.connect }   // deinit's close(-1) is a harmless EBADF
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // No close here: a class whose throwing init fails after full initialisation still runs deinit,
        // which closes fd. Closing twice could close a descriptor another thread has just been given.
        guard result == 0 else { throw Failure.connect }
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Writes bytes; returns false when the peer has closed.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    public func write(_ text: String) -> Bool { write(Array(text.utf8)) }

    /// Reads one response. Throws `.closed` when the server closed without answering.
    /// `headOnly` is for answers to HEAD, which carry a Content-Length but no body.
    public func readResponse(headOnly: Bool = false) throws -> TestResponse {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            if let end = Self.headerEnd(buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure.malformed }
                var headers = HTTPHeaders()
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers.add(String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
                }
                let length = headOnly ? 0 : headers["Content-Length"].flatMap(Int.init) ?? 0
                let bodyStart = end + 4
                while buffer.count < bodyStart + length {
                    let n = recv(fd, &chunk, chunk.count, 0)
                    if n <= 0 { throw n == 0 ? Failure.closed : Failure.timeout }
                    buffer.append(contentsOf: chunk[..<n])
                }
                return TestResponse(status: status, headers: headers, body: Array(buffer[bodyStart..<(bodyStart + length)]))
            }
            let n = recv(fd, &chunk, chunk.count, 0)
            if n == 0 { throw Failure.closed }
            if n < 0 { throw Failure.timeout }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Whether the server has closed the connection (reads EOF within the timeout).
    public func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return recv(fd, &byte, 1, 0) == 0
    }

    private static func headerEnd(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }
}

/// Sends requests over a fresh TCP connection each.
public struct SocketClient: TestClient {
    public let port: UInt16
    /// How long to wait for each read of the answer (a loaded machine may need more than the default).
    public let timeoutSeconds: Int

    public init(port: UInt16, timeoutSeconds: Int = 5) { self.port = port; self.timeoutSeconds = timeoutSeconds }

    public func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders, body: [UInt8]) async throws -> TestResponse {
        let port = self.port, timeout = timeoutSeconds
        // Blocking socket calls get a thread of their own: on the cooperative pool (2 threads here) they
        // would starve the server's tasks, and libdispatch's global queues cap blocking work at the core count.
        return try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try Self.exchange(port: port, timeout: timeout, method, target, headers, body) })
            }
            thread.start()
        }
    }

    private static func exchange(port: UInt16, timeout: Int, _ method: HTTPMethod, _ target: String, _ headers: HTTPHeaders,
                                 _ body: [UInt8]) throws -> TestResponse {
        do {
            let connection = try RawHTTPConnection(port: port, timeoutSeconds: timeout)
            var head = "\(method.rawValue) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
            for (name, value) in headers { head += "\(name): \(value)\r\n" }
            if !body.isEmpty || method == .post { head += "Content-Length: \(body.count)\r\n" }
            head += "\r\n"
            connection.write(Array(head.utf8) + body)
            // A HEAD answer has its GET's Content-Length but no body: read the head only.
            return try connection.readResponse(headOnly: method == .head)
        }
    }
}
