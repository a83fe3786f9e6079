import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The one exchange both native sign-ins make (`/native/apple`, `/native/google`): the provider's credential as
/// JSON in, a session cookie (`.session`) or tokens (`.tokens`) out, an OAuth error body as a refusal.
enum NativeSignInPost {
    static func urlRequest(base: URL, path: String, body: some Encodable) throws -> URLRequest {
        var request = URLRequest(url: base.appendingAbsolutePath(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        request.httpBody = try encoder.encode(body)
        return request
    }

    /// Sends `request`; every failure (transport, refusal, unexpected answer) is thrown as `failure` makes it.
    static func send(_ request: @autoclosure () throws -> URLRequest, answer: NativeAppleSignInRequest.ResponseKind,
                     transport: any HTTPTransport, failure: (any Error) -> any Error) async throws -> (TokenResponse?, HTTPURLResponse) {
        let data: Data, response: HTTPURLResponse
        do { (data, response) = try await transport.send(try request()) } catch { throw failure(error) }
        if let error = OAuthError(jsonBody: data, httpStatus: response.statusCode) { throw failure(error) }
        guard response.isSuccess else { throw failure(HTTPTransportError.unexpectedStatus(response.statusCode, body: data.excerpt)) }
        guard answer == .tokens else { return (nil, response) }
        do { return (try JSONDecoder().decode(TokenResponse.self, from: data), response) }
        catch { throw failure(HTTPTransportError.invalidBody("token response: \(error)")) }
    }
}
