import Foundation
import GatehouseCrypto
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `gatehouse providers check` against configurations that fail in each way an operator meets.
@Suite(.serialized) struct ProvidersCheckCommandTests {
    /// Writes `providers` into a config file of its own and runs the check on it.
    func check(_ providers: [String: Any], environment: [String: String] = [:]) async throws -> CommandLineTests.Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gh-providers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("config.json")
        try JSONSerialization.data(withJSONObject: ["providers": providers]).write(to: file)
        return try await CommandLineTests.run(["providers", "check", "--config", file.path], environment: environment)
    }

    /// A loopback port nobody listens on: bound by the kernel's choice, then closed again.
    static func closedPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test func unreachableProviderIsReportedWithExitOne() async throws {
        let port = try Self.closedPort()
        let result = try await check([
            "timeout_seconds": 3,
            "github": ["client_id": "Ov23test", "client_secret": "s"],
            "oidc": [["id": "mock", "name": "Mock", "issuer": "http://127.0.0.1:\(port)", "client_id": "c", "client_secret": "s"]],
        ])
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.contains("mock: FAILED"))
        #expect(result.stdout.contains("http://127.0.0.1:\(port)/.well-known/openid-configuration is unreachable"))
        #expect(result.stdout.contains("github: OK"), "GitHub's URLs are fine and nothing is fetched")
        #expect(result.stdout.contains("1 of 2 failed: mock"))
    }

    @Test func plainHTTPOutsideLoopbackFails() async throws {
        let result = try await check(["github": ["client_id": "Ov23test", "client_secret": "s",
                                           "endpoints": ["token": "http://github.example.com/login/oauth/access_token"]]])
        #expect(result.status == 1)
        #expect(result.stdout.contains("github: FAILED"))
        #expect(result.stdout.contains("must use https"))
    }

    @Test func missingSecretVariableIsAConfigurationError() async throws {
        let result = try await check(["google": ["client_id": "x.apps.googleusercontent.com", "client_secret_env": "GH_TEST_UNSET_SECRET"]])
        #expect(result.status == 2)
        #expect(result.stderr.contains("providers.google.client_secret_env"))
        #expect(result.stderr.contains("GH_TEST_UNSET_SECRET is not set"))
    }

    @Test func appleKeyThatIsNotP256IsAConfigurationError() async throws {
        let pem = try SigningKey.generate(.edDSA).pkcs8PEM()
        let result = try await check(["apple": ["client_id": "com.example.web", "team_id": "ABCDE12345", "key_id": "KEY1234567",
                                          "private_key": pem]])
        #expect(result.status == 2)
        #expect(result.stderr.contains("providers.apple.private_key_file"))
        #expect(result.stderr.contains("P-256"))
    }

    @Test func noProvidersIsFine() async throws {
        let result = try await check([:])
        #expect(result.status == 0)
        #expect(result.stdout.contains("no providers configured"))
    }

    @Test func checkNeedsItsAction() async throws {
        #expect(try await CommandLineTests.run(["providers"]).status == 2)
        #expect(try await CommandLineTests.run(["providers", "check", "--help"]).stdout.hasPrefix("Usage: gatehouse providers check"))
    }
}
