import Foundation
import GatehouseClient
import GatehouseClientOpenSSL

/// `gatehouse login`: signs this machine's user in to an OpenID Connect provider (Gatehouse or any
/// other) the way RFC 8252 says native apps should: code + PKCE through the system browser and a
/// loopback redirect; or, for first-party clients, with the password grant.
enum LoginCommand: CLICommand {
    static let name = "login"
    static let summary = "Sign in to a provider from the terminal (OAuth code + PKCE)"
    static let options = ["--issuer": true, "--client-id": true, "--scope": true, "--token-file": true, "--timeout": true,
                          "--no-browser": false, "--username": true, "--password-stdin": false]
    static let defaultScope = "openid profile email offline_access"
    static let help = """
        Usage: gatehouse login --issuer URL --client-id ID [--scope "\(defaultScope)"]
                               [--token-file PATH] [--timeout SECONDS] [--no-browser]
               gatehouse login --issuer URL --client-id ID --username EMAIL --password-stdin [--scope …] [--token-file PATH]

        Signs in with the authorization code flow and PKCE (RFC 8252): listens on 127.0.0.1 on a free
        port, prints the authorization URL (and opens it with xdg-open when a display is available),
        waits for the browser to come back to http://127.0.0.1:<port>/callback, exchanges the code,
        verifies the ID token's signature and claims, and stores the tokens.

        The client must be public and registered with the redirect URI http://127.0.0.1/callback
        (any port matches): gatehouse client create --name CLI --type public --redirect-uri http://127.0.0.1/callback

        --issuer URL         the provider's issuer; its /.well-known/openid-configuration is read
        --client-id ID       the registered client
        --scope S            space-separated scopes (default "\(defaultScope)";
                             offline_access gets a refresh token so 'gatehouse token' can renew)
        --token-file PATH    where the tokens go (default ~/.config/gatehouse/tokens.json, or under
                             $XDG_CONFIG_HOME), mode 0600; the provider details go beside it in
                             <name>.provider.json
        --timeout SECONDS    how long to wait for the browser (default 300)
        --no-browser         only print the URL, never run xdg-open
        --username EMAIL     with --password-stdin: the password grant, for first-party clients that
                             have it enabled; the password is read from standard input

        Then 'gatehouse token' prints a fresh access token and 'gatehouse logout' signs out.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        guard let issuerText = options.value("--issuer") else { throw UsageError(message: "login needs --issuer URL") }
        guard let issuer = URL(string: issuerText), let scheme = issuer.scheme?.lowercased(), ["http", "https"].contains(scheme),
              issuer.host != nil else { throw UsageError(message: "--issuer must be an http(s) URL") }
        guard let clientID = options.value("--client-id"), !clientID.isEmpty else { throw UsageError(message: "login needs --client-id ID") }
        let scopes = (options.value("--scope") ?? defaultScope).split(separator: " ").map(String.init)
        let timeoutText = options.value("--timeout") ?? "300"
        guard let timeout = TimeInterval(timeoutText), timeout > 0 else { throw UsageError(message: "--timeout must be a positive number of seconds") }
        if options.value("--username") != nil && !options.flag("--password-stdin") {
            throw UsageError(message: "--username needs --password-stdin (passwords are never taken as arguments)")
        }
        let tokenFile = SavedLogin.tokenFile(options, environment: environment)
        let transport = URLSessionTransport()

        do {
            let metadata = try await ProviderDiscovery.discover(issuer: issuer, transport: transport)
            if let username = options.value("--username") {
                try await passwordSignIn(username: username, scopes: scopes, metadata: metadata, clientID: clientID,
                                         tokenFile: tokenFile, transport: transport)
            } else {
                try await browserSignIn(scopes: scopes, metadata: metadata, clientID: clientID, tokenFile: tokenFile,
                                        timeout: timeout, openBrowser: !options.flag("--no-browser"), environment: environment,
                                        transport: transport)
            }
        } catch let error as UsageError {
            throw error
        } catch {
            throw LoginError(describeLoginFailure(error))
        }
        return ExitCode.success
    }

    private static func browserSignIn(
        scopes: [String], metadata: ProviderMetadata, clientID: String, tokenFile: URL, timeout: TimeInterval,
        openBrowser: Bool, environment: [String: String], transport: any HTTPTransport
    ) async throws {
        let receiver = try LoopbackReceiver.listen()
        defer { receiver.close() }
        let saved = SavedLogin(issuer: metadata.issuer ?? "", clientID: clientID,
                               redirectURI: receiver.redirectURI(path: "/callback"), metadata: metadata)
        let client = saved.client(transport: transport)
        let request = client.authorizationRequest(scopes: scopes)

        printError("Open this address in a browser to sign in (waiting up to \(Int(timeout)) s):")
        // Unbuffered, so a script reading the pipe sees the URL at once.
        FileHandle.standardOutput.write(Data((request.url.absoluteString + "\n").utf8))
        if openBrowser { BrowserOpener.open(request.url, environment: environment) }

        let callback = try await receiver.waitForCallback(path: "/callback", state: request.state, timeout: timeout)
        do {
            let state = AuthState(client: client, store: FileTokenStore(url: tokenFile))
            let result = try await state.signIn(callbackURL: callback.url, request: request)
            try saved.save(tokenFile: tokenFile)
            callback.respond(status: 200, title: "Signed in", message: "You can close this window and return to the terminal.")
            report(result.idTokenClaims, issuer: saved.issuer, tokenFile: tokenFile)
        } catch {
            callback.respond(status: 400, title: "Sign-in failed", message: describeLoginFailure(error))
            throw error
        }
    }

    private static func passwordSignIn(
        username: String, scopes: [String], metadata: ProviderMetadata, clientID: String, tokenFile: URL, transport: any HTTPTransport
    ) async throws {
        guard let line = readLine(strippingNewline: true), !line.isEmpty else {
            throw UsageError(message: "--password-stdin found no password on standard input")
        }
        // The password grant has no redirect; the URI is only recorded, never used.
        let saved = SavedLogin(issuer: metadata.issuer ?? "", clientID: clientID,
                               redirectURI: URL(string: "http://127.0.0.1/callback")!, metadata: metadata)
        let client = saved.client(transport: transport)
        let response = try await client.passwordGrant(username: username, password: line, scopes: scopes)
        var claims: IDTokenClaims?
        if let idToken = response.idToken {
            claims = try await client.validateIDToken(idToken, nonce: nil)
        } else if scopes.contains("openid") {
            throw IDTokenError.missingClaim("id_token")
        }
        try await AuthState(client: client, store: FileTokenStore(url: tokenFile)).signIn(with: response)
        try saved.save(tokenFile: tokenFile)
        report(claims, issuer: saved.issuer, tokenFile: tokenFile)
    }

    private static func report(_ claims: IDTokenClaims?, issuer: String, tokenFile: URL) {
        let who = claims.map { $0.email ?? $0.subject }.map { " as \($0)" } ?? ""
        printError("Signed in\(who) at \(issuer). Tokens saved to \(tokenFile.path).")
    }
}

/// Opens a URL in the desktop's browser when there is a desktop.
enum BrowserOpener {
    /// Runs `xdg-open url` in the background when it is on `PATH` and `DISPLAY` or
    /// `WAYLAND_DISPLAY` is set; does nothing otherwise (the URL has been printed anyway).
    static func open(_ url: URL, environment: [String: String]) {
        guard environment["DISPLAY"].map({ !$0.isEmpty }) == true || environment["WAYLAND_DISPLAY"].map({ !$0.isEmpty }) == true else { return }
        let paths = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        guard let opener = paths.map({ "\($0)/xdg-open" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: opener)
        process.arguments = [url.absoluteString]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try? process.run()
    }
}
