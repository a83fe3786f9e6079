import Foundation
import GatehouseCrypto
import GatehouseHTTP

extension AppleSimulator {
    /// What `ASAuthorizationAppleIDCredential` hands an iOS app after native Sign in with Apple.
    public struct NativeAuthorization: Sendable, Equatable {
        /// The identity token: RS256 with the simulator's Apple key, `aud` = the bundle id, `nonce` = the hash the app sent.
        public let identityToken: String
        /// A single-use code `/auth/token` redeems for `client_id` = the bundle id (5 minutes, like Apple's).
        public let authorizationCode: String
        /// The `sub` in the token (the user's stable id for this team).
        public let user: String
        /// The email in the token (a private relay address when `privateRelay`).
        public let email: String
        /// Apple gives the app the name only on the first authorization; the app forwards it.
        public let givenName: String
        public let familyName: String
    }

    /// Does programmatically what Apple's native SDK does for an app: signs the user in and returns the
    /// identity token and authorization code. No page is involved, because on iOS the sheet is Apple's UI.
    ///
    /// The bundle id need not be registered — tests use that to mint tokens for "another app" — but the
    /// code is only redeemable by a registered client of that id (its client secret must verify, as at Apple).
    ///
    /// - Parameters:
    ///   - nonceSHA256Hex: what the app put on the request: the lowercase hex SHA-256 of its raw nonce
    ///     (`nil` leaves the claim out, as Apple does when the app sent none).
    ///   - privateRelay: hide the address behind a `@privaterelay.appleid.com` relay.
    public func nativeAuthorization(bundleID: String, email: String, name: String = "Ada Lovelace", nonceSHA256Hex: String?,
                                    privateRelay: Bool = false) throws -> NativeAuthorization {
        let account = SimulatedAccount(email: email.lowercased(), name: name, usesPrivateRelay: privateRelay)
        // Relay addresses are per team; an unregistered bundle id still gets a stable, team-less relay.
        let teamID = clients[bundleID]?.teamID ?? "UNREGISTERED"
        let identity = Identity(subject: subject(forEmail: account.email),
                                email: privateRelay ? privateRelayEmail(forEmail: account.email, teamID: teamID) : account.email,
                                isPrivateEmail: privateRelay)
        let now = clock()
        let code = SimulatorHTTP.token("c", bytes: 24) + ".0.native"
        // Native codes carry no redirect URI: the token request must then send none (see `token(_:)`).
        codes.put(code, IssuedCode(clientID: bundleID, redirectURI: "", identity: identity, nonce: nonceSHA256Hex, authTime: now,
                                   includeEmail: true),
                  expiresAt: now.addingTimeInterval(codeLifetime), now: now)
        let token = try idToken(clientID: bundleID, identity: identity, includeEmail: true, nonce: nonceSHA256Hex, authTime: now)
        return NativeAuthorization(identityToken: token, authorizationCode: code, user: identity.subject, email: identity.email,
                                   givenName: account.givenName, familyName: account.familyName)
    }

    /// The lowercase hex SHA-256 an app puts on Apple's request for `rawNonce` (Apple's sample code does exactly this).
    public static func nonceHash(_ rawNonce: String) -> String { SHA256.hex(rawNonce) }

    /// `POST {prefix}/apple/native/authorize` (form: `bundle_id`, `email`, optional `name`, `nonce` = the SHA-256 hex
    /// of the app's raw nonce): ``nativeAuthorization(bundleID:email:name:nonceSHA256Hex:privateRelay:)`` as JSON
    /// (`identity_token`, `authorization_code`, `user`, `given_name`, `family_name`), for tests that drive an app over HTTP.
    func nativeAuthorize(_ request: Request) -> Response {
        guard let form = try? request.form(), let bundleID = form["bundle_id"], !bundleID.isEmpty,
              let email = form["email"], email.contains("@") else {
            return Response.json(["error": "invalid_request", "error_description": "bundle_id and email are required"], status: .badRequest)
        }
        do {
            let native = try nativeAuthorization(bundleID: bundleID, email: email, name: form["name"] ?? "Ada Lovelace",
                                                 nonceSHA256Hex: form["nonce"], privateRelay: form["private_relay"] == "true")
            var response = Response.json(["identity_token": native.identityToken, "authorization_code": native.authorizationCode,
                                          "user": native.user, "given_name": native.givenName, "family_name": native.familyName])
            response.headers.set("Cache-Control", "no-store")
            return response
        } catch {
            return Response.json(["error": "server_error"], status: .internalServerError)
        }
    }
}
