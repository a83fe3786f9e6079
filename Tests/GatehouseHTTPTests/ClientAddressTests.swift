import GatehouseHTTP
import GatehouseNetwork
import Testing

@Suite struct ClientAddressTests {
    let proxies = ClientAddressResolver(trustedProxies: ["127.0.0.1/32", "10.0.0.0/8", "fd00::/8"].map { IPNetwork($0)! })

    @Test func parsesAddressesAndNetworks() {
        #expect(IPAddress("192.0.2.1")?.description == "192.0.2.1")
        #expect(IPAddress("2001:DB8:0:0::1")?.description == "2001:db8::1")
        #expect(IPAddress("[::1]")?.description == "::1")
        #expect(IPAddress("::ffff:192.0.2.1")?.isIPv4 == true, "IPv4-mapped IPv6 is the IPv4 address")
        for bad in ["", "1", "0x7f.0.0.1", "256.1.1.1", "1.2.3.4.5", "example.com", "1.2.3.4 ", "::g", "01.2.3.4"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        #expect(IPNetwork("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(IPNetwork("10.0.0.0/33") == nil && IPNetwork("::/129") == nil && IPNetwork("10.0.0.0/") == nil)
        #expect(IPNetwork("10.0.0.0/8")!.contains(IPAddress("10.255.0.1")!))
        #expect(!IPNetwork("10.0.0.0/8")!.contains(IPAddress("11.0.0.1")!))
        #expect(IPNetwork("2001:db8::/32")!.contains(IPAddress("2001:db8:ffff::1")!))
        #expect(!IPNetwork("::/0")!.contains(IPAddress("192.0.2.1")!), "families never match each other")
        #expect(IPNetwork("0.0.0.0/0")!.contains(IPAddress("::ffff:192.0.2.1")!))
    }

    @Test func untrustedPeerKeepsItsAddressWhateverItClaims() {
        #expect(proxies.resolve(peer: "198.51.100.7", headerValues: ["203.0.113.1"]) == "198.51.100.7")
        let none = ClientAddressResolver(trustedProxies: [])
        #expect(none.resolve(peer: "127.0.0.1", headerValues: ["203.0.113.1"]) == "127.0.0.1", "empty list: headers ignored")
    }

    @Test func trustedPeerYieldsTheRightMostUntrustedHop() {
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: ["203.0.113.1"]) == "203.0.113.1")
        // The client wrote "1.1.1.1" itself; nginx appended the address it saw.
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: ["1.1.1.1, 203.0.113.1"]) == "203.0.113.1")
        // Two proxies: 10.0.0.5 forwarded to 127.0.0.1, both trusted.
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: ["1.1.1.1, 203.0.113.1, 10.0.0.5"]) == "203.0.113.1")
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: ["1.1.1.1", "203.0.113.1,10.0.0.5"]) == "203.0.113.1",
                "several header lines are one list")
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: ["10.0.0.9, 10.0.0.5"]) == "10.0.0.9", "all trusted: the left-most")
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: []) == "127.0.0.1")
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: ["2001:db8::7"]) == "2001:db8::7")
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: ["[2001:db8::7]:4711, 192.0.2.9:80"]) == "192.0.2.9")
    }

    @Test func garbageHopsStopTheWalk() {
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: ["203.0.113.1, unknown"]) == "127.0.0.1")
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: ["evil, 10.0.0.5"]) == "10.0.0.5")
        #expect(proxies.resolve(peer: "127.0.0.1", headerValues: [String(repeating: "9", count: 5000)]) == "127.0.0.1")
    }

    @Test func forwardedHeader() {
        let resolver = ClientAddressResolver(trustedProxies: proxies.trustedProxies, header: .forwarded)
        #expect(resolver.resolve(peer: "127.0.0.1", headerValues: ["for=192.0.2.60;proto=http;by=203.0.113.43"]) == "192.0.2.60")
        #expect(resolver.resolve(peer: "127.0.0.1", headerValues: ["for=1.1.1.1, For=\"[2001:db8:cafe::17]:4711\""]) == "2001:db8:cafe::17")
        #expect(resolver.resolve(peer: "127.0.0.1", headerValues: ["for=_hidden"]) == "127.0.0.1")
    }

    @Test func middlewareRewritesTheRemoteAddressOnlyForTrustedPeers() async throws {
        var router = Router()
        router.get("/ip") { request in Response.text(request.remoteAddress ?? "-") }
        let pipeline = RequestPipeline(router: router, middleware: [ClientAddressMiddleware(resolver: proxies)])
        func ip(peer: String, forwardedFor: String) async throws -> String {
            let request = try Request(method: .get, target: "/ip", headers: HTTPHeaders([("X-Forwarded-For", forwardedFor)]),
                                      remoteAddress: peer)
            return String(decoding: await pipeline.respond(to: request).body, as: UTF8.self)
        }
        #expect(try await ip(peer: "127.0.0.1", forwardedFor: "203.0.113.1") == "203.0.113.1")
        #expect(try await ip(peer: "192.0.2.1", forwardedFor: "203.0.113.1") == "192.0.2.1")
    }
}
