import Foundation
import GatehouseClient

/// `gatehouse token`: prints an access token that is good for at least another minute.
enum TokenCommand: CLICommand {
    static let name = "token"
    static let summary = "Print a fresh access token (after 'gatehouse login')"
    static let options = ["--token-file": true]
    static let help = """
        Usage: gatehouse token [--token-file PATH]

        Prints the access token saved by 'gatehouse login', for example:
            curl -H "Authorization: Bearer $(gatehouse token)" https://api.example.com/me
        When it expires within a minute it is first renewed with the refresh token (the new refresh
        token the provider rotates to is saved). Exits 1 with a message on standard error when
        nobody is signed in or the provider has ended the session (then run 'gatehouse login').
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        let tokenFile = SavedLogin.tokenFile(options, environment: environment)
        let store = FileTokenStore(url: tokenFile)
        do {
            guard try store.load() != nil else { throw LoginError.signedOut(tokenFile) }
            guard let saved = try SavedLogin.load(tokenFile: tokenFile) else {
                throw LoginError("\(SavedLogin.providerFile(for: tokenFile).path) is missing, so the tokens cannot be renewed; run 'gatehouse login' again")
            }
            let state = AuthState(client: saved.client(transport: URLSessionTransport()), store: store)
            try await state.restore()
            do {
                print(try await state.freshAccessToken())
            } catch let error as AuthStateError {
                // AuthState has removed the tokens (refresh refused, or expired with nothing to renew them).
                SavedLogin.delete(tokenFile: tokenFile)
                throw error
            }
        } catch {
            throw LoginError(describeLoginFailure(error))
        }
        return ExitCode.success
    }
}

/// `gatehouse logout`: revokes the refresh token at the provider and deletes the saved sign-in.
enum LogoutCommand: CLICommand {
    static let name = "logout"
    static let summary = "Revoke and delete the tokens saved by 'gatehouse login'"
    static let options = ["--token-file": true]
    static let help = """
        Usage: gatehouse logout [--token-file PATH]

        Revokes the refresh token at the provider (RFC 7009; the access token if there is no
        refresh token), then deletes the token file and its provider file. The files are deleted
        even when the provider cannot be reached; the command then exits 1 and says so.
        Signing out when nobody is signed in is not an error.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        let tokenFile = SavedLogin.tokenFile(options, environment: environment)
        let store = FileTokenStore(url: tokenFile)
        var tokens: TokenSet?, saved: SavedLogin?
        do {
            tokens = try store.load()
            saved = try SavedLogin.load(tokenFile: tokenFile)
        } catch {
            printError("gatehouse: \(describeLoginFailure(error)); deleting it")
        }
        var revocationFailure: String?
        if let tokens, let saved {
            let client = saved.client(transport: URLSessionTransport())
            do {
                if let refreshToken = tokens.refreshToken {
                    try await client.revoke(token: refreshToken, hint: .refreshToken)
                } else {
                    try await client.revoke(token: tokens.accessToken, hint: .accessToken)
                }
            } catch {
                revocationFailure = describeLoginFailure(error)
            }
        } else if tokens != nil {
            revocationFailure = "no provider file beside the tokens, so they could not be revoked"
        }
        do { try store.clear() } catch { throw LoginError(describeLoginFailure(error)) }
        SavedLogin.delete(tokenFile: tokenFile)
        if let revocationFailure {
            throw LoginError("signed out locally, but revocation failed: \(revocationFailure)")
        }
        printError(tokens == nil ? "Not signed in; nothing to do." : "Signed out: tokens revoked and \(tokenFile.path) deleted.")
        return ExitCode.success
    }
}
