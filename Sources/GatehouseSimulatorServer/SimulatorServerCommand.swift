import Foundation
import GatehouseCrypto
import GatehouseHTTP
import GatehouseHTTPServer
import GatehouseProviderSimulator

/// `gatehouse-simulator`: serves the provider simulator alone, for tests that want it in a separate
/// process. Prints one line `listening <host:port> <base URL>` (and, with `--demo`, one JSON line of
/// Gatehouse-side settings) on stdout, then serves until SIGINT/SIGTERM.
enum SimulatorServerCommand {
    static let usage = """
        usage: gatehouse-simulator --listen 127.0.0.1:PORT [--base-url URL] [--prefix /PATH]
                                   (--config FILE.json | --demo [--apple-redirect URI] [--google-redirect URI] [--github-redirect URI])

          --listen      loopback address and a fixed port (the base URL needs the port up front)
          --base-url    public URL of the simulator (default http://LISTEN + prefix)
          --prefix      path prefix of every route (default: the base URL's path, else none)
          --config      clients as JSON: {"apple":[{"client_id","team_id","key_id","p8_file"|"public_jwk","redirect_uris"}],
                        "google":[{"client_id","client_secret","redirect_uris"}], "github":[…same…], "google_issuer"}
          --demo        generate one client per provider and print their settings as JSON
        """

    static func run(arguments: [String]) async -> Int32 {
        do {
            let options = try Options(arguments)
            var configuration: ProviderSimulator.Configuration
            var demoJSON: String?
            if let path = options.configFile {
                configuration = try ConfigFile.load(path: path, baseURL: options.baseURL)
            } else if options.demo {
                let demo = try ProviderSimulator.Configuration.demo(
                    baseURL: options.baseURL, appleRedirectURI: options.appleRedirect,
                    googleRedirectURI: options.googleRedirect, githubRedirectURI: options.githubRedirect)
                configuration = demo.configuration
                demoJSON = DemoSettingsJSON.render(demo)
            } else {
                throw UsageError("either --config or --demo is required")
            }
            if let prefix = options.prefix { configuration.pathPrefix = prefix }
            let simulator = try ProviderSimulator(configuration: configuration)
            let pipeline = RequestPipeline(router: simulator.makeRouter(),
                                           middleware: [RequestIDMiddleware(), SecurityHeadersMiddleware(https: false)])
            let server = HTTPServer(pipeline: pipeline, configuration: HTTPServerConfiguration(listen: options.listen))
            let port = try server.start()
            // Written unbuffered, so a parent process reading our stdout sees the lines at once.
            var banner = "listening \(options.listen.host):\(port) \(configuration.baseURL)\n"
            if let demoJSON { banner += demoJSON + "\n" }
            FileHandle.standardOutput.write(Data(banner.utf8))
            _ = await ShutdownSignal.wait()
            await server.stop()
            return 0
        } catch let error as UsageError {
            FileHandle.standardError.write(Data("gatehouse-simulator: \(error.message)\n\(usage)\n".utf8))
            return 64
        } catch {
            FileHandle.standardError.write(Data("gatehouse-simulator: \(error)\n".utf8))
            return 1
        }
    }
}

struct UsageError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// Parsed command-line options.
struct Options {
    var listen: ListenAddress
    var baseURL: String
    var prefix: String?
    var configFile: String?
    var demo = false
    var appleRedirect = "http://127.0.0.1:8080/auth/apple/callback"
    var googleRedirect = "http://127.0.0.1:8080/auth/google/callback"
    var githubRedirect = "http://127.0.0.1:8080/auth/github/callback"

    init(_ arguments: [String]) throws {
        var values: [String: String] = [:]
        var demo = false
        var index = 0
        while index < arguments.count {
            let flag = arguments[index]
            if flag == "--demo" { demo = true; index += 1; continue }
            guard ["--listen", "--base-url", "--prefix", "--config", "--apple-redirect", "--google-redirect",
                   "--github-redirect"].contains(flag) else { throw UsageError("unknown argument \(flag)") }
            guard index + 1 < arguments.count else { throw UsageError("\(flag) needs a value") }
            values[flag] = arguments[index + 1]
            index += 2
        }
        guard let listenText = values["--listen"], let listen = ListenAddress(parsing: listenText), listen.port != 0 else {
            throw UsageError("--listen HOST:PORT with a non-zero port is required")
        }
        self.listen = listen
        prefix = values["--prefix"]
        baseURL = values["--base-url"] ?? "http://\(listen.description)\(prefix ?? "")"
        configFile = values["--config"]
        self.demo = demo
        if let uri = values["--apple-redirect"] { appleRedirect = uri }
        if let uri = values["--google-redirect"] { googleRedirect = uri }
        if let uri = values["--github-redirect"] { githubRedirect = uri }
    }
}
