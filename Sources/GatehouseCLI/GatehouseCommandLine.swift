import Foundation

/// `gatehouse <command> [options]`: dispatches to a subcommand and maps failures to exit codes.
///
/// Exit codes: 0 success, 1 runtime failure (database, network, port in use, no such user), 2 usage or
/// configuration error, 3 the database schema is newer than this build.
enum GatehouseCommandLine {
    static let commands: [any CLICommand.Type] = [
        ServeCommand.self, MigrateCommand.self, BackupCommand.self, UserCommand.self, SessionCommand.self, AuditCommand.self, KeysCommand.self, ClientCommand.self, ProvidersCommand.self,
        LoginCommand.self, TokenCommand.self, LogoutCommand.self, BenchCommand.self, VersionCommand.self,
    ]

    static let usage = """
        gatehouse — a self-hosted sign-in server

        Usage: gatehouse <command> [options]

        Commands:
        \(commands.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))
          help      Show this help, or a command's: gatehouse help <command>

        Every command accepts --help.

        Exit codes:
          0  success
          1  runtime failure (database unavailable, port in use, no such user or client, email taken)
          2  usage or configuration error (the message names the key and the problem)
          3  the database schema is newer than this build (upgrade Gatehouse, do not downgrade)
        """

    static func run(arguments: [String], environment: [String: String]) async -> Int32 {
        guard let name = arguments.first else {
            printError(usage)
            return ExitCode.usage
        }
        if name == "help" || name == "--help" || name == "-h" {
            if arguments.count > 1, let command = commands.first(where: { $0.name == arguments[1] }) {
                print(command.help)
            } else {
                print(usage)
            }
            return ExitCode.success
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            printError("gatehouse: unknown command '\(name)'. Run 'gatehouse help'.")
            return ExitCode.usage
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            print(command.help)
            return ExitCode.success
        }
        do {
            var options = try CommandOptions(parsing: rest, allowed: command.options)
            if !command.takesAction, let stray = options.positional.first {
                throw UsageError(message: "unexpected argument '\(stray)'. Run 'gatehouse \(name) --help'.")
            }
            return try await command.run(options: &options, environment: environment)
        } catch {
            return ExitCode.report(error)
        }
    }
}

/// Prints to standard error (messages for people; stdout stays for output and JSON logs).
func printError(_ message: String) {
    FileHandle.standardError.write(Data((message + "\n").utf8))
}
