import Foundation
import GatehouseHTTP
import GatehouseTesting
import Testing

/// While the database is out of reach, database-backed routes answer 503 with
/// `Retry-After` — an HTML page for pages, JSON for JSON routes — and never a 500.
@Suite struct DatabaseOutageTests {
    @Test func databaseBackedRoutesAnswer503InTheirOwnFormat() async throws {
        let fixture = try await OAuthFixture.make()
        let gatehouse = fixture.gatehouse
        let browser = fixture.browser
        let signInForm = gatehouse.browser()
        let granted = try await fixture.token([("grant_type", "password"), ("username", "ada@example.com"),
                                               ("password", "correct horse battery"), ("scope", "openid email")],
                                              basic: ("web-app", fixture.confidentialSecret))
        let accessToken = try #require(granted.json["access_token"] as? String)
        await gatehouse.database.close()          // every store call now fails as "unavailable"

        func expect503(_ response: TestResponse, json: Bool, _ what: String) throws {
            #expect(response.status == 503, "\(what): \(response.status)")
            #expect(response.headers["Retry-After"] == "5", "\(what)")
            let type = response.headers["Content-Type"] ?? ""
            if json {
                #expect(type.hasPrefix("application/json"), "\(what): \(type)")
                let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                #expect(object?["error"] as? String == "temporarily_unavailable", "\(what)")
            } else {
                #expect(type.hasPrefix("text/html"), "\(what): \(type)")
                #expect(response.text.contains("briefly unavailable"), "\(what)")
            }
        }
        try expect503(try await browser.get("/account"), json: false, "GET /account")
        try expect503(try await signInForm.submit("/sign-in", to: "/sign-in",
                                                  [("email", "ada@example.com"), ("password", "correct horse battery")]),
                      json: false, "POST /sign-in")
        try expect503(try await browser.get("/native/session"), json: true, "GET /native/session")
        let client = InProcessClient(gatehouse.app.pipeline)
        try expect503(try await client.post("/oauth/token", form: [("grant_type", "client_credentials"), ("client_id", "x"),
                                                                    ("client_secret", "y")]), json: true, "POST /oauth/token")
        try expect503(try await client.get("/oauth/userinfo", headers: ["Authorization": "Bearer \(accessToken)"]), json: true,
                      "GET /oauth/userinfo")
        #expect(try await client.get("/healthz").status == 200, "the process itself is fine")
        #expect(try await client.get("/readyz").status == 503)
    }
}
