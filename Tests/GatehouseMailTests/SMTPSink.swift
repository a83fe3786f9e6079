import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the aiosmtpd sink recorded for one message (see Fixtures/smtp_sink.py).
struct ReceivedMail: Decodable {
    let mailFrom: String
    let rcptTos: [String]
    let authLogin: String?
    let rawBase64: String
    /// Header values as Python's email package decodes them (encoded-words resolved).
    let headers: [String: String]
    /// Header values as sent.
    let rawHeaders: [String: String]
    /// The body decoded by Python (transfer encoding undone), with "\n" line endings.
    let body: String
    /// The HTML part of a multipart/alternative message, decoded likewise.
    let html: String?
    /// The content types of a multipart message's parts, in order (empty for a single-part message).
    let parts: [String]
    let defects: [String]

    var raw: [UInt8] { Array(Data(base64Encoded: rawBase64) ?? Data()) }

    enum CodingKeys: String, CodingKey {
        case mailFrom = "mail_from", rcptTos = "rcpt_tos", authLogin = "auth_login", rawBase64 = "raw_base64"
        case headers, rawHeaders = "raw_headers", body, html, parts, defects
    }
}

struct SinkError: Error, CustomStringConvertible {
    let description: String
}

/// A real SMTP server for one test: Python's aiosmtpd on 127.0.0.1 and a free port, writing
/// each message it receives to a temporary directory.
final class SMTPSink {
    let port: Int
    let directory: URL
    private let process: Process
    /// The sink runs until this pipe closes: closing it is how we stop it, and it closes by
    /// itself if the test process dies, so no sink is ever left behind.
    private let lifeline: Pipe

    private init(port: Int, directory: URL, process: Process, lifeline: Pipe) {
        self.port = port; self.directory = directory; self.process = process; self.lifeline = lifeline
    }

    /// Starts a sink (requiring AUTH when `user` is given), runs `body`, and always stops it.
    static func with<T>(user: String? = nil, password: String? = nil,
                        _ body: (SMTPSink) async throws -> T) async throws -> T {
        let sink = try await start(user: user, password: password)
        do {
            let result = try await body(sink)
            await sink.stop()
            return result
        } catch {
            await sink.stop()
            throw error
        }
    }

    private static func start(user: String?, password: String?) async throws -> SMTPSink {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gatehouse-smtp-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/smtp_sink.py").path
        let logURL = directory.appendingPathComponent("sink.log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, directory.path]
            + (user.map { ["--user", $0, "--password", password ?? ""] } ?? [])
        let lifeline = Pipe()
        process.standardInput = lifeline
        process.standardOutput = log
        process.standardError = log
        try process.run()

        // The sink writes its port only once it is listening, so the port then accepts connections.
        let portFile = directory.appendingPathComponent("port")
        // Generous: on a loaded 2-core machine a Python start with aiosmtpd can take many seconds.
        let deadline = ContinuousClock.now + .seconds(90)
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = Int(text) {
                return SMTPSink(port: port, directory: directory, process: process, lifeline: lifeline)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        process.terminate()
        let output = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: directory)
        throw SinkError(description: "the aiosmtpd sink did not start (is it installed? python3 -m pip install aiosmtpd): \(output)")
    }

    /// The messages received so far, in order.
    func messages() throws -> [ReceivedMail] {
        var result: [ReceivedMail] = []
        for index in 1... {
            let file = directory.appendingPathComponent("message-\(index).json")
            guard let data = FileManager.default.contents(atPath: file.path) else { break }
            result.append(try JSONDecoder().decode(ReceivedMail.self, from: data))
        }
        return result
    }

    /// Every RCPT TO address the sink saw, accepted or refused.
    func recipientsTried() -> [String] {
        let text = (try? String(contentsOf: directory.appendingPathComponent("rcpt-log"), encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }

    func stop() async {
        try? lifeline.fileHandleForWriting.close()
        for _ in 0..<200 where process.isRunning { try? await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: directory)
    }
}

/// A loopback port with nothing listening: bind to port 0, note the port, close.
func unusedLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw SinkError(description: "socket() failed") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
            bind(fd, raw, length) == 0 && getsockname(fd, raw, &length) == 0
        }
    }
    guard bound else { throw SinkError(description: "bind() failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}
