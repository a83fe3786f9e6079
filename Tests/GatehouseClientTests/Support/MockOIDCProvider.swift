import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Runs `oidc-provider-mock` (PyPI), a third-party OpenID provider, on a free loopback port for
/// the duration of `body`.
///
/// Started as `python3 -m oidc_provider_mock --host 127.0.0.1 --port N` (the interpreter from
/// `$GATEHOUSE_PYTHON`, else `python3` on `PATH`). It takes its issuer from the `Host` header,
/// so everything uses `127.0.0.1`. Startup failures throw: a missing provider fails the test.
enum MockOIDCProvider {
    struct StartError: Error, CustomStringConvertible {
        let description: String
    }

    static func run<T>(_ body: (URL) async throws -> T) async throws -> T {
        var lastError: (any Error)?
        // A port found free can be taken before Python binds it: try a few.
        for _ in 0..<3 {
            let port = try freeLoopbackPort()
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            let python = ProcessInfo.processInfo.environment["GATEHOUSE_PYTHON"] ?? "python3"
            process.arguments = [python, "-m", "oidc_provider_mock", "--host", "127.0.0.1", "--port", String(port)]
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("oidc-provider-mock-\(port).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            defer {
                stop(process)
                try? handle.close()
                try? FileManager.default.removeItem(at: log)
            }
            let base = URL(string: "http://127.0.0.1:\(port)")!
            do {
                try await waitUntilReady(base, process: process, log: log)
            } catch {
                lastError = error
                continue
            }
            return try await body(base)
        }
        throw lastError ?? StartError(description: "oidc-provider-mock did not start")
    }

    /// SIGTERM, then SIGKILL after 1 s: uvicorn's graceful shutdown waits for idle keep-alive
    /// connections, which URLSession keeps open, so a polite stop alone can hang forever.
    private static func stop(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(1)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        while process.isRunning { usleep(10_000) }
    }

    private static func waitUntilReady(_ base: URL, process: Process, log: URL) async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 1
        let session = URLSession(configuration: configuration)
        let discovery = base.appendingPathComponent(".well-known/openid-configuration")
        let deadline = Date().addingTimeInterval(30) // Python imports are slow on a busy 2-core box
        while Date() < deadline {
            guard process.isRunning else {
                let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                throw StartError(description: "oidc-provider-mock exited (\(process.terminationStatus)): \(output.suffix(2000))")
            }
            if let (_, response) = try? await session.data(from: discovery), (response as? HTTPURLResponse)?.statusCode == 200 {
                return
            }
            try await Task.sleep(for: .milliseconds(150))
        }
        throw StartError(description: "oidc-provider-mock not ready at \(base) after 30 s")
    }

    /// Binds port 0 on 127.0.0.1 and returns the port the kernel picked.
    private static func freeLoopbackPort() throws -> Int {
        #if os(Linux)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw StartError(description: "socket() failed: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw StartError(description: "bind() failed: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
