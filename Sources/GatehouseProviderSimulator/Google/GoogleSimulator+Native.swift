import Foundation
import GatehouseCrypto
import GatehouseHTTP

extension GoogleSimulator {
    /// What Google's native SDKs hand an app (GoogleSignIn on iOS, Credential Manager's
    /// `GetGoogleIdOption` on Android): an ID token whose `azp` is the app's own OAuth client (iOS or
    /// Android) and whose `aud` is the server client id when the app asked for one (else the app's client),
    /// carrying the nonce the app set verbatim. No page: on a phone the account picker is Google's UI.
    ///
    /// The client id need not be registered with the simulator — tests mint tokens for "another app".
    public func nativeIDToken(clientID: String, serverClientID: String? = nil, email: String, name: String = "Ada Lovelace",
                              nonce: String?, emailVerified: Bool = true, lifetime: TimeInterval = 3_600) throws -> String {
        let account = SimulatedAccount(email: email.lowercased(), name: name, emailVerified: emailVerified)
        let now = clock()
        var claims = profileClaims(account, scopes: ["openid", "email", "profile"])
        claims["iss"] = .string(idTokenIssuer)
        claims["azp"] = .string(clientID)
        claims["aud"] = .string(serverClientID ?? clientID)
        claims["iat"] = SimulatorHTTP.numericDate(now)
        claims["exp"] = SimulatorHTTP.numericDate(now.addingTimeInterval(lifetime))
        if let nonce { claims["nonce"] = .string(nonce) }
        return try keys.sign(claims, type: "JWT")
    }

    /// `POST {prefix}/google/native/sign-in` (form: `client_id`, optional `server_client_id`, `email`, `name`,
    /// `nonce`): the native SDK's answer as JSON `{"id_token": …}`, for the demo and for tests that drive
    /// the app over HTTP.
    func nativeSignIn(_ request: Request) -> Response {
        guard let form = try? request.form(), let clientID = form["client_id"], !clientID.isEmpty,
              let email = form["email"], email.contains("@") else {
            return Response.json(["error": "invalid_request", "error_description": "client_id and email are required"], status: .badRequest)
        }
        do {
            let token = try nativeIDToken(clientID: clientID, serverClientID: form["server_client_id"].flatMap { $0.isEmpty ? nil : $0 },
                                          email: email, name: form["name"] ?? "Ada Lovelace", nonce: form["nonce"])
            var response = Response.json(["id_token": token])
            response.headers.set("Cache-Control", "no-store")
            return response
        } catch {
            return Response.json(["error": "server_error"], status: .internalServerError)
        }
    }
}
