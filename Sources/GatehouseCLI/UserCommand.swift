import Foundation
import GatehouseIdentity
import GatehouseStore

/// `gatehouse user create|list|import|disable|enable|delete`.
enum UserCommand: CLICommand {
    static let name = "user"
    static let takesAction = true
    static let summary = "Create, list, disable or delete accounts"
    static let options = ["--config": true, "--email": true, "--name": true, "--password-stdin": false, "--verified": false,
                                  "--dry-run": false, "--format": true, "--merge-existing": false, "--batch-size": true]
    static let help = """
        Usage: gatehouse user create --email E [--name N] [--password-stdin] [--verified]
               gatehouse user list
               gatehouse user import FILE [--dry-run] [--format jsonl|csv] [--merge-existing] [--batch-size N]
               gatehouse user disable|enable|delete --email E

        create          makes an account; with --password-stdin the password is read from standard input
                        (one line), never from the command line where `ps` would show it
        list            prints every account: email, verified, disabled, created
        import          creates or updates accounts from JSON lines or CSV (docs/importing-users.md): bcrypt
                        ($2a$/$2b$/$2y$, Devise's pepper from passwords.bcrypt_pepper) and Argon2 hashes, provider
                        identities (provider, uid), external ids. Idempotent; every row is checked first and any
                        error (reported with its line) writes nothing; --dry-run only checks. Exit 1 on errors.
                        A row whose address has an account created in Gatehouse (not by an import) is an
                        error unless --merge-existing: then a proven account keeps its password and
                        verified flag, and an unproven one is claimed (its sessions, identities and tokens
                        end; its password becomes the row's, or is cleared). Rows are written N to a
                        transaction (--batch-size, 1-50000, default 5000); on a serving SQLite database a
                        batch holds the writer for its length, so pick fewer there (500). Into a
                        database with no accounts, a file of more than one batch without --batch-size
                        is loaded in one transaction, its indexes built after the rows
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
                // A taken email is the data's answer; a weak password is the operator's input.
                if case .emailTaken = error { throw RuntimeFailure(message: error.message) }
                throw UsageError(message: error.message)
            }
        case "list":
            var cursor: String?
            print("email\tverified\tdisabled\tcreated")
            repeat {
                let page = try await context.services.administration.list(query: nil, cursor: cursor, limit: 500)
                for user in page.items {
                    print("\(user.email)\t\(user.emailVerified)\t\(user.disabled)\t\(ISO8601DateFormatter().string(from: user.createdAt))")
                }
                cursor = page.nextCursor
            } while cursor != nil
        case "import":
            return try await importFile(options: options, context: context)
        case "disable", "enable":
            guard let email = options.value("--email") else { throw UsageError(message: "user \(action) needs --email") }
            let user = try await context.user(email: email)
            _ = try await context.services.administration.setDisabled(id: user.id, action == "disable")
            print("\(action)d \(user.email)")
        case "delete":
            guard let email = options.value("--email") else { throw UsageError(message: "user delete needs --email") }
            let user = try await context.user(email: email)
            try await context.services.administration.delete(id: user.id)
            print("deleted \(user.email)")
        default:
            throw UsageError(message: "unknown user action '\(action)'")
        }
        return ExitCode.success
    }
}

extension UserCommand {
    static func importFile(options: CommandOptions, context: OperatorContext) async throws -> Int32 {
        guard options.positional.count == 2 else { throw UsageError(message: "user import needs one FILE") }
        let path = options.positional[1]
        var format: ImportFileReader.Format?
        if let name = options.value("--format") {
            guard let chosen = ImportFileReader.Format(rawValue: name) else { throw UsageError(message: "--format must be jsonl or csv") }
            format = chosen
        } else if path.hasSuffix(".csv") {
            format = .csv
        } else if path.hasSuffix(".jsonl") || path.hasSuffix(".ndjson") {
            format = .jsonLines
        }
        var batchSize: Int?
        if let text = options.value("--batch-size") {
            guard let size = Int(text), UserImporter.batchSizes.contains(size) else {
                throw UsageError(message: "--batch-size must be a whole number from \(UserImporter.batchSizes.lowerBound) to \(UserImporter.batchSizes.upperBound)")
            }
            batchSize = size
        }
        guard let data = FileManager.default.contents(atPath: path) else { throw UsageError(message: "cannot read \(path)") }
        guard let text = String(data: data, encoding: .utf8) else { throw UsageError(message: "\(path) is not UTF-8") }
        let report = try await context.services.importer.run(text, format: format, dryRun: options.flag("--dry-run"),
                                                             mergeExisting: options.flag("--merge-existing"), batchSize: batchSize)
        for error in report.errors { FileHandle.standardError.write(Data("\(path):\(error.line): \(error.message)\n".utf8)) }
        let verb = report.dryRun ? "would create" : "created"
        let verb2 = report.dryRun ? "would update" : "updated"
        if report.errors.isEmpty {
            print("\(verb) \(report.created), \(verb2) \(report.updated)" + (report.claimed > 0 ? " (\(report.claimed) claimed)" : "")
                  + (report.loadedWhole ? " in one transaction (the database had no accounts)" : ""))
            return ExitCode.success
        }
        print("\(report.errors.count) error\(report.errors.count == 1 ? "" : "s"); created \(report.created), updated \(report.updated)")
        return ExitCode.failure
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
        let ended = try await context.services.administration.endAllSessions(userId: user.id, by: "operator")
        print("ended \(ended) session\(ended == 1 ? "" : "s") of \(user.email)")
        return ExitCode.success
    }
}
