import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// Passkeys on the web: sign-in (the button and conditional mediation) and the account page's add,
/// rename and remove. The ceremonies' options and answers are form POSTs carrying the page's CSRF
/// token and answered with JSON; every challenge is bound to the browser's CSRF binding (its
/// pre-session cookie or its session), so only the browser that asked can answer it.
struct PasskeyRoutes: Sendable {
    let context: PageContext
    let ceremonies: WebAuthnCeremonies
    /// How recent the session's sign-in must be to change passkeys (the account deletion's window).
    let recentSignInWindow: TimeInterval

    var reader: WebSessionReader { context.reader }

    static let reauthPath = "/sign-in?reauth=1&return_to=%2Faccount"

    func register(into router: inout Router) {
        router.post("/passkeys/sign-in/options") { request async throws in
            try await json {
                let (_, web) = try await reader.postedForm(request)
                let options = try await ceremonies.startAuthentication(user: nil, flowBinding: binding(web))
                return .json(bytes: PasskeyJSON.request(options).jsonBytes)
            }
        }
        router.post("/passkeys/sign-in") { request async throws in
            try await json {
                let (form, web) = try await reader.postedForm(request)
                let response = try assertion(form)
                let signIn: PasskeySignIn
                do {
                    signIn = try await ceremonies.finishAuthentication(flowBinding: binding(web), response: response, context: request.clientContext)
                } catch let refusal as WebAuthnRefusal {
                    return Self.refused(refusal, web.texts)
                }
                // A new session id at every sign-in; any session the browser had is ended.
                if let old = web.token { try await context.sessions.end(token: old) }
                let issued = try await context.sessions.start(userId: signIn.userID, methods: Self.methods(signIn), context: request.clientContext)
                await context.audit.record(.signInSucceeded, userId: signIn.userID, context: request.clientContext,
                                           details: ["method": "passkey", "credential": Base64URL.encode(signIn.credential.credentialID)])
                let target = ReturnPath.validated(form["return_to"]) ?? ReturnPath.fallback
                var answer = Response.json(bytes: JSONValue.object(["redirect": .string(target)]).jsonBytes)
                answer.setCookie(reader.cookies.sessionCookie(token: issued.token))
                return answer
            }
        }
        router.post("/account/passkeys/options") { request async throws in
            try await json {
                let (_, web, active) = try await reader.signedInForm(request)
                guard isRecent(active) else { return Self.reauthRequired(web.texts) }
                let options = try await ceremonies.startRegistration(user: active.user, flowBinding: binding(web))
                return .json(bytes: PasskeyJSON.creation(options).jsonBytes)
            }
        }
        router.post("/account/passkeys") { request async throws in
            try await json {
                let (form, web, active) = try await reader.signedInForm(request)
                guard isRecent(active) else { return Self.reauthRequired(web.texts) }
                let response = RegistrationResponse(
                    credentialID: try bytes(form, "credential_id"), clientDataJSON: try bytes(form, "client_data_json"),
                    attestationObject: try bytes(form, "attestation_object"),
                    transports: (form["transports"] ?? "").split(separator: " ").map(String.init))
                do {
                    _ = try await ceremonies.finishRegistration(userID: active.user.id, flowBinding: binding(web), response: response,
                                                                name: form["name"] ?? "", context: request.clientContext)
                } catch let refusal as WebAuthnRefusal {
                    return Self.refused(refusal, web.texts)
                }
                return .json(bytes: JSONValue.object(["redirect": .string("/account?notice=passkey-added")]).jsonBytes)
            }
        }
        router.post("/account/passkeys/{id}/rename") { request async throws in
            let (form, _, active) = try await reader.signedInForm(request)
            guard isRecent(active) else { return .redirect(to: Self.reauthPath) }
            let id = try credentialID(request)
            let name = WebAuthnCeremonies.cleanName(form["name"] ?? "")
            guard try await ceremonies.rename(credentialID: id, userID: active.user.id, name: name) else {
                throw HTTPError(.notFound, "There is no such passkey on your account.")
            }
            await context.audit.record(.passkeyRenamed, userId: active.user.id, context: request.clientContext,
                                       details: ["credential": Base64URL.encode(id)])
            return .redirect(to: "/account?notice=passkey-renamed")
        }
        router.post("/account/passkeys/{id}/delete") { request async throws in
            let (_, web, active) = try await reader.signedInForm(request)
            guard isRecent(active) else { return .redirect(to: Self.reauthPath) }
            let id = try credentialID(request)
            switch try await ceremonies.remove(credentialID: id, userID: active.user.id) {
            case .notFound:
                throw HTTPError(.notFound, "There is no such passkey on your account.")
            case .lastMethod:
                return try await context.accountPage(web: web, active: active, error: AccountError.lastSignInMethod.text(web.texts), status: .conflict)
            case .lastSecondFactor:
                return try await context.accountPage(web: web, active: active, error: SecondFactorRefusal.lastFactor.text(web.texts),
                                                     status: .conflict)
            case .deleted:
                await context.audit.record(.passkeyRemoved, userId: active.user.id, context: request.clientContext,
                                           details: ["credential": Base64URL.encode(id)])
                return .redirect(to: "/account?notice=passkey-removed")
            }
        }
    }

