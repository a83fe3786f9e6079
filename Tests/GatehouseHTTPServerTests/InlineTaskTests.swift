import Dispatch
import Foundation
import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseTesting
import Synchronization
import Testing

/// Deferred handlers start on the I/O thread (`IOThreadTaskExecutor`): one that never waits on another
/// thread is answered there with no suspend; one that waits moves off it and is still answered, also when
/// the other thread resumes it while the I/O thread is finishing its inline part.
@Suite(.serialized) struct InlineTaskTests {
    /// A default actor the handler visits (its jobs follow the task's executor preference).
    actor Tally {
        var count = 0
        func bump() -> Int { count += 1; return count }
    }

    /// The calling thread's name, as the kernel has it (pthread_getname_np is not imported on Linux).
    static func threadName() -> String {
        ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func start() throws -> (HTTPServer, UInt16) {
        let tally = Tally()
        let started = Mutex<HTTPServer?>(nil)
        var router = Router()
        router.get("/inline") { _ async throws in
            // A child task and an actor hop: both stay on the I/O thread when nothing else holds them.
            async let child = Self.threadName()
            let count = await tally.bump()
            return .text("\(Self.threadName()) \(await child) \(count > 0)")
        }
        router.get("/wait") { request async throws in
            // Resumed from another thread only once the server has counted this request as suspended (the
            // n-th of its life): a timer could fire while a slow machine's I/O thread is still draining the
            // task, which then answers inline, and a test of the suspension must not depend on that timing.
            let index = Int(request.query["n"] ?? "") ?? 0
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    while (started.withLock { $0 }?.suspendedRequestsTotal ?? 0) <= index { usleep(200) }
                    continuation.resume()
                }
            }
            return .text("waited \(index)")
        }
        router.get("/race") { request async throws in
            // Resumed by another thread at once: it may land while the I/O thread is ending its drain.
            let value: String = await withCheckedContinuation { continuation in
                DispatchQueue.global().async { continuation.resume(returning: request.query["n"] ?? "") }
            }
            return .text("raced " + value)
        }
        let server = HTTPServer(pipeline: RequestPipeline(router: router),
                                configuration: HTTPServerConfiguration(listen: ListenAddress(host: "127.0.0.1", port: 0)))
        started.withLock { $0 = server }
        return (server, try server.start())
    }

    @Test func aHandlerThatNeverWaitsIsAnsweredOnTheIOThreadWithoutSuspending() async throws {
        let (server, port) = try Self.start()
        defer { Task { await server.stop() } }
        let connection = try RawHTTPConnection(port: port)
        for _ in 0..<20 {
            connection.write("GET /inline HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            // libmicrohttpd names its pool threads "MHD-worker"; Swift's pool threads are named otherwise.
            #expect(response.text == "MHD-worker MHD-worker true", "ran on: \(response.text)")
        }
        #expect(server.suspendedRequestsTotal == 0)
    }

    @Test func aHandlerThatWaitsIsSuspendedAndStillAnswered() async throws {
        let (server, port) = try Self.start()
        defer { Task { await server.stop() } }
        // Generous: in the full parallel suite the test process's own pool threads are busy, and the
        // waiting handler resumes there.
        let connection = try RawHTTPConnection(port: port, timeoutSeconds: 60)
        for index in 0..<5 {
            connection.write("GET /wait?n=\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200 && response.text == "waited \(index)")
        }
        #expect(server.suspendedRequestsTotal == 5)
        // libmicrohttpd reports a request complete only after its answer is sent, so the count may lag the read.
        #expect(await Self.settles(server))
    }

    @Test func resumptionsRacingTheEndOfTheInlinePartAreNeverLost() async throws {
        let (server, port) = try Self.start()
        defer { Task { await server.stop() } }
        // 8 keep-alive connections on their own threads, 100 requests each; every answer must be its own.
        let failures = Failures()
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask { await Self.onThread { Self.hammer(port: port, worker: worker, failures: failures) } }
            }
        }
        let failed = failures.list.withLock { $0 }
        #expect(failed.isEmpty, "\(failed.prefix(5))")
        #expect(await Self.settles(server))
    }

    /// Whether no request is left suspended within a few seconds.
    static func settles(_ server: HTTPServer) async -> Bool {
        for _ in 0..<400 where server.requestsInFlight != 0 { try? await Task.sleep(for: .milliseconds(10)) }
        return server.requestsInFlight == 0
    }

    final class Failures: Sendable {
        let list = Mutex<[String]>([])
    }

    /// Blocking socket work on a thread of its own (the cooperative pool has two threads here).
    static func onThread(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread { body(); done.resume() }.start()
        }
    }

    static func hammer(port: UInt16, worker: Int, failures: Failures) {
        do {
            let connection = try RawHTTPConnection(port: port, timeoutSeconds: 60)
            for index in 0..<100 {
                let n = "\(worker)-\(index)"
                connection.write("GET /race?n=\(n) HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try connection.readResponse()
                if response.status != 200 || response.text != "raced \(n)" {
                    failures.list.withLock { $0.append("\(n): \(response.status) \(response.text)") }
                }
            }
        } catch {
            failures.list.withLock { $0.append("worker \(worker): \(error)") }
        }
    }
}
