import Foundation
import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseTesting
import Testing

/// Tests where the wire matters: malformed bytes, limits, timeouts, keep-alive, shutdown.
@Suite(.serialized) struct SocketTests {
    @Test func servesGetAndHeadOverTheWire() async throws {
        let live = try LiveServer.start()
        defer { Task { await live.server.stop() } }
        let get = try await live.client.get("/hello")
        #expect(get.status == 200 && get.text == "hello")
        #expect(get.headers["X-Content-Type-Options"] == "nosniff")
        let connection = try live.connection()
        connection.write("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try connection.readResponse(headOnly: true)
        #expect(head.status == 200)
        #expect(head.headers["Content-Length"] == "5", "HEAD reports the GET body's length")
    }

    @Test func keepAliveServesSeveralRequestsOnOneConnection() async throws {
        let live = try LiveServer.start()
        defer { Task { await live.server.stop() } }
        let connection = try live.connection()
        for _ in 0..<3 {
            connection.write("GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 200)
            #expect(response.headers["Connection"]?.lowercased() != "close")
        }
    }

    /// The peer address is formatted once per connection and bodies go out from the request's own array
    /// (no copy): every request on a kept-alive connection still sees its peer and gets its own bytes.
    @Test func keptAliveRequestsSeeTheirPeerAndGetTheirOwnBodies() async throws {
        let live = try LiveServer.start()
        defer { Task { await live.server.stop() } }
        let connection = try live.connection()
        for size in [0, 1, 700, 5, 4_000, 2] {
            connection.write("GET /peer HTTP/1.1\r\nHost: x\r\n\r\n")
            let peer = try connection.readResponse()
            #expect(peer.status == 200 && peer.text == "127.0.0.1")
            connection.write("GET /bytes?n=\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
            let bytes = try connection.readResponse()
            #expect(bytes.status == 200 && bytes.text == String(repeating: "b", count: size), "body of \(size) bytes")
        }
    }

    @Test func garbageRequestLineGets400AndServerKeepsServing() async throws {
        let live = try LiveServer.start()
        defer { Task { await live.server.stop() } }
        for garbage in ["THIS IS NOT HTTP\r\n\r\n", "GET\r\n\r\n", "\u{01}\u{02}\u{03} / HTTP/1.1\r\nHost: x\r\n\r\n",
                        "GET /hello HTTP/9.9\r\nHost: x\r\n\r\n"] {
            let connection = try live.connection()
            connection.write(garbage)
            let response = try? connection.readResponse()
            #expect(response.map { (400...505).contains($0.status) } ?? connection.isClosedByPeer(),
                    "garbage is refused with a 4xx/505 or a close: \(garbage.debugDescription)")
            if let response { #expect(response.status != 500) }
        }
        #expect(try await live.client.get("/hello").status == 200)
    }

    @Test func hugeHeaderGets431AndServerKeepsServing() async throws {
        let live = try LiveServer.start()
        defer { Task { await live.server.stop() } }
        let connection = try live.connection()
        connection.write("GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n")
        let response = try connection.readResponse()
        #expect(response.status == 431)
        #expect(try await live.client.get("/hello").status == 200)
    }

    @Test func undecodableTargetGets400() async throws {
        let live = try LiveServer.start()
        defer { Task { await live.server.stop() } }
        let connection = try live.connection()
        connection.write("GET /hello?x=%ZZ HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try connection.readResponse().status == 400)
    }

    @Test func bodyOverTheLimitGets413() async throws {
        let live = try LiveServer.start()
        defer { Task { await live.server.stop() } }
        // Declared length over the limit, client waiting for 100-continue: refused before any body is sent.
        let expecting = try live.connection()
        expecting.write("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")
        #expect(try expecting.readResponse().status == 413)
        // Declared length over the limit, body sent straight away.
        let declared = try live.connection()
        declared.write("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n" + String(repeating: "c", count: 5000))
        #expect(try declared.readResponse().status == 413)
        // Chunked body that grows past the limit.
        let chunked = try live.connection()
        var request = "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        for _ in 0..<4 { request += "200\r\n" + String(repeating: "b", count: 512) + "\r\n" }
        request += "0\r\n\r\n"
        chunked.write(request)
        #expect(try chunked.readResponse().status == 413)
        // At the limit is fine.
        let ok = try await live.client.send(.post, "/echo", headers: ["Content-Type": "text/plain"],
                                            body: Array(repeating: 0x61, count: 1_024))
        #expect(ok.status == 200 && ok.text == "1024")
    }

    @Test func slowClientIsDisconnectedWhileOthersAreServed() async throws {
        let live = try LiveServer.start { $0.connectionTimeoutSeconds = 1 }
        defer { Task { await live.server.stop() } }
        let slow = try live.connection()
        slow.write("GET /hello HTTP/1.1\r\nHost: x\r\n")   // never finishes its headers
        #expect(try await live.client.get("/hello").status == 200)
        let started = ContinuousClock.now
        let closed = (try? slow.readResponse()).map { $0.status == 408 } ?? true   // a 408, or a bare close
        #expect(closed && slow.isClosedByPeer(), "the idle connection is closed")
        #expect(ContinuousClock.now - started < .seconds(4))
    }

    @Test func slowHandlersDoNotBlockTheIOThreads() async throws {
        let live = try LiveServer.start { $0.ioThreads = 1 }
        defer { Task { await live.server.stop() } }
        let client = live.client
        async let slowOnes: [Int] = withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await client.get("/slow?ms=2000").status } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Wait until the slow requests are being handled, then ask for a fast page on the same single I/O thread.
        for _ in 0..<200 where live.server.requestsInFlight < 8 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(live.server.requestsInFlight == 8)
        #expect(try await client.get("/hello").status == 200)
        #expect(live.server.requestsInFlight > 0, "the fast page was answered while slow handlers were still running")
        #expect(try await slowOnes == Array(repeating: 200, count: 8))
    }

    @Test func gracefulShutdownFinishesInFlightRequests() async throws {
        let live = try LiveServer.start()
        let client = live.client
        let inFlight = Task { try await client.get("/slow?ms=500") }
        // Until the handler runs: on a loaded machine the request can take longer than any fixed pause to arrive.
        for _ in 0..<1000 where live.server.requestsInFlight < 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(live.server.requestsInFlight == 1)
        let drained = await live.server.stop()
        #expect(drained)
        let response = try await inFlight.value
        #expect(response.status == 200 && response.text == "slow done")
        #expect(throws: RawHTTPConnection.Failure.self) { _ = try live.connection() }
    }

    @Test func shutdownGivesUpAfterTheGracePeriod() async throws {
        let live = try LiveServer.start { $0.shutdownGraceSeconds = 0.2 }
        let client = live.client
        // The request outlives the grace period by far, so a loaded machine's scheduling delay cannot blur the two.
        let stuck = Task { try await client.get("/slow?ms=5000") }
        for _ in 0..<1000 where live.server.requestsInFlight < 1 { try await Task.sleep(for: .milliseconds(10)) }
        #expect(live.server.requestsInFlight == 1)
        let started = ContinuousClock.now
        #expect(await live.server.stop() == false)
        #expect(ContinuousClock.now - started < .seconds(3), "stop returned at the grace period, not when the request ended")
        _ = try? await stuck.value
        #expect(await live.server.stop(), "once the request finished, the daemon stops")
    }
}