    /// RFC 8176 methods of a passkey sign-in: `swk` for a synced (software-held) key, `hwk` for a
    /// device-bound one, `user` for the presence test, and `mfa` when the authenticator verified the user.
    static func methods(_ signIn: PasskeySignIn) -> [String] {
        [signIn.credential.backupEligible ? "swk" : "hwk", "user"] + (signIn.userVerified ? ["mfa"] : [])
    }

    func binding(_ web: WebSession) -> TokenHash { TokenHash(SHA256.hash(web.csrfBinding)) }

    func isRecent(_ active: ActiveSession) -> Bool {
        context.clock.now().timeIntervalSince(active.session.createdAt) < recentSignInWindow
    }

    func credentialID(_ request: Request) throws(HTTPError) -> [UInt8] {
        guard let text = request.pathParameters["id"], text.utf8.count <= 1400, let id = Base64URL.decode(text), !id.isEmpty else {
            throw HTTPError(.badRequest, "That is not a passkey id.")
        }
        return id
    }

    func bytes(_ form: URLEncodedForm, _ name: String) throws(HTTPError) -> [UInt8] {
        guard let text = form[name], text.utf8.count <= 16_384, let value = Base64URL.decode(text) else {
            throw HTTPError(.badRequest, "The passkey answer is incomplete (\(name)).")
        }
        return value
    }

    func assertion(_ form: URLEncodedForm) throws(HTTPError) -> AssertionResponse {
        let handle = form["user_handle"].flatMap { $0.isEmpty ? nil : Base64URL.decode($0) }
        return AssertionResponse(credentialID: try bytes(form, "credential_id"), clientDataJSON: try bytes(form, "client_data_json"),
                                 authenticatorData: try bytes(form, "authenticator_data"), signature: try bytes(form, "signature"),
                                 userHandle: handle)
    }

    static func error(_ message: String, status: HTTPStatus) -> Response {
        return Response.json(bytes: JSONValue.object(["error": .string(message)]).jsonBytes, status: status)
    }

    /// The script shows `error` as it is: in the page's language.
    static func refused(_ refusal: WebAuthnRefusal, _ t: Texts) -> Response {
        error(t[refusal == .signCountRegression ? "passkeys.copied" : "passkeys.not_accepted"], status: .badRequest)
    }

    static func reauthRequired(_ t: Texts) -> Response {
        var response = error(AccountError.reauthenticationRequired.text(t), status: .forbidden)
        response.headers.set("Location", reauthPath)
        return response
    }

    /// JSON answers for the script: an HTTP error (bad CSRF token, ended session, malformed field) becomes
    /// `{"error": …}` with its status instead of an HTML page.
    func json(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as HTTPError {
            return Self.error(error.publicMessage, status: error.status)
        }
    }
}
