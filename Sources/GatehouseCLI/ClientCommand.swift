import Foundation
import GatehouseIdentity
import GatehouseStore

/// `gatehouse client create|list|show|update|delete`.
enum ClientCommand: CLICommand {
    static let name = "client"
    static let takesAction = true
    static let summary = "Register and manage OAuth clients"
    static let options = ["--config": true, "--id": true, "--name": true, "--type": true, "--redirect-uri": true,
                          "--post-logout-redirect-uri": true, "--grant": true, "--first-party": false, "--scope": true,
                          "--allow-localhost": false, "--web-origin": true, "--id-token-signed-response-alg": true, "--admin": false]
    static let help = """
        Usage: gatehouse client create --name N --type public|confidential --redirect-uri U [--redirect-uri U …]
                                       [--grant authorization_code|refresh_token|password|client_credentials …]
                                       [--first-party] [--scope S …] [--post-logout-redirect-uri U …]
                                       [--web-origin https://app.example …] [--allow-localhost] [--id ID]
                                       [--id-token-signed-response-alg RS256|ES256]
               gatehouse client create --admin --name N [--id ID]
               gatehouse client list
               gatehouse client show --id ID
               gatehouse client update --id ID [any create option; repeatable options replace the lists]
               gatehouse client delete --id ID

        create prints the client id and, for confidential clients, the secret: it is shown once and stored
        hashed. Redirect URIs: https, http://127.0.0.1 or http://[::1] (any port matches), reverse-DNS
        private-use schemes (com.example.app:/callback); http://localhost only with --allow-localhost.
        Grants default to authorization_code + refresh_token; the password grant needs --first-party.
        ID tokens are signed RS256 unless the client asks for ES256 (--id-token-signed-response-alg).
        --admin registers a client of the admin API (/admin/v1/): confidential, the client_credentials
        grant and the admin scope only; it takes a token with scope=admin at /oauth/token.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        let context = try await OperatorContext.open(options: options, environment: environment)
        defer { Task { await context.database.close() } }
        let registry = context.services.tokens.registry
        do {
            switch options.positional.first {
            case "create":
                guard let name = options.value("--name") else { throw UsageError(message: "client create needs --name") }
                if options.flag("--admin") {
                    try createAdmin(name: name, options: options)
                    let (client, secret) = try await registry.register(ClientRegistration(
                        id: options.value("--id"), name: name, kind: .confidential, redirectURIs: [], grantTypes: ["client_credentials"],
                        scopes: ["admin"], metadata: ClientMetadata.setting("admin", to: true, in: "{}")))
                    print("client_id: \(client.id)")
                    if let secret { print("client_secret: \(secret)\n(shown once: store it now)") }
                    break
                }
                let kind = try parseKind(options.value("--type") ?? "")
                let registration = ClientRegistration(
                    id: options.value("--id"), name: name, kind: kind, redirectURIs: options.all("--redirect-uri"),
                    postLogoutRedirectURIs: options.all("--post-logout-redirect-uri"),
                    grantTypes: options.all("--grant").isEmpty ? ["authorization_code", "refresh_token"] : options.all("--grant"),
                    scopes: options.all("--scope"), firstParty: options.flag("--first-party"),
                    allowLocalhost: options.flag("--allow-localhost"), webOrigins: options.all("--web-origin"),
                    metadata: ClientMetadata.setting(ClientMetadata.idTokenSigningAlgorithmKey,
                                                     to: options.value("--id-token-signed-response-alg"), in: "{}"))
                let (client, secret) = try await registry.register(registration)
                print("client_id: \(client.id)")
                if let secret { print("client_secret: \(secret)\n(shown once: store it now)") }
            case "list":
                print("client_id\ttype\tfirst_party\tgrants\tname")
                for client in try await context.database.oauthClients.list() {
                    print("\(client.id)\t\(client.kind.rawValue)\t\(client.firstParty)\t\(client.grantTypes.joined(separator: ","))\t\(client.name)")
                }
            case "show":
                let client = try await find(options, context)
                print(describe(client))
            case "update":
                var client = try await find(options, context)
                if let name = options.value("--name") { client.name = name }
                if let type = options.value("--type") { client.kind = try parseKind(type) }
                if !options.all("--redirect-uri").isEmpty { client.redirectURIs = options.all("--redirect-uri") }
                if !options.all("--post-logout-redirect-uri").isEmpty { client.postLogoutRedirectURIs = options.all("--post-logout-redirect-uri") }
                if !options.all("--grant").isEmpty { client.grantTypes = options.all("--grant") }
                if !options.all("--scope").isEmpty { client.scopes = options.all("--scope") }
                if !options.all("--web-origin").isEmpty { client.webOrigins = options.all("--web-origin") }
                if options.flag("--first-party") { client.firstParty = true }
                if options.flag("--allow-localhost") { client.allowLocalhost = true }
                if let algorithm = options.value("--id-token-signed-response-alg") {
                    client.metadata = ClientMetadata.setting(ClientMetadata.idTokenSigningAlgorithmKey, to: algorithm, in: client.metadata)
                }
                try await registry.update(client)
                print("updated \(client.id)")
            case "delete":
                let client = try await find(options, context)
                _ = try await context.database.oauthClients.delete(id: client.id)
                print("deleted \(client.id) and every token issued to it")
            default:
                throw UsageError(message: "client needs an action: create, list, show, update or delete")
            }
        } catch let error as ClientRegistry.RegistrationError {
            throw UsageError(message: error.description)
        } catch let error as StoreError where error.kind == .conflict {
            throw UsageError(message: "a client with this id exists already")
        }
        return ExitCode.success
    }

    /// An admin client is exactly the shape the admin API accepts; options that would change it are refused.
    private static func createAdmin(name: String, options: CommandOptions) throws {
        for option in ["--type", "--redirect-uri", "--post-logout-redirect-uri", "--grant", "--scope", "--web-origin",
                       "--first-party", "--allow-localhost", "--id-token-signed-response-alg"] where options.flag(option) {
            throw UsageError(message: "--admin takes only --name and --id (not \(option))")
        }
    }

    private static func parseKind(_ text: String) throws -> OAuthClient.Kind {
        guard let kind = OAuthClient.Kind(rawValue: text) else { throw UsageError(message: "--type must be public or confidential") }
        return kind
    }

    private static func find(_ options: CommandOptions, _ context: OperatorContext) async throws -> OAuthClient {
        guard let id = options.value("--id") else { throw UsageError(message: "this action needs --id") }
        guard let client = try await context.database.oauthClients.find(id: id) else { throw RuntimeFailure(message: "no client \(id)") }
        return client
    }

    static func describe(_ client: OAuthClient) -> String {
        """
        client_id: \(client.id)
        name: \(client.name)
        type: \(client.kind.rawValue)\(client.secretHash != nil ? " (secret set)" : "")
        first_party: \(client.firstParty)
        grants: \(client.grantTypes.joined(separator: " "))
        scopes: \(client.scopes.joined(separator: " "))
        redirect_uris: \(client.redirectURIs.joined(separator: " "))
        post_logout_redirect_uris: \(client.postLogoutRedirectURIs.joined(separator: " "))
        web_origins: \(client.webOrigins.joined(separator: " "))
        allow_localhost: \(client.allowLocalhost)
        id_token_signed_response_alg: \(client.idTokenSigningAlgorithm.rawValue)
        """
    }
}
