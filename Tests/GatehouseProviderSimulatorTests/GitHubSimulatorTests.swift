import Foundation
import GatehouseCrypto
import GatehouseHTTP
@testable import GatehouseProviderSimulator
import GatehouseTesting
import Testing

@Suite struct GitHubSimulatorTests {
    typealias F = SimulatorFixture

    static func authorize(_ fixture: F, verifier: String, scope: String = "read:user user:email", email: String = "octo@example.com",
                          extra: [(String, String)] = [], cancel: Bool = false) async throws -> URLEncodedForm {
        let query = URLEncodedForm(pairs: [
            ("client_id", F.githubClientID), ("redirect_uri", F.githubRedirect), ("scope", scope), ("state", "st-gh"),
            ("code_challenge", PKCE.challenge(for: verifier)), ("code_challenge_method", "S256"),
        ]).encoded
        let page = try await fixture.client.get("/_sim/github/login/oauth/authorize?" + query)
        #expect(page.status == 200)
        #expect(page.text.contains("Simulated GitHub"))
        let answer = try await fixture.client.post(HTML.formAction(page.text) ?? "", form: HTML.hiddenFields(page.text)
            + [("email", email), ("name", "Mona Octocat"), ("action", cancel ? "cancel" : "allow")] + extra)
        #expect(answer.status == 302)
        return redirectParameters(answer)
    }

    static func exchange(_ fixture: F, code: String, verifier: String, secret: String = F.githubSecret,
                         json: Bool = false) async throws -> TestResponse {
        try await fixture.client.post("/_sim/github/login/oauth/access_token", form: [
            ("client_id", F.githubClientID), ("client_secret", secret), ("code", code), ("redirect_uri", F.githubRedirect),
            ("code_verifier", verifier),
        ], headers: json ? ["Accept": "application/json"] : HTTPHeaders())
    }

    @Test func formEncodedByDefaultThenUserAndEmails() async throws {
        let fixture = try F()
        let verifier = PKCE.generateVerifier()
        let callback = try await Self.authorize(fixture, verifier: verifier)
        #expect(callback["state"] == "st-gh")
        let response = try await Self.exchange(fixture, code: callback["code"] ?? "", verifier: verifier)
        #expect(response.status == 200)
        #expect(response.headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
        let form = try URLEncodedForm(parsing: response.text)
        #expect(form["token_type"] == "bearer")
        #expect(form["scope"] == "read:user,user:email")
        let token = try #require(form["access_token"])
        #expect(token.hasPrefix("gho_"))

        let user = try await fixture.client.get("/_sim/github/api/user", headers: ["Authorization": "token " + token])
        #expect(user.status == 200)
        let profile = JSON.object(user.body)
        #expect(profile["login"] == .string("octo"))
        #expect(profile["id"] == .integer(fixture.simulator.github.userID(forEmail: "octo@example.com")))
        #expect(profile["name"] == .string("Mona Octocat"))

        let emails = try await fixture.client.get("/_sim/github/api/user/emails", headers: ["Authorization": "Bearer " + token])
        #expect(emails.status == 200)
        let list = JSON.array(emails.body).compactMap { value -> [String: JSONValue]? in
            if case .object(let members) = value { return members } else { return nil }
        }
        let chosen = list.filter { $0["primary"] == .bool(true) && $0["verified"] == .bool(true) }
        #expect(chosen.count == 1)
        #expect(chosen.first?["email"] == .string("octo@example.com"))
        #expect(try await fixture.client.get("/_sim/github/api/user", headers: ["Authorization": "Bearer nope"]).status == 401)
    }

    @Test func jsonWithAcceptHeaderAndErrorsAsGitHubSendsThem() async throws {
        let fixture = try F()
        let verifier = PKCE.generateVerifier()
        let code = try await Self.authorize(fixture, verifier: verifier)["code"] ?? ""
        let wrongSecret = try await Self.exchange(fixture, code: code, verifier: verifier, secret: "nope")
        #expect(wrongSecret.status == 200)
        #expect(try URLEncodedForm(parsing: wrongSecret.text)["error"] == "incorrect_client_credentials")
        let wrongVerifier = try await Self.exchange(fixture, code: code, verifier: PKCE.generateVerifier(), json: true)
        #expect(wrongVerifier.status == 200)
        #expect(JSON.object(wrongVerifier.body)["error"] == .string("bad_verification_code"))

        let fresh = try await Self.authorize(fixture, verifier: verifier)["code"] ?? ""
        let ok = try await Self.exchange(fixture, code: fresh, verifier: verifier, json: true)
        #expect(ok.headers["Content-Type"] == "application/json")
        let body = JSON.object(ok.body)
        #expect(body["token_type"] == .string("bearer"))
        #expect(body["access_token"]?.stringValue?.hasPrefix("gho_") == true)
        let reused = try await Self.exchange(fixture, code: fresh, verifier: verifier)
        #expect(reused.status == 200)
        #expect(try URLEncodedForm(parsing: reused.text)["error"] == "bad_verification_code")
    }

    @Test func unverifiedPrimaryEmailHasNoPrimaryVerifiedEntry() async throws {
        let fixture = try F()
        let verifier = PKCE.generateVerifier()
        let code = try await Self.authorize(fixture, verifier: verifier, extra: [("unverified_email", "true")])["code"] ?? ""
        let token = try URLEncodedForm(parsing: try await Self.exchange(fixture, code: code, verifier: verifier).text)["access_token"] ?? ""
        let list = JSON.array(try await fixture.client.get("/_sim/github/api/user/emails", headers: ["Authorization": "token " + token]).body)
        let entries = list.compactMap { value -> [String: JSONValue]? in if case .object(let m) = value { m } else { nil } }
        #expect(entries.count == 2)
        #expect(entries.contains { $0["primary"] == .bool(true) && $0["verified"] == .bool(false) && $0["email"] == .string("octo@example.com") })
        #expect(!entries.contains { $0["primary"] == .bool(true) && $0["verified"] == .bool(true) })
    }

    @Test func emailsNeedTheScopeAndCancelIsAccessDenied() async throws {
        let fixture = try F()
        let verifier = PKCE.generateVerifier()
        let code = try await Self.authorize(fixture, verifier: verifier, scope: "read:user")["code"] ?? ""
        let token = try URLEncodedForm(parsing: try await Self.exchange(fixture, code: code, verifier: verifier).text)["access_token"] ?? ""
        #expect(try await fixture.client.get("/_sim/github/api/user/emails", headers: ["Authorization": "token " + token]).status == 404)

        let denied = try await Self.authorize(fixture, verifier: verifier, cancel: true)
        #expect(denied["error"] == "access_denied")
        #expect(denied["state"] == "st-gh")
        #expect(denied["code"] == nil)
        let badRedirect = try await fixture.client.get("/_sim/github/login/oauth/authorize?" + URLEncodedForm(pairs: [
            ("client_id", F.githubClientID), ("redirect_uri", "https://evil.example/cb")]).encoded)
        #expect(badRedirect.status == 400)
    }
}
