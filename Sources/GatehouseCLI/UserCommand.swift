import Foundation
import GatehouseIdentity
import GatehouseStore

/// `gatehouse user create|list|disable|enable|delete`.
enum UserCommand: CLICommand {
    static let name = "user"
    static let takesAction = true
    static let summary = "Create, list, disable or delete accounts"
    static let options = ["--config": true, "--email": true, "--name": true, "--password-stdin": false, "--verified": false]
    static let help = """
        Usage: gatehouse user create --email E [--name N] [--password-stdin] [--verified]
               gatehouse user list
               gatehouse user disable|enable|delete --email E

        create          makes an account; with --password-stdin the password is read from standard input
                        (one line), never from the command line where `ps` would show it
        list            prints every account: email, verified, disabled, created
        disable/enable  a disabled account cannot sign in; disabling ends its sessions
        delete          deletes the account, its sessions and sign-in methods (the audit log stays)
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        guard let action = options.positional.first else { throw UsageError(message: "user needs an action: create, list, disable, enable or delete") }
        let context = try await OperatorContext.open(options: options, environment: environment)
        defer { Task { await context.database.close() } }
        switch action {
        case "create":
            guard let email = options.value("--email") else { throw UsageError(message: "user create needs --email") }
            var password: String?
            if options.flag("--password-stdin") {
                guard let line = readLine(strippingNewline: true), !line.isEmpty else { throw UsageError(message: "no password on standard input") }
                password = line
            }
            do {
                let user = try await context.services.accounts.createByOperator(email: email, password: password,
                                                                                displayName: options.value("--name"),
                                                                                verified: options.flag("--verified"))
                print("created \(user.email) (id \(user.id))")
            } catch let error as AccountError {
                throw UsageError(message: error.message)
            }
        case "list":
            var cursor: String?
            print("email\tverified\tdisabled\tcreated")
            repeat {
                let page = try await context.database.users.list(after: cursor, limit: 500)
                for user in page.items {
                    print("\(user.email)\t\(user.emailVerified)\t\(user.disabled)\t\(ISO8601DateFormatter().string(from: user.createdAt))")
                }
                cursor = page.nextCursor
            } while cursor != nil
        case "disable", "enable":
            guard let email = options.value("--email") else { throw UsageError(message: "user \(action) needs --email") }
            let user = try await context.user(email: email)
            try await context.services.accounts.setDisabled(userId: user.id, action == "disable", context: .unknown)
            print("\(action)d \(user.email)")
        case "delete":
            guard let email = options.value("--email") else { throw UsageError(message: "user delete needs --email") }
            let user = try await context.user(email: email)
            try await context.services.accounts.deleteAccount(userId: user.id, password: nil, recentlyAuthenticated: true, context: .unknown)
            print("deleted \(user.email)")
        default:
            throw UsageError(message: "unknown user action '\(action)'")
        }
        return ExitCode.success
    }
}

/// `gatehouse session revoke --email E`.
enum SessionCommand: CLICommand {
    static let name = "session"
    static let takesAction = true
    static let summary = "End every session of an account"
    static let options = ["--config": true, "--email": true]
    static let help = """
        Usage: gatehouse session revoke --email E

        Ends every web session of the account at once (the user must sign in again everywhere).
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        guard options.positional.first == "revoke" else { throw UsageError(message: "session needs the action revoke") }
        guard let email = options.value("--email") else { throw UsageError(message: "session revoke needs --email") }
        let context = try await OperatorContext.open(options: options, environment: environment)
        defer { Task { await context.database.close() } }
        let user = try await context.user(email: email)
        let ended = try await context.services.sessions.endAll(userId: user.id)
        await context.services.audit.record(.sessionsRevoked, userId: user.id, context: .unknown, details: ["by": "operator"])
        print("ended \(ended) session\(ended == 1 ? "" : "s") of \(user.email)")
        return ExitCode.success
    }
}
