import Foundation
import Testing
@testable import GatehouseCrypto
#if canImport(Glibc)
import Glibc
#endif

/// A one-thread loopback HTTP/1.1 server with canned responses by path, enough to exercise the
/// real URLSession fetcher (status, headers, redirects) without any network.
final class CannedHTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32

    init(responses: [String: String]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw URLError(.cannotConnectToHost) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { close(fd); throw URLError(.cannotConnectToHost) }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }   // listener closed
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = read(client, &buffer, buffer.count)
                let request = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
                let path = request.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
                let response = responses[path] ?? "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                _ = Array(response.utf8).withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
                close(client)
            }
        }
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    static func response(status: String = "200 OK", headers: [String] = [], body: String = "") -> String {
        (["HTTP/1.1 \(status)", "Content-Length: \(body.utf8.count)", "Connection: close"] + headers)
            .joined(separator: "\r\n") + "\r\n\r\n" + body
    }
}

@Suite(.serialized) struct URLSessionJWKSFetcherTests {
    @Test func fetchesBodyAndMaxAgeAndRefusesRedirects() async throws {
        let key = try SigningKey.generate()
        let jwks = String(decoding: JWKSet(keys: [key.publicJWK]).jsonData(), as: UTF8.self)
        let server = try CannedHTTPServer(responses: [
            "/jwks": CannedHTTPServer.response(headers: ["Content-Type: application/json", "Cache-Control: public, max-age=21600"], body: jwks),
            "/moved": CannedHTTPServer.response(status: "302 Found", headers: ["Location: /jwks"]),
            "/broken": CannedHTTPServer.response(status: "500 Internal Server Error"),
        ])
        defer { server.stop() }
        // Generous: a timeout racing the redirect callback trips a FoundationNetworking assertion on a loaded machine.
        let fetcher = URLSessionJWKSFetcher(timeoutSeconds: 15)

        let (body, maxAge) = try await fetcher.fetch(server.url("/jwks"))
        #expect(maxAge == 21600)
        #expect(try JWKSet(json: body).keys.first?.keyID == key.keyID)

        // The redirect is not followed: the 302 itself comes back and is refused.
        await #expect(throws: URLSessionJWKSFetcher.FetchError.httpStatus(302)) { try await fetcher.fetch(server.url("/moved")) }
        await #expect(throws: URLSessionJWKSFetcher.FetchError.httpStatus(500)) { try await fetcher.fetch(server.url("/broken")) }

        // End to end through RemoteJWKS.
        let remote = RemoteJWKS(url: server.url("/jwks"), fetcher: fetcher)
        #expect(try await remote.key(for: key.keyID, algorithm: .es256).keyID == key.keyID)
    }
}
