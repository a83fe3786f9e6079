import Foundation
import GatehouseHTTP
import GatehouseServer
import GatehouseTesting
import Testing

/// `rate_limits.native_passkey_per_ip`: `/native/passkey/options` and `/native/passkey` flooded from one
/// address with real concurrent requests — the limit holds exactly, the refusal is RFC 6749 JSON with
/// `Retry-After`, another address is not held back, and the window's end lets the address in again.
@Suite struct NativePasskeyLimitTests {
    typealias Native = NativePasskeyTests

    @Test func aFloodOfPasskeyRequestsFromOneAddressIsHeldToTheLimit() async throws {
        let gatehouse = try await Native.gatehouse()
        let limit = 30
        #expect(gatehouse.app.configuration.rateLimits.nativePasskeyPerIP.map(\.limit) == [limit], "the documented default")
        let flooder = gatehouse.browser(ip: "198.51.100.9")
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<(limit + 10) {
                group.addTask { try await Native.post(flooder, "/native/passkey/options", ["app": Native.app]).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == limit, "\(statuses)")
        #expect(statuses.filter { $0 == 429 }.count == 10)
        // The finishing endpoint counts in the same bucket: refused before the assertion is even read.
        let finish = try await Native.post(flooder, "/native/passkey", ["app": Native.app, "ceremony": "x"])
        #expect(finish.status == 429)
        let body = try Native.json(finish)
        #expect(body["error"] as? String == "slow_down" && (body["error_description"] as? String)?.isEmpty == false)
        let wait = try #require(Int(finish.headers["Retry-After"] ?? ""))
        #expect(wait > 0 && wait <= 60)
        #expect(finish.headers["Cache-Control"]?.contains("no-store") == true)
        // Another address is not held back; the first gets in again when its window is over.
        #expect(try await Native.post(gatehouse.browser(ip: "198.51.100.10"), "/native/passkey/options", ["app": Native.app]).status == 200)
        gatehouse.clock.advance(61)
        #expect(try await Native.post(flooder, "/native/passkey/options", ["app": Native.app]).status == 200)
    }

    @Test func theLimitIsASetting() async throws {
        let gatehouse = try await TestGatehouse.make { configuration in
            configuration.rateLimits.nativePasskeyPerIP = []
        }
        let client = gatehouse.browser(ip: "198.51.100.9")
        for _ in 0..<35 {
            // No app registered: each answer is the app's refusal, never the limit's.
            #expect(try await Native.post(client, "/native/passkey/options", ["app": Native.app]).status != 429)
        }
    }
}
