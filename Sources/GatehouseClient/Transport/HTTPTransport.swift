import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends one HTTP request. Everything the SDK says over the network goes through this, so
/// tests inject canned responses and apps can add logging, pinning or a custom session.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the body and response. Non-2xx statuses are *not* errors
    /// here: OAuth endpoints put meaning in 400/401 bodies, which callers must read.
    func send(_ request: URLRequest) async throws -> (Data, HTTPURLResponse)
}

/// Failures below the OAuth layer: a non-HTTP response, an unexpected status, a body that
/// does not parse.
public enum HTTPTransportError: Error, Equatable, Sendable {
    /// The response was not an `HTTPURLResponse`.
    case notHTTP
    /// The server answered with a status the caller did not expect, and no OAuth error body.
    case unexpectedStatus(Int, body: String)
    /// The body was not the JSON document expected.
    case invalidBody(String)
}

extension HTTPURLResponse {
    var isSuccess: Bool { (200..<300).contains(statusCode) }
}

extension Data {
    /// A short, printable excerpt for error messages (never the whole body: it may hold tokens).
    var excerpt: String {
        String(decoding: prefix(200), as: UTF8.self)
    }
}
