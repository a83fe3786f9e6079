import Foundation
import GatehouseClient
import GatehouseClientOpenSSL

/// A failure of `gatehouse login`, `token` or `logout`, with the sentence shown after "gatehouse: ".
struct LoginError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }

    static let timedOut = LoginError("no sign-in response arrived in time; run 'gatehouse login' again")

    static func signedOut(_ tokenFile: URL) -> LoginError {
        LoginError("not signed in (no tokens at \(tokenFile.path)); run 'gatehouse login --issuer URL --client-id ID'")
    }
}

/// Where the CLI keeps a sign-in: the tokens (a `FileTokenStore`, 0600) and, beside them, which
/// provider and client they belong to, so `token` and `logout` need no options and no discovery.
///
/// For `tokens.json` the provider file is `tokens.provider.json`.
struct SavedLogin: Codable, Sendable {
    var issuer: String
    var clientID: String
    var redirectURI: URL
    var metadata: ProviderMetadata

    enum CodingKeys: String, CodingKey {
        case issuer, clientID = "client_id", redirectURI = "redirect_uri", metadata
    }

    /// `--token-file`, else `$XDG_CONFIG_HOME/gatehouse/tokens.json`, else `~/.config/gatehouse/tokens.json`.
    static func tokenFile(_ options: CommandOptions, environment: [String: String]) -> URL {
        if let path = options.value("--token-file") {
            return URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        }
        let config: URL
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            config = URL(fileURLWithPath: xdg)
        } else {
            let home = environment["HOME"] ?? NSHomeDirectory()
            config = URL(fileURLWithPath: home).appendingPathComponent(".config")
        }
        return config.appendingPathComponent("gatehouse").appendingPathComponent("tokens.json")
    }

    static func providerFile(for tokenFile: URL) -> URL {
        tokenFile.deletingPathExtension().appendingPathExtension("provider.json")
    }

    /// The saved provider for `tokenFile`, or nil when there is none.
    static func load(tokenFile: URL) throws -> SavedLogin? {
        let url = providerFile(for: tokenFile)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do { return try JSONDecoder().decode(SavedLogin.self, from: data) }
        catch { throw LoginError("\(url.path) is not a saved Gatehouse sign-in; delete it and sign in again") }
    }

    /// Writes the provider file with the token store's guarantees (0600, atomic rename).
    func save(tokenFile: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        let url = Self.providerFile(for: tokenFile)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw LoginError("cannot write \(url.path): \(String(cString: strerror(errno)))") }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == data.count, rename(temporary.path, url.path) == 0 else {
            unlink(temporary.path)
            throw LoginError("cannot write \(url.path)")
        }
    }

    /// Deletes the provider file (not an error when it is missing).
    static func delete(tokenFile: URL) {
        unlink(providerFile(for: tokenFile).path)
    }

    /// An SDK client for this provider, verifying ID tokens with OpenSSL.
    func client(transport: any HTTPTransport) -> GatehouseClient.OAuthClient {
        GatehouseClient.OAuthClient(metadata: metadata,
                                    configuration: ClientConfiguration(clientID: clientID, redirectURI: redirectURI),
                                    transport: transport, signatureVerifier: OpenSSLIDTokenSignatureVerifier())
    }
}

/// One readable sentence for an SDK or network failure.
func describeLoginFailure(_ error: any Error) -> String {
    switch error {
    case let error as LoginError: return error.description
    case let error as OAuthError:
        return "the provider refused: \(error.code.rawValue)" + (error.errorDescription.map { " (\($0))" } ?? "")
    case let error as AuthorizationCallbackError:
        if case .provider(let oauth) = error { return describeLoginFailure(oauth) }
        return "the sign-in response was not acceptable: \(error)"
    case let error as DiscoveryError:
        switch error {
        case .notFound(let url): return "no OpenID/OAuth metadata at \(url.absoluteString); is --issuer right?"
        case .invalidDocument(let why): return "the provider metadata is not valid: \(why)"
        case .issuerMismatch(let expected, let actual):
            return "the metadata is for issuer \(actual ?? "(none)"), not \(expected); use the exact issuer URL"
        }
    case let error as IDTokenError: return "the ID token was rejected: \(error)"
    case let error as AuthStateError:
        switch error {
        case .signedOut: return "not signed in; run 'gatehouse login'"
        case .sessionEnded(let oauth):
            return "the session has ended (\(oauth.errorDescription ?? oauth.code.rawValue)); run 'gatehouse login' again"
        case .dpopKeyChanged: return "the tokens are bound to a DPoP key this login does not have; run 'gatehouse login' again"
        }
    case let error as HTTPTransportError: return "unexpected answer from the provider: \(error)"
    case let error as FileTokenStoreError: return "token file problem: \(error)"
    case let error as URLError: return "cannot reach the provider: \(error.localizedDescription)"
    default: return String(describing: error)
    }
}
