import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import GatehouseClientOpenSSL
import GatehouseTesting
import Testing

/// The SDK's DPoP proofs, checked by an independent verifier (Python's `cryptography`, e2e/dpop_client.py),
/// and the transport's nonce retry.
@Suite struct DPoPSDKTests {
    /// The independent verifier (`GatehouseTesting`) over `(proof, method, url, access token)`; one result a proof.
    static func verify(_ requests: [[String: String]]) throws -> [[String: Any]] { try IndependentDPoPVerifier.verify(requests) }

    @Test func proofsVerifyIndependentlyAndNameTheRequest() throws {
        let key = try SoftwareDPoPKey()
        let proofs = DPoPProofs(key: key)
        let url = URL(string: "https://id.example.com/oauth/userinfo?x=1#frag")!
        let good = try proofs.proof(method: "get", url: url, accessToken: "at-123", nonce: "n-1", now: Date())
        let tampered = good.dropLast(4) + "AAAA"
        let results = try Self.verify([
            ["proof": good, "method": "GET", "url": "https://id.example.com/oauth/userinfo", "access_token": "at-123"],
            ["proof": String(tampered), "method": "GET", "url": "https://id.example.com/oauth/userinfo"],
            ["proof": good, "method": "POST", "url": "https://id.example.com/oauth/userinfo"],
            ["proof": good, "method": "GET", "url": "https://id.example.com/oauth/userinfo", "access_token": "other"],
        ])
        #expect(results.count == 4)
        #expect(results[0]["ok"] as? Bool == true)
        #expect(results[0]["jkt"] as? String == key.thumbprint)
        #expect((results[0]["claims"] as? [String: Any])?["nonce"] as? String == "n-1")
        #expect(results.dropFirst().allSatisfy { $0["ok"] as? Bool == false })
        // The key survives being stored with the tokens.
        let restored = try SoftwareDPoPKey(privateJWKData: key.privateJWKData)
        #expect(restored.thumbprint == key.thumbprint)
    }

    /// Answers `use_dpop_nonce` once, then 200; records what it was sent.
    actor NonceServer: HTTPTransport {
        var seen: [URLRequest] = []
        nonisolated func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) { try await record(request) }
        private func record(_ request: URLRequest) throws -> (Data, HTTPURLResponse) {
            seen.append(request)
            let first = seen.count == 1
            let response = HTTPURLResponse(url: request.url!, statusCode: first ? 401 : 200, httpVersion: "HTTP/1.1",
                                           headerFields: first ? ["DPoP-Nonce": "server-nonce",
                                                                  "WWW-Authenticate": #"DPoP error="use_dpop_nonce""#] : [:])!
            return (Data((first ? "" : #"{"sub":"u"}"#).utf8), response)
        }
    }

    @Test func theTransportProvesEveryRequestAndRetriesOnceWithTheServersNonce() async throws {
        let server = NonceServer()
        let transport = DPoPTransport(key: try SoftwareDPoPKey(), base: server)
        var request = URLRequest(url: URL(string: "https://id.example.com/oauth/userinfo")!)
        request.setValue("Bearer at-xyz", forHTTPHeaderField: "Authorization")
        let (_, response) = try await transport.send(request)
        #expect(response.statusCode == 200)
        let seen = await server.seen
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0.value(forHTTPHeaderField: "Authorization") == "DPoP at-xyz" })
        let proofs = seen.compactMap { $0.value(forHTTPHeaderField: "DPoP") }
        #expect(proofs.count == 2 && proofs[0] != proofs[1])
        let checked = try Self.verify(proofs.map { ["proof": $0, "method": "GET", "url": "https://id.example.com/oauth/userinfo",
                                                     "access_token": "at-xyz"] })
        #expect(checked.allSatisfy { $0["ok"] as? Bool == true })
        #expect((checked[0]["claims"] as? [String: Any])?["nonce"] == nil)
        #expect((checked[1]["claims"] as? [String: Any])?["nonce"] as? String == "server-nonce")
        #expect(await transport.currentNonce(for: URL(string: "https://id.example.com/")!) == "server-nonce")
    }
}
