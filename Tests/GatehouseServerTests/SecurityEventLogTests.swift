import Foundation
import GatehouseTesting
import Testing

/// A failed sign-in's reason is in the JSON log, without secrets.
@Suite struct SecurityEventLogTests {
    private func securityLines(_ gatehouse: TestGatehouse) -> [[String: String]] {
        gatehouse.log.all.compactMap { line in
            guard line.contains("\"security event\"") else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: String]
        }
    }

    @Test func failedSignInsAreLoggedWithTheirReasonAndNoSecrets() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser()
        let secret = "wrong password typed here"
        _ = try await gatehouse.browser(ip: "192.0.2.10").submit("/sign-in", to: "/sign-in", [("email", "ada@example.com"), ("password", secret)])
        _ = try await gatehouse.browser(ip: "192.0.2.10").submit("/sign-in", to: "/sign-in",
                                                                 [("email", "my password 123"), ("password", secret)])
        for _ in 0..<10 {
            _ = try await gatehouse.browser(ip: "192.0.2.11").submit("/sign-in", to: "/sign-in",
                                                                     [("email", "nobody@example.com"), ("password", secret)])
        }
        let lines = securityLines(gatehouse)
        let reasons = lines.map { $0["reason"] ?? "" }
        #expect(reasons.first == "wrong_password")
        #expect(reasons.contains("unknown_account"))
        #expect(reasons.contains("rate_limited"))
        let limited = try #require(lines.first { $0["reason"] == "rate_limited" })
        #expect(limited["limit"] == "account" && limited["ip"] == "192.0.2.11" && Int(limited["retry_after"] ?? "") != nil)
        #expect(lines.first?["user_id"] != nil && lines.first?["ip"] == "192.0.2.10" && lines.first?["event"] == "sign_in.failed")
        let everything = gatehouse.log.all.joined()
        #expect(!everything.contains(secret), "no password in the log")
        #expect(!everything.contains("my password 123"), "nor what was typed as the email")
    }

    @Test func aTamperedProviderCallbackIsLogged() async throws {
        let gatehouse = try await TestGatehouse.make { $0.demo = true }
        let response = try await gatehouse.browser().get("/auth/github/callback?state=tampered-state&code=abc")
        #expect((400..<500).contains(response.status))
        let line = try #require(securityLines(gatehouse).first { $0["event"] == "provider.sign_in_failed" })
        #expect(line["provider"] == "github" && line["reason"] == "invalid_state")
        #expect(!gatehouse.log.all.joined().contains("tampered-state"), "the state value is not logged")
    }
}
