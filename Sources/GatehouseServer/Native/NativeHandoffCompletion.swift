import GatehouseHTTP
import GatehouseIdentity
import GatehouseProviders
import GatehouseStore

/// Looks native apps up among the registered clients.
struct NativeAppDirectory: Sendable {
    let registry: ClientRegistry

    func app(_ clientID: String?) async throws -> NativeApp? {
        guard let clientID, !clientID.isEmpty, let client = try await registry.find(id: clientID) else { return nil }
        return NativeApp(client: client)
    }
}

/// `platform=native` (F2): instead of signing the system browser in, mint a hand-off token bound to the
/// app and the web view's challenge and send the browser to the app's registered scheme.
struct NativeHandoffCompletion: ProviderCompletion {
    let apps: NativeAppDirectory
    let handoffs: HandoffTokens

    func prepare(_ form: URLEncodedForm) async throws -> [String: String]? {
        guard let app = try await apps.app(form["app"]) else {
            throw HTTPError(.badRequest, "This app is not registered for signing in (unknown app or no callback scheme).")
        }
        guard let challenge = form["challenge"], HandoffTokens.isValidChallenge(challenge) else {
            throw HTTPError(.badRequest, "The challenge must be the base64url SHA-256 of the app's verifier.")
        }
        return ["app": app.clientID, "challenge": challenge]
    }

    func fail(reason: String, message: String, flow: ProviderFlow) async -> Response? {
        guard let app = try? await apps.app(flow.native?["app"]) else { return nil }
        var response = Response.redirect(to: app.callbackURL([("error", reason), ("error_description", message)]))
        response.headers.set("Cache-Control", "no-store")
        return response
    }

    func complete(user: User, ticket: ProviderFlowStore.Ticket, request: Request, web: WebSession) async throws -> Response {
        guard let native = ticket.flow.native, let app = try await apps.app(native["app"]), let challenge = native["challenge"] else {
            throw HTTPError(.badRequest, "This app is no longer registered for signing in.")
        }
        let token = try await handoffs.mint(userId: user.id, appID: app.clientID, challenge: challenge, authMethods: [ticket.provider],
                                            returnTo: ReturnPath.validated(ticket.flow.returnTo))
        var response = Response.redirect(to: app.callbackURL([("token", token)]))
        response.headers.set("Cache-Control", "no-store")
        return response
    }
}
