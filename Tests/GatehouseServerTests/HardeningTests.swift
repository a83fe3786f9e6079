import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import Testing

/// Hardening points of the second review (item 11).
@Suite struct HardeningTests {
    static func hsts(_ publicURL: String, file: String? = nil) async throws -> String? {
        let gatehouse = try await TestGatehouse.make { configuration in
            var path: String?
            if let file {
                path = FileManager.default.temporaryDirectory.appendingPathComponent("hsts-\(UUID().uuidString).json").path
                try! file.write(toFile: path!, atomically: true, encoding: .utf8)
            }
            configuration = try! GatehouseConfiguration.load(environment: ["GATEHOUSE_PUBLIC_URL": publicURL], configPath: path)
            configuration.passwordHashing = Argon2idParameters(memoryBytes: 1 << 20, iterations: 1)
        }
        let prefix = URL(string: publicURL)!.path
        return try await gatehouse.browser().get(prefix + "/sign-in").headers["Strict-Transport-Security"]
    }

    /// A Gatehouse under a path of the product's host does not bind the product's other hosts to https.
    @Test func hstsCoversSubdomainsOnlyAtAHostRootUnlessConfigured() async throws {
        #expect(try await Self.hsts("https://id.example") == "max-age=63072000; includeSubDomains")
        #expect(try await Self.hsts("https://app.example/auth") == "max-age=63072000")
        #expect(try await Self.hsts("https://app.example/auth", file: #"{"http": {"hsts_include_subdomains": true}}"#)
                == "max-age=63072000; includeSubDomains")
        #expect(try await Self.hsts("https://id.example", file: #"{"http": {"hsts_include_subdomains": false}}"#) == "max-age=63072000")
    }

    /// Unknown routes and methods under `/admin/v1` answer RFC 9457 problem JSON, never an HTML page.
    @Test func unknownAdminRoutesAnswerProblemJSON() async throws {
        let gatehouse = try await TestGatehouse.make()
        let client = InProcessClient(gatehouse.app.pipeline)
        for (method, path) in [(HTTPMethod.get, "/admin/v1/nothing"), (.get, "/admin/v1"), (.delete, "/admin/v1/openapi.json"),
                               (.get, "/admin/v1/users/x/y/z")] {
            let response = try await client.send(method, path, headers: ["Accept": "text/html"], body: [])
            #expect(response.headers["Content-Type"] == "application/problem+json", "\(method) \(path)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            #expect(json["status"] as? Int == response.status && [404, 405].contains(response.status))
        }
    }

    /// Every failed password check does the same work whatever it meets — no account, an Argon2id hash or an
    /// imported bcrypt one — once the store holds bcrypt hashes: one Argon2id and one bcrypt verification each.
    /// Counted, not timed.
    @Test func unknownArgon2idAndBcryptAccountsCostTheSameWork() async throws {
        let gatehouse = try await TestGatehouse.make()
        _ = try await gatehouse.signedUpBrowser(email: "argon@example.com")
        try await gatehouse.database.users.create(User(id: "imported", email: "bcrypt@example.com",
                                                       passwordHash: "$2a$04$Hsw2hdu8rSmlQnCmSSKa3.hVYWaMb8EvZNu3YI7OOOUuixwW45oya",
                                                       emailVerified: true, createdAt: gatehouse.clock.now))
        let services = gatehouse.app.services
        try await services.preparePasswordChecks()
        let hasher = services.hasher
        var work: [String: (all: Int, bcrypt: Int)] = [:]
        for email in ["nobody@example.com", "argon@example.com", "bcrypt@example.com"] {
            let (all, bcrypt) = (hasher.verificationsPerformed, hasher.bcryptVerificationsPerformed)
            let response = try await gatehouse.browser().submit("/sign-in", to: "/sign-in", [("email", email), ("password", "wrong password!")])
            #expect(response.status == 200 || response.status == 401, "\(email): refused")
            work[email] = (hasher.verificationsPerformed - all, hasher.bcryptVerificationsPerformed - bcrypt)
        }
        for (email, done) in work { #expect(done.all == 2 && done.bcrypt == 1, "\(email): \(done)") }
    }
}
