import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseIdentity
import GatehouseStore

/// Sign-up with a passkey and no password, from the sign-up page's second form (the page script runs the
/// ceremony; both steps are form POSTs with the page's CSRF token, answered with JSON):
/// - `POST /sign-up/passkey/options` (`email`, `name`): the options for `navigator.credentials.create()`,
///   the challenge bound to this browser and this address;
/// - `POST /sign-up/passkey` (`email`, `name`, `credential_id`, `client_data_json`, `attestation_object`,
///   `transports`): `{"redirect": "/sign-up/check-email"}` — the same answer whether or not the address had an
///   account; its owner learns which by mail, exactly as with a password sign-up. Nobody is signed in.
struct PasskeySignUpRoutes: Sendable {
    let context: PageContext
    let signUp: PasskeySignUp
    let links: EmailLinks

    var reader: WebSessionReader { context.reader }

    func register(into router: inout Router) {
        router.post("/sign-up/passkey/options") { request async throws in
            try await answer {
                let (form, web) = try await reader.postedForm(request)
                let options = try await signUp.start(email: try field(form, "email", max: 320), displayName: try field(form, "name", max: 200),
                                                     browserBinding: Array(web.csrfBinding.utf8), context: request.clientContext)
                return .json(bytes: PasskeyJSON.creation(options).jsonBytes)
            }
        }
        router.post("/sign-up/passkey") { request async throws in
            try await answer {
                let (form, web) = try await reader.postedForm(request)
                let response = RegistrationResponse(
                    credentialID: try bytes(form, "credential_id"), clientDataJSON: try bytes(form, "client_data_json"),
                    attestationObject: try bytes(form, "attestation_object"),
                    transports: (form["transports"] ?? "").split(separator: " ").map(String.init))
                let outcome: AccountService.SignUpOutcome
                do {
                    outcome = try await signUp.finish(email: try field(form, "email", max: 320), displayName: try field(form, "name", max: 200),
                                                      browserBinding: Array(web.csrfBinding.utf8), response: response, name: "Passkey",
                                                      context: request.clientContext)
                } catch let refusal as WebAuthnRefusal {
                    return PasskeyRoutes.refused(refusal, web.texts)
                }
                switch outcome {
                case .created(let user): try? await links.sendVerification(to: user)
                case .alreadyRegistered(let owner): try? await links.sendAlreadyRegistered(to: owner)
                }
                return .json(bytes: JSONValue.object(["redirect": .string("/sign-up/check-email")]).jsonBytes)
            }
        }
    }

    func field(_ form: URLEncodedForm, _ name: String, max: Int) throws(HTTPError) -> String {
        let value = form[name] ?? ""
        guard value.utf8.count <= max else { throw HTTPError(.payloadTooLarge, "The \(name) field is too long.") }
        return value
    }

    func bytes(_ form: URLEncodedForm, _ name: String) throws(HTTPError) -> [UInt8] {
        guard let text = form[name], text.utf8.count <= 16_384, let value = Base64URL.decode(text) else {
            throw HTTPError(.badRequest, "The passkey answer is incomplete (\(name)).")
        }
        return value
    }

    /// JSON for the script: an account error (bad address, rate limit) or an HTTP error becomes `{"error": …}`.
    func answer(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let error as AccountError {
            var response = PasskeyRoutes.error(error.message, status: context.status(for: error))
            if case .rateLimited(let wait) = error { response.headers.set("Retry-After", String(Int(wait.rounded(.up)))) }
            return response
        } catch let error as HTTPError {
            return PasskeyRoutes.error(error.publicMessage, status: error.status)
        }
    }
}
