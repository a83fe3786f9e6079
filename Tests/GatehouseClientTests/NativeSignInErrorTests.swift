import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GatehouseClient
import Testing

/// Every refusal Gatehouse documents reaches the app as a typed `GatehouseSignInError`; native Google goes through
/// the app's own Google SDK bridge, and a native provider the app cannot use is an error, never a silent fallback.
@Suite struct NativeSignInErrorTests {
    static let base = URL(string: "https://app.example/auth")!

    @Test func documentedCodesAreSortedIntoWhatTheAppDoes() {
        #expect(GatehouseSignInError(code: "cancelled", description: "You cancelled signing in.") == .cancelled)
        #expect(GatehouseSignInError(code: "account_exists", description: "Sign in to ada@… first.") == .accountExists(message: "Sign in to ada@… first."))
        #expect(GatehouseSignInError(code: "provider_timeout", description: nil)
            == .network(message: "Signing in is unavailable right now. Try again later."))
        #expect(GatehouseSignInError(code: "misconfigured", description: "x") == .misconfigured(code: "misconfigured", message: "x"))
        #expect(GatehouseSignInError(code: "invalid_client", description: "x") == .misconfigured(code: "invalid_client", message: "x"))
        #expect(GatehouseSignInError(code: "unverified_email", description: "y") == .refused(code: "unverified_email", message: "y"))
        // access_denied is the user's Cancel only on the hand-off callback; from /native/* it is a refusal.
        #expect(GatehouseSignInError(code: "access_denied", description: "no", fromCallback: true) == .cancelled)
        #expect(GatehouseSignInError(code: "access_denied", description: "no") == .refused(code: "access_denied", message: "no"))
    }

    @Test func theHandoffCallbacksErrorIsTyped() {
        let callback = URL(string: "myapp://auth-callback?error=account_exists&error_description=An%20account%20exists")!
        do {
            _ = try Handoff.parseCallback(callback)
            Issue.record("an error callback has no token")
        } catch {
            #expect(GatehouseSignInError(error) == .accountExists(message: "An account exists"))
        }
        let denied = URL(string: "myapp://auth-callback?error=access_denied")!
        #expect(throws: HandoffError.self) { try Handoff.parseCallback(denied) }
        do { _ = try Handoff.parseCallback(denied) } catch { #expect(GatehouseSignInError(error) == .cancelled) }
        #expect(GatehouseSignInError(URLError(.notConnectedToInternet)).code == "temporarily_unavailable")
    }

    @Test func messagesAndCodesForThePage() {
        #expect(GatehouseSignInError.cancelled.userMessage == "You closed the sign-in.")
        #expect(GatehouseSignInError.nativeProviderUnavailable(provider: "google").userMessage == "Sign in with Google isn't available in this app.")
        #expect(GatehouseSignInError.nativeProviderUnavailable(provider: "google").code == "unsupported_provider")
        #expect(GatehouseSignInError.accountExists(message: "m").code == "account_exists")
    }

    @Test func nativeProvidersRefuseWhatTheAppCannotDo() throws {
        #expect(throws: GatehouseSignInError.nativeProviderUnavailable(provider: "google")) {
            try NativeProviders(["apple", "google"], hasGoogleProvider: false)
        }
        #expect(throws: GatehouseSignInError.misconfigured(code: "unsupported_provider", message: "github has no native sign-in at Gatehouse (apple, google).")) {
            try NativeProviders(["github"], hasGoogleProvider: true)
        }
        let native = try NativeProviders(["apple", "google"], hasGoogleProvider: true)
        #expect(native.isNative("google") && native.isNative("apple") && !native.isNative("github") && !native.isNative(nil))
    }

    @Test func nativeGoogleRequestBody() throws {
        let request = try NativeGoogleSignInRequest(idToken: "eyJ.g.tok", rawNonce: "raw", app: "demo-native", response: .session)
            .urlRequest(base: Self.base)
        #expect(request.url?.absoluteString == "https://app.example/auth/native/google")
        #expect(request.httpMethod == "POST")
        let body = try #require(JSONSerialization.jsonObject(with: request.httpBody ?? Data()) as? [String: String])
        #expect(body == ["id_token": "eyJ.g.tok", "raw_nonce": "raw", "app": "demo-native", "response": "session"])
    }

    @Test func nativeGoogleRefusalsAreTyped() async throws {
        let exists = StubTransport { _ in .json(409, #"{"error":"account_exists","error_description":"An account with this email exists."}"#) }
        await #expect(throws: GatehouseSignInError.accountExists(message: "An account with this email exists.")) {
            _ = try await NativeGoogleSignInRequest(idToken: "t", rawNonce: "n", app: "a", response: .session).send(base: Self.base, transport: exists)
        }
        let down = StubTransport { _ in throw URLError(.timedOut) }
        do {
            _ = try await NativeGoogleSignInRequest(idToken: "t", rawNonce: "n", app: "a", response: .session).send(base: Self.base, transport: down)
            Issue.record("a timeout is an error")
        } catch let error as GatehouseSignInError {
            guard case .network = error else { Issue.record("expected .network, got \(error)"); return }
        }
        let ok = StubTransport { _ in StubTransport.Reply(status: 200, body: Data("{}".utf8), headers: ["Set-Cookie": "s=1; Path=/"]) }
        let (tokens, response) = try await NativeGoogleSignInRequest(idToken: "t", rawNonce: "n", app: "a", response: .session)
            .send(base: Self.base, transport: ok)
        #expect(tokens == nil && response.statusCode == 200)
        #expect(ok.count(path: "/auth/native/google") == 1)
    }
}
