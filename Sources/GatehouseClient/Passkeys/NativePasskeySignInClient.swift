import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Passkey sign-in from the app's own screen: `POST {base}/native/passkey/options`, the platform ceremony
/// (``PasskeyAssertionProvider``), then `POST {base}/native/passkey`. Answers like `/native/apple`: tokens
/// (`.tokens`) or a `Set-Cookie` session for the web view (`.session`, then continue the pending authorize).
///
/// The app must be registered at Gatehouse with `apple_app_ids` (iOS, with the `webcredentials:<rp id>`
/// associated domain) or `package_names` + `android_cert_fingerprints` (Android): the origin the platform
/// writes into the assertion is checked against them.
public struct NativePasskeySignInClient: Sendable {
    /// Gatehouse's base URL (its issuer).
    public let base: URL
    /// The app's client id at Gatehouse.
    public let app: String
    public let transport: any HTTPTransport

    public init(base: URL, app: String, transport: any HTTPTransport = URLSessionTransport()) {
        self.base = base
        self.app = app
        self.transport = transport
    }

    /// Runs the whole sign-in. Returns the token response for `.tokens` (nil for `.session`) and Gatehouse's
    /// HTTP response (whose `Set-Cookie` a Hotwire app copies into the web view). Refusals throw
    /// `GatehouseSignInError` (`.refused(code: "invalid_grant", …)` for an assertion Gatehouse did not accept).
    public func signIn(with provider: any PasskeyAssertionProvider, response: NativeAppleSignInRequest.ResponseKind = .tokens,
                       scope: String? = nil) async throws -> (TokenResponse?, HTTPURLResponse) {
        let (ceremony, request) = try await options()
        let assertion: PasskeyAssertion
        do { assertion = try await provider.assertion(for: request) } catch { throw GatehouseSignInError(error) }
        var fields = ["app": app, "ceremony": ceremony, "response": response.rawValue,
                      "credential_id": Base64URL.encode(assertion.credentialID), "client_data_json": Base64URL.encode(assertion.clientDataJSON),
                      "authenticator_data": Base64URL.encode(assertion.authenticatorData), "signature": Base64URL.encode(assertion.signature)]
        if let handle = assertion.userHandle { fields["user_handle"] = Base64URL.encode(handle) }
        if let scope { fields["scope"] = scope }
        let (data, http) = try await post("/native/passkey", fields)
        guard response == .tokens else { return (nil, http) }
        do { return (try JSONDecoder().decode(TokenResponse.self, from: data), http) }
        catch { throw GatehouseSignInError(HTTPTransportError.invalidBody("token response: \(error)")) }
    }

    /// `POST /native/passkey/options`: the ceremony secret and what to ask the platform for.
    public func options() async throws -> (ceremony: String, request: PasskeyAssertionRequest) {
        let (data, _) = try await post("/native/passkey/options", ["app": app])
        guard case .object(let body)? = try? JSONDecoder().decode(JSONValue.self, from: data),
              case .string(let ceremony)? = body["ceremony"], case .object(let options)? = body["publicKey"],
              case .string(let challengeText)? = options["challenge"], let challenge = Base64URL.decode(challengeText),
              case .string(let rpID)? = options["rpId"] else {
            throw GatehouseSignInError(HTTPTransportError.invalidBody("passkey options"))
        }
        var userVerification = "required"
        if case .string(let value)? = options["userVerification"] { userVerification = value }
        var timeout: TimeInterval = 300
        if case .number(let milliseconds)? = options["timeout"] { timeout = milliseconds / 1000 }
        return (ceremony, PasskeyAssertionRequest(challenge: challenge, relyingPartyID: rpID, userVerification: userVerification, timeout: timeout))
    }

    private func post(_ path: String, _ fields: [String: String]) async throws -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: base.appendingAbsolutePath(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        request.httpBody = try encoder.encode(fields)
        let data: Data, response: HTTPURLResponse
        do { (data, response) = try await transport.send(request) } catch { throw GatehouseSignInError(error) }
        if let error = OAuthError(jsonBody: data, httpStatus: response.statusCode) { throw GatehouseSignInError(error) }
        guard response.isSuccess else { throw GatehouseSignInError(HTTPTransportError.unexpectedStatus(response.statusCode, body: data.excerpt)) }
        return (data, response)
    }
}
