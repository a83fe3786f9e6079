import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseServer
import GatehouseStore
import GatehouseTesting
import GatehouseWebAuthnTesting
import Testing

/// `POST /native/passkey/options` and `POST /native/passkey` in process: the origins iOS and Android write
/// into `clientDataJSON`, both answers (session, tokens), and the attacks — each refused as RFC 6749 JSON
/// with no session written and the refusal audited.
@Suite struct NativePasskeyTests {
    static let app = "passkey-app"
    /// The signing certificate's SHA-256 as Android's tooling prints it, and the origin Credential Manager
    /// reports for it — computed here with Foundation's base64, not the server's encoder.
    static let certificate = (0..<32).map { UInt8(($0 * 37 + 11) & 0xff) }
    static var fingerprint: String { certificate.map { String(format: "%02X", $0) }.joined(separator: ":") }
    static func androidOrigin(_ bytes: [UInt8]) -> String {
        "android:apk-key-hash:" + Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
    static let iosOrigin = "https://127.0.0.1"

    static let registrations = [
        ClientRegistration(id: app, name: "Passkey App", kind: .public, redirectURIs: ["com.example.app:/oauth"], firstParty: true,
                           metadata: #"{"callback_schemes": ["exampleapp"], "apple_app_ids": ["ABCDE12345.com.example.app"], "package_names": ["com.example.app"], "android_cert_fingerprints": ["\#(fingerprint)"]}"#),
        ClientRegistration(id: "other-app", name: "Other App", kind: .public, redirectURIs: ["com.example.other:/oauth"], firstParty: true,
                           metadata: #"{"callback_schemes": ["otherapp"], "apple_app_ids": ["ABCDE12345.com.example.other"]}"#),
        ClientRegistration(id: "no-passkeys", name: "Plain App", kind: .public, redirectURIs: ["com.example.plain:/oauth"],
                           metadata: #"{"callback_schemes": ["plainapp"]}"#),
    ]

    /// The apps in the configuration (which the association files are built from) and in the client store
    /// (which the serve command fills from the configuration at start-up).
    static func gatehouse() async throws -> TestGatehouse {
        let gatehouse = try await TestGatehouse.make { configuration in
            configuration.clients += registrations.map { ConfiguredClient(registration: $0, secret: nil) }
        }
        for registration in registrations { _ = try await gatehouse.app.services.tokens.registry.register(registration) }
        return gatehouse
    }

    /// One member of an audit entry's details (a JSON object).
    static func detail(_ record: AuditRecord, _ key: String) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(record.event.details.utf8)) as? [String: Any])?[key] as? String
    }

    static func json(_ response: TestResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    static func post(_ client: BrowserLikeClient, _ path: String, _ fields: [String: String],
                     headers: HTTPHeaders = ["Content-Type": "application/json"]) async throws -> TestResponse {
        try await client.send(.post, path, headers: headers, body: Array(try JSONSerialization.data(withJSONObject: fields)))
    }

    /// The options an app asks for: the ceremony secret and the challenge.
    static func options(_ client: BrowserLikeClient, app: String = app) async throws -> (ceremony: String, challenge: [UInt8]) {
        let response = try await post(client, "/native/passkey/options", ["app": app])
        #expect(response.status == 200, "\(response.text)")
        #expect(response.headers["Cache-Control"]?.contains("no-store") == true)
        let body = try json(response)
        let options = try #require(body["publicKey"] as? [String: Any])
        #expect(options["rpId"] as? String == "127.0.0.1")
        #expect(options["userVerification"] as? String == "required")
        #expect((options["allowCredentials"] as? [Any])?.isEmpty == true)
        return (try #require(body["ceremony"] as? String), try #require(Base64URL.decode(options["challenge"] as? String ?? "")))
    }

    static func fields(_ assertion: AssertionResponse, ceremony: String, app: String = app, response: String = "session") -> [String: String] {
        ["app": app, "ceremony": ceremony, "response": response, "credential_id": Base64URL.encode(assertion.credentialID),
         "client_data_json": Base64URL.encode(assertion.clientDataJSON), "authenticator_data": Base64URL.encode(assertion.authenticatorData),
         "signature": Base64URL.encode(assertion.signature), "user_handle": assertion.userHandle.map { Base64URL.encode($0) } ?? ""]
    }

    /// A user with a passkey added on the web, signed out: the app's screen signs them in.
    static func userWithPasskey(_ gatehouse: TestGatehouse, email: String = "ada@example.com") async throws -> SoftwareAuthenticator {
        let browser = try await gatehouse.signedUpBrowser(email: email)
        return try await PasskeyRouteTests().addPasskey(browser)
    }

    @Test func iOSAssertionSignsInWithASessionForTheWebView() async throws {
        let gatehouse = try await Self.gatehouse()
        let authenticator = try await Self.userWithPasskey(gatehouse)
        let app = gatehouse.browser()
        let (ceremony, challenge) = try await Self.options(app)
        let assertion = try authenticator.assert(challenge: challenge, origin: Self.iosOrigin)
        let answer = try await Self.post(app, "/native/passkey", Self.fields(assertion, ceremony: ceremony))
        #expect(answer.status == 200, "\(answer.text)")
        #expect(try Self.json(answer)["email"] as? String == "ada@example.com")
        #expect(answer.headers["Set-Cookie"]?.contains("gatehouse_session=") == true)
        let status = try await app.get("/native/session")
        #expect(status.status == 200 && status.text.contains("ada@example.com"))
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        let sessions = try await gatehouse.database.sessions.list(userId: user.id, now: gatehouse.clock.now)
        #expect(sessions.filter { $0.authMethods == ["hwk", "user", "mfa"] }.count == 1, "the app's passkey session beside the web's password one")
        let audit = try await gatehouse.database.auditLog.list(userId: user.id, limit: 50)
        #expect(audit.contains { $0.event.type == "sign_in.succeeded" && Self.detail($0, "via") == "native_passkey" })
    }

    @Test func androidAssertionSignsInWithTokens() async throws {
        let gatehouse = try await Self.gatehouse()
        let authenticator = try await Self.userWithPasskey(gatehouse)
        let app = BrowserLikeClient(InProcessClient(gatehouse.app.pipeline))
        let (ceremony, challenge) = try await Self.options(app)
        let assertion = try authenticator.assert(challenge: challenge, origin: Self.androidOrigin(Self.certificate))
        let answer = try await Self.post(app, "/native/passkey", Self.fields(assertion, ceremony: ceremony, response: "tokens"))
        #expect(answer.status == 200, "\(answer.text)")
        let body = try Self.json(answer)
        #expect(body["access_token"] is String && body["token_type"] as? String != nil)
        #expect(answer.headers["Set-Cookie"] == nil)
        let idToken = try #require(body["id_token"] as? String)
        guard case .object(let claims)? = JSONValue(parsing: try CompactJWS(idToken).payload) else { Issue.record("claims"); return }
        #expect(claims["amr"] == .array([.string("hwk"), .string("user"), .string("mfa")]))
    }

    /// RFC 9449 at the passkey endpoint too: `response=tokens` with a proof gives tokens bound to its key (the
    /// refresh family as well); a proof for another URI is refused before the assertion is spent, so the same
    /// ceremony still signs in afterwards.
    @Test func passkeyTokensAreBoundToTheDPoPProofsKey() async throws {
        let gatehouse = try await Self.gatehouse()
        let authenticator = try await Self.userWithPasskey(gatehouse)
        let app = BrowserLikeClient(InProcessClient(gatehouse.app.pipeline))
        let key = try DPoPTestKey()
        let issuer = gatehouse.app.configuration.oauth.issuer
        let (ceremony, challenge) = try await Self.options(app)
        let assertion = try authenticator.assert(challenge: challenge, origin: Self.androidOrigin(Self.certificate))
        var fields = Self.fields(assertion, ceremony: ceremony, response: "tokens")
        fields["scope"] = "openid email offline_access"

        let wrongURI = try await Self.post(app, "/native/passkey", fields, headers: [
            "Content-Type": "application/json", "DPoP": key.proof("POST", issuer + "/oauth/token", iat: gatehouse.clock.now)])
        let refusal = try Self.json(wrongURI)["error"] as? String
        #expect(wrongURI.status == 400 && refusal == "invalid_dpop_proof", "\(wrongURI.text)")

        let answer = try await Self.post(app, "/native/passkey", fields, headers: [
            "Content-Type": "application/json", "DPoP": key.proof("POST", issuer + "/native/passkey", iat: gatehouse.clock.now)])
        #expect(answer.status == 200, "the refused proof left the ceremony usable: \(answer.text)")
        let body = try Self.json(answer)
        #expect(body["token_type"] as? String == "DPoP")
        let access = try #require(body["access_token"] as? String)
        let claims = try #require(try await gatehouse.app.services.tokens.validator.verifiedUnexpired(access))
        #expect(claims.confirmationJKT == key.thumbprint)
        let refresh = try #require(body["refresh_token"] as? String)
        #expect(try await gatehouse.database.refreshTokens.find(hash: RefreshTokenValue.storageHash(of: refresh))?.dpopJKT == key.thumbprint)
        let stolen = try await app.post("/oauth/token", [("grant_type", "refresh_token"), ("refresh_token", refresh), ("client_id", Self.app)])
        #expect(stolen.status == 400, "the family needs the key: \(stolen.text)")
    }

    /// The association files name the registered app for credentials: iOS `webcredentials.apps`, Android
    /// `delegate_permission/common.get_login_creds` beside `handle_all_urls`, with the package and the fingerprint.
    @Test func theServedAssociationFilesNameTheAppForPasskeys() async throws {
        let gatehouse = try await Self.gatehouse()
        let apple = try await gatehouse.browser().get("/.well-known/apple-app-site-association")
        #expect(apple.status == 200 && apple.headers["Content-Type"]?.hasPrefix("application/json") == true)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(apple.body)) as? [String: Any])
        let apps = try #require((document["webcredentials"] as? [String: Any])?["apps"] as? [String])
        #expect(apps.contains("ABCDE12345.com.example.app") && apps.contains("ABCDE12345.com.example.other"))
        let android = try await gatehouse.browser().get("/.well-known/assetlinks.json")
        #expect(android.status == 200)
        let statements = try #require(try JSONSerialization.jsonObject(with: Data(android.body)) as? [[String: Any]])
        let statement = try #require(statements.first { ($0["target"] as? [String: Any])?["package_name"] as? String == "com.example.app" })
        #expect(Set(statement["relation"] as? [String] ?? []) == ["delegate_permission/common.handle_all_urls",
                                                                   "delegate_permission/common.get_login_creds"])
        #expect((statement["target"] as? [String: Any])?["sha256_cert_fingerprints"] as? [String] == [Self.fingerprint])
    }

    @Test func formBodiesWorkAndTheWrongMediaTypeIsRefused() async throws {
        let gatehouse = try await Self.gatehouse()
        let app = gatehouse.browser()
        let form = try await app.post("/native/passkey/options", [("app", Self.app)])
        #expect(try form.status == 200 && (Self.json(form)["ceremony"] as? String)?.utf8.count == 43)
        let text = try await app.send(.post, "/native/passkey/options", headers: ["Content-Type": "text/plain"], body: Array("app".utf8))
        #expect(try text.status == 415 && (Self.json(text)["error"] as? String) == "invalid_request")
    }

    enum Attack: String, CaseIterable, Sendable {
        case replayed, webOrigin, unregisteredCertificate, originOfAnotherApp, wrongRPID, noUserPresence,
             noUserVerification, counterRegression, anotherUsersHandle, challengeFromTheWeb, challengeOfAnotherApp, wrongCeremony,
             foreignOriginHeader, unknownApp, malformedField, appWithoutPasskeyOrigins
    }

    @Test(arguments: Attack.allCases)
    func attacksAreRefusedAndSignNobodyIn(_ attack: Attack) async throws {
        let gatehouse = try await Self.gatehouse()
        let authenticator = try await Self.userWithPasskey(gatehouse)
        let user = try #require(try await gatehouse.database.users.find(email: "ada@example.com"))
        let sessionsBefore = try await gatehouse.database.sessions.list(userId: user.id, now: gatehouse.clock.now).count
        let app = gatehouse.browser()
        var (ceremony, challenge) = try await Self.options(app)
        var origin = Self.iosOrigin
        var appID = Self.app
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        var userHandle: [UInt8]?? = nil
        var signCount: UInt32?
        var expected = (status: 400, error: "invalid_grant", reason: Optional<String>.none)
        switch attack {
        case .replayed:
            let first = try authenticator.assert(challenge: challenge, origin: origin)
            #expect(try await Self.post(app, "/native/passkey", Self.fields(first, ceremony: ceremony)).status == 200)
            let replay = try await Self.post(app, "/native/passkey", Self.fields(first, ceremony: ceremony))
            #expect(try replay.status == 400 && (Self.json(replay)["error"] as? String) == "invalid_grant")
            #expect(try await gatehouse.database.sessions.list(userId: user.id, now: gatehouse.clock.now).count == sessionsBefore + 1)
            return
        case .webOrigin: origin = "http://127.0.0.1:8080"; expected.reason = "wrong_origin"
        case .unregisteredCertificate: origin = Self.androidOrigin(SecureRandom.bytes(32)); expected.reason = "wrong_origin"
        case .originOfAnotherApp:
            // "other-app" registers no Android certificate: Credential Manager's origin for this one is not its.
            appID = "other-app"
            origin = Self.androidOrigin(Self.certificate)
            (ceremony, challenge) = try await Self.options(app, app: appID)
            expected.reason = "wrong_origin"
        case .wrongRPID: authenticator.rpID = "evil.example"; expected.reason = "wrong_rp_id"
        case .noUserPresence: authenticator.flags = AuthenticatorData.flagUV; expected.reason = "user_not_present"
        case .noUserVerification: authenticator.flags = AuthenticatorData.flagUP; expected.reason = "user_not_verified"
        case .counterRegression: signCount = 1; expected.reason = "sign_count_regression"
        case .anotherUsersHandle:
            let other = try await Self.userWithPasskey(gatehouse, email: "eve@example.com")
            userHandle = .some(other.credentials[0].userHandle)
            expected.reason = "unknown_credential"
        case .challengeFromTheWeb:
            let page = try await app.get("/sign-in")
            let csrf = try #require(BrowserLikeClient.hiddenField("csrf_token", in: page.text))
            let web = try Self.json(try await app.post("/passkeys/sign-in/options", [("csrf_token", csrf)]))
            challenge = try #require(Base64URL.decode((web["publicKey"] as? [String: Any])?["challenge"] as? String ?? ""))
            expected.reason = "unknown_challenge"
        case .challengeOfAnotherApp:
            (ceremony, challenge) = try await Self.options(app, app: "other-app")
            expected.reason = "unknown_challenge"
        case .wrongCeremony: ceremony = SecureRandom.token(); expected.reason = "unknown_challenge"
        case .foreignOriginHeader: headers.set("Origin", "https://evil.example"); expected = (403, "invalid_request", nil)
        case .unknownApp: appID = "nobody"; expected = (400, "invalid_client", nil)
        case .malformedField: expected = (400, "invalid_request", nil)
        case .appWithoutPasskeyOrigins:
            let refused = try await Self.post(app, "/native/passkey/options", ["app": "no-passkeys"])
            #expect(try refused.status == 400 && (Self.json(refused)["error"] as? String) == "unauthorized_client")
            return
        }
        // Counter regression: a first sign-in moves the stored counter forward, then an older count comes.
        if attack == .counterRegression {
            let first = try authenticator.assert(challenge: challenge, origin: origin, signCount: 5)
            #expect(try await Self.post(app, "/native/passkey", Self.fields(first, ceremony: ceremony)).status == 200)
            (ceremony, challenge) = try await Self.options(app)
        }
        let assertion = try authenticator.assert(challenge: challenge, origin: origin, signCount: signCount, userHandle: userHandle)
        var fields = Self.fields(assertion, ceremony: ceremony, app: appID)
        if attack == .malformedField { fields["signature"] = "not base64url!" }
        let before = try await gatehouse.database.sessions.list(userId: user.id, now: gatehouse.clock.now).count
        let refused = try await Self.post(app, "/native/passkey", fields, headers: headers)
        #expect(refused.status == expected.status, "\(attack): \(refused.text)")
        #expect(try Self.json(refused)["error"] as? String == expected.error, "\(attack)")
        #expect(try Self.json(refused)["error_description"] is String)
        #expect(refused.headers["Set-Cookie"] == nil)
        #expect(try await gatehouse.database.sessions.list(userId: user.id, now: gatehouse.clock.now).count == before, "\(attack)")
        if let reason = expected.reason {
            // Refusals before the credential is known (an unknown challenge) name no user: search by type.
            let audit = try await gatehouse.database.auditLog.search(AuditQuery(types: ["passkey.sign_in_failed"]))
            #expect(audit.contains { $0.event.type == "passkey.sign_in_failed" && Self.detail($0, "reason") == reason }, "\(attack)")
        }
        // Whatever was refused, the challenge is spent: the genuine assertion for it fails too.
        if expected.reason != nil, attack != .challengeFromTheWeb, attack != .challengeOfAnotherApp, attack != .wrongCeremony {
            authenticator.rpID = "127.0.0.1"
            authenticator.flags = AuthenticatorData.flagUP | AuthenticatorData.flagUV
            let genuine = try authenticator.assert(challenge: challenge, origin: Self.iosOrigin)
            #expect(try await Self.post(app, "/native/passkey", Self.fields(genuine, ceremony: ceremony)).status == 400, "\(attack)")
        }
    }
}
