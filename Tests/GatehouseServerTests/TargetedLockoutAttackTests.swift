import Foundation
import GatehouseHTTP
import GatehouseTesting
import Testing

/// A stranger's wrong passwords must not lock the owner out: failures count per account *and* client, the
/// owner's browser that signed in before is exempt, a reset clears the counters, and the password grant counts
/// the same way. Rendered forms, concurrent guesses, in-process.
@Suite struct TargetedLockoutAttackTests {
    static let attacker = "203.0.113.66"

    /// Guesses submitted together through the rendered sign-in form from one address, as a script would.
    static func flood(_ gatehouse: TestGatehouse, count: Int, ip: String = attacker) async throws -> [Int] {
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<count {
                group.addTask {
                    let browser = gatehouse.browser(ip: ip)
                    return try await browser.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "guess \(index)")]).status
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test func aStrangersGuessesDoNotLockTheOwnerOut() async throws {
        let gatehouse = try await TestGatehouse.make()
        let owner = try await gatehouse.signedUpBrowser()   // signed in once: this browser holds the device cookie
        #expect(owner.cookies.keys.contains("gatehouse_device"))
        _ = try await owner.submit("/account", to: "/sign-out", [])
        let statuses = try await Self.flood(gatehouse, count: 25)
        // Guesses checked together before the first is counted may all be tried (docs/client-addresses-and-limits.md).
        #expect(!statuses.contains(303) && !statuses.contains(500) && statuses.count == 25)
        let stranger = gatehouse.browser(ip: Self.attacker)
        let right = try await stranger.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(right.status == 429, "the guessing client stays held back, even with the right password")

        let back = try await owner.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(back.status == 303, "the owner's own browser gets in")
        let elsewhere = gatehouse.browser(ip: "198.51.100.7")
        let fresh = try await elsewhere.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(fresh.status == 303, "so does a new browser on another address")
        // The known device on the attacker's own address (a shared NAT): still in.
        let sameNAT = gatehouse.browser(ip: Self.attacker)
        for (name, value) in owner.cookies where name == "gatehouse_device" { sameNAT.setCookie(name, value) }
        let nat = try await sameNAT.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(nat.status == 303)
    }

    @Test func manyAddressesHoldBackNewClientsOnlyAndAResetClearsIt() async throws {
        let gatehouse = try await TestGatehouse.make()
        let owner = try await gatehouse.signedUpBrowser()
        _ = try await owner.submit("/account", to: "/sign-out", [])
        for batch in 0..<10 {   // 50 guesses from 50 addresses, five at a time
            _ = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<5 {
                    group.addTask {
                        try await gatehouse.browser(ip: "203.0.113.\(batch * 5 + index)")
                            .submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "guess")]).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
        }
        let newcomer = gatehouse.browser(ip: "198.51.100.8")
        let held = try await newcomer.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(held.status == 429 && held.headers["Retry-After"] != nil, "the account's shared ceiling holds new clients back")
        let known = try await owner.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "correct horse battery")])
        #expect(known.status == 303, "the known device is exempt")

        // A reset by mail clears the counters: the newcomer gets in with the new password.
        _ = try await newcomer.submit("/password/forgot", to: "/password/forgot", [("email", "ada@example.com")])
        let reset = try #require(await gatehouse.mailer.link(to: "ada@example.com", containing: "/password/reset/"))
        #expect(try await newcomer.submit(reset, to: reset, [("new_password", "a brand new password")]).status == 200)
        let after = try await newcomer.submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", "a brand new password")])
        #expect(after.status == 303)
    }

    @Test func thePasswordGrantCountsPerClientToo() async throws {
        let oauth = try await OAuthFixture.make()
        let client = InProcessClient(oauth.gatehouse.app.pipeline, remoteAddress: Self.attacker)
        func grant(_ password: String, from client: InProcessClient) async throws -> (status: Int, body: String) {
            var headers: HTTPHeaders = ["Content-Type": "application/x-www-form-urlencoded"]
            headers.set("Authorization", "Basic " + Data("web-app:\(oauth.confidentialSecret)".utf8).base64EncodedString())
            let form = URLEncodedForm(pairs: [("grant_type", "password"), ("username", "ada@example.com"), ("password", password)])
            let response = try await client.send(.post, "/oauth/token", headers: headers, body: Array(form.encoded.utf8))
            return (response.status, response.text)
        }
        let guesses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<12 { group.addTask { try await grant("guess \(index)", from: client).status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(!guesses.contains(200) && !guesses.contains(500))
        let held = try await grant("correct horse battery", from: client)
        #expect(held.status != 200 && held.body.contains("temporarily_unavailable"), "the guessing client is held back")
        let app = InProcessClient(oauth.gatehouse.app.pipeline, remoteAddress: "198.51.100.9")
        #expect(try await grant("correct horse battery", from: app).status == 200, "the owner's app elsewhere still gets tokens")
    }
}
