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
