import Foundation
import GatehouseClient
import Testing

@Suite struct DiscoveryTests {
    private static func document(issuer: String) -> String {
        """
        {"issuer":"\(issuer)","authorization_endpoint":"\(issuer)/authorize","token_endpoint":"\(issuer)/token",
         "jwks_uri":"\(issuer)/jwks","authorization_response_iss_parameter_supported":true}
        """
    }

    @Test func openIDConfigurationAccepted() async throws {
        let transport = StubTransport { request in
            #expect(request.url?.absoluteString == "https://id.example.com/tenant/.well-known/openid-configuration")
            return .json(Self.document(issuer: "https://id.example.com/tenant"))
        }
        let metadata = try await ProviderDiscovery.discover(issuer: URL(string: "https://id.example.com/tenant")!, transport: transport)
        #expect(metadata.tokenEndpoint.absoluteString == "https://id.example.com/tenant/token")
        #expect(metadata.authorizationResponseIssParameterSupported == true)
    }

    @Test func issuerMismatchRejected() async {
        let transport = StubTransport { _ in .json(Self.document(issuer: "https://evil.example.com")) }
        await #expect(throws: DiscoveryError.issuerMismatch(expected: "https://id.example.com", actual: "https://evil.example.com")) {
            try await ProviderDiscovery.discover(issuer: URL(string: "https://id.example.com")!, transport: transport)
        }
    }

    @Test func issuerPrefixIsNotAMatch() async {
        let transport = StubTransport { _ in .json(Self.document(issuer: "https://id.example.com/other")) }
        await #expect(throws: DiscoveryError.self) {
            try await ProviderDiscovery.discover(issuer: URL(string: "https://id.example.com")!, transport: transport)
        }
    }

    @Test func fallsBackToRFC8414WithPathInsertion() async throws {
        let transport = StubTransport { request in
            if request.url!.path.hasPrefix("/.well-known/oauth-authorization-server") {
                #expect(request.url!.path == "/.well-known/oauth-authorization-server/tenant")
                return .json(Self.document(issuer: "https://as.example.com/tenant"))
            }
            return .json(404, "{}")
        }
        let metadata = try await ProviderDiscovery.discover(issuer: URL(string: "https://as.example.com/tenant")!, transport: transport)
        #expect(metadata.issuer == "https://as.example.com/tenant")
        #expect(transport.requests.count == 2)
    }

    @Test func documentWithoutEndpointsRejected() async {
        let transport = StubTransport { _ in .json(#"{"issuer":"https://id.example.com"}"#) }
        await #expect(throws: DiscoveryError.self) {
            try await ProviderDiscovery.discover(issuer: URL(string: "https://id.example.com")!, document: .openIDConfiguration, transport: transport)
        }
    }
}
