import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// A registered security key or passkey answering the sign-in's second step instead of a code: the prompt
/// carries WebAuthn options naming the user's credentials, bound to the held challenge (so the assertion
/// answers this sign-in and no other), and the script posts the assertion as a form beside it.
struct SecondStepWebAuthn: Sendable {
    let ceremonies: WebAuthnCeremonies

    static let finishPath = "/sign-in/second-factor/webauthn"

    /// The flow a second-step assertion is bound to: the held challenge it answers.
    static func binding(challenge: String) -> TokenHash { TokenHash(SHA256.hash("second-step:" + challenge)) }

    /// The prompt's "Use a security key or passkey" block, when the user has a WebAuthn credential.
    func block(userID: String, challenge: String, csrf: String, texts t: Texts) async throws -> HTML {
        let credentials = try await ceremonies.credentials(of: userID)
        guard !credentials.isEmpty else { return .empty }
        // The credentials named by id; user verification preferred (a security key without a PIN still proves possession).
        let user = User(id: userID, email: "", emailVerified: true, createdAt: Date())
        let options = try await ceremonies.startAuthentication(user: user, flowBinding: Self.binding(challenge: challenge),
                                                               requireUserVerification: false)
        let json = String(decoding: PasskeyJSON.request(options).jsonBytes, as: UTF8.self)
        return """
            <section id="second-step-webauthn" data-passkey hidden data-options="\(json)" data-finish-url="\(Self.finishPath)"\(PasskeyScreens.scriptWords(t, securityKey: true))>
            \(PageLayout.hidden("csrf_token", csrf))\(PageLayout.hidden("challenge", challenge))
            <button type="button" id="second-step-webauthn-button" class="secondary">\(t["second_step.use_key"])</button>
            <p class="notice error" role="alert" data-passkey-error hidden></p>
            </section>
            \(PasskeyScreens.script)
            """
    }

    /// Checks the posted assertion for the held sign-in's user; the methods it adds (RFC 8176).
    func verify(_ form: URLEncodedForm, challenge: String, userID: String, context: ClientContext) async throws -> [String] {
        let response = try Self.assertion(form)
        let signIn = try await ceremonies.finishAuthentication(flowBinding: Self.binding(challenge: challenge), response: response,
                                                               context: context)
        // The challenge named the user's credentials, and the ceremony checks the owner; checked again here all the same.
        guard signIn.userID == userID else { throw WebAuthnRefusal.unknownCredential }
        return [signIn.credential.backupEligible ? "swk" : "hwk", "user", "mfa"]
    }

    static func assertion(_ form: URLEncodedForm) throws(HTTPError) -> AssertionResponse {
        func bytes(_ name: String) throws(HTTPError) -> [UInt8] {
            guard let text = form[name], text.utf8.count <= 16_384, let value = Base64URL.decode(text) else {
                throw HTTPError(.badRequest, "The security key's answer is incomplete (\(name)).")
            }
            return value
        }
        let handle = form["user_handle"].flatMap { $0.isEmpty ? nil : Base64URL.decode($0) }
        return AssertionResponse(credentialID: try bytes("credential_id"), clientDataJSON: try bytes("client_data_json"),
                                 authenticatorData: try bytes("authenticator_data"), signature: try bytes("signature"), userHandle: handle)
    }
}
