import Foundation
import GatehouseClient

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
