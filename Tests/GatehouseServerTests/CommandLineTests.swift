import Foundation
import GatehouseTesting
import Testing

/// Runs the built `gatehouse` binary: exit codes, messages, migrate, and serve + SIGTERM.
@Suite(.serialized) struct CommandLineTests {
    struct Result { let status: Int32; let stdout: String; let stderr: String }

    static var binary: URL {
        // The test bundle sits in the build folder beside the `gatehouse` executable.
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("gatehouse")
    }

    /// Runs the binary on a thread of its own: waiting for a child process must not hold one of the
    /// cooperative pool's two threads (other tests' timers and tasks need them).
    static func run(_ arguments: [String], environment: [String: String] = [:], input: String? = nil) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Swift.Result { try runBlocking(arguments, environment: environment, input: input) }) }.start()
        }
    }

    static func runBlocking(_ arguments: [String], environment: [String: String], input: String?) throws -> Result {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment.merging(["PATH": "/usr/bin:/bin"]) { a, _ in a }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func temporaryDatabaseURL() -> String {
        "sqlite://" + FileManager.default.temporaryDirectory.appendingPathComponent("gh-cli-\(UUID().uuidString)/db.sqlite").path
    }

    @Test func versionAndHelp() async throws {
        let version = try await Self.run(["version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("gatehouse "))
        let help = try await Self.run(["help"])
        #expect(help.status == 0 && help.stdout.contains("Exit codes"))
        for command in ["serve", "migrate", "backup", "version"] {
            let commandHelp = try await Self.run([command, "--help"])
            #expect(commandHelp.status == 0 && commandHelp.stdout.hasPrefix("Usage: gatehouse \(command)"))
        }
    }

    @Test func usageErrorsExitTwo() async throws {
        let unknown = try await Self.run(["frobnicate"])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown command"))
        let none = try await Self.run([])
        #expect(none.status == 2)
        let badOption = try await Self.run(["migrate", "--nope"])
        #expect(badOption.status == 2 && badOption.stderr.contains("--nope"))
    }

    @Test func badConfigurationStopsStartUpWithOneLine() async throws {
        let result = try await Self.run(["serve"], environment: ["GATEHOUSE_LISTEN": "nowhere"])
        #expect(result.status == 2)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(lines.first?.contains("GATEHOUSE_LISTEN") == true)
    }

    @Test func migrateIsIdempotentAndRefusesNewerSchemas() async throws {
        let url = Self.temporaryDatabaseURL()
        let first = try await Self.run(["migrate"], environment: ["GATEHOUSE_DATABASE_URL": url])
        #expect(first.status == 0 && first.stdout.contains("migrated from schema version 0"))
        let second = try await Self.run(["migrate"], environment: ["GATEHOUSE_DATABASE_URL": url])
        #expect(second.status == 0 && second.stdout.contains("up to date"))
        // Pretend a newer Gatehouse migrated it (through the sqlite3 shell, as an operator might).
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        shell.arguments = [String(url.dropFirst("sqlite://".count)),
                           "INSERT INTO gatehouse_schema_migrations(version, name, applied_at) VALUES (999, 'future', 0)"]
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        let third = try await Self.run(["migrate"], environment: ["GATEHOUSE_DATABASE_URL": url])
        #expect(third.status == 3 && third.stderr.contains("newer"))
    }

    @Test func backupCopiesTheDatabaseAndRefusesWhatItCannotDo() async throws {
        let url = Self.temporaryDatabaseURL()
        let environment = ["GATEHOUSE_DATABASE_URL": url]
        let created = try await Self.run(["user", "create", "--email", "kept@example.com"], environment: environment)
        #expect(created.status == 0)
        let directory = (String(url.dropFirst("sqlite://".count)) as NSString).deletingLastPathComponent
        let target = directory + "/copy.sqlite"
        let copied = try await Self.run(["backup", target, "--pages-per-step", "2"], environment: environment)
        #expect(copied.status == 0 && copied.stdout.contains("integrity_check ok"), "\(copied.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target + "-wal"))
        let listed = try await Self.run(["user", "list"], environment: ["GATEHOUSE_DATABASE_URL": "sqlite://" + target])
        #expect(listed.status == 0 && listed.stdout.contains("kept@example.com"))

        let exists = try await Self.run(["backup", target], environment: environment)
        #expect(exists.status == 2 && exists.stderr.contains("already exists") && exists.stderr.contains("--force"))
        let forced = try await Self.run(["backup", target, "--force"], environment: environment)
        #expect(forced.status == 0)
        let noDirectory = try await Self.run(["backup", directory + "/missing/copy.sqlite"], environment: environment)
        #expect(noDirectory.status == 2 && noDirectory.stderr.contains("does not exist"))
        let itself = try await Self.run(["backup", String(url.dropFirst("sqlite://".count)), "--force"], environment: environment)
        #expect(itself.status == 2 && itself.stderr.contains("the database itself"))
        let postgres = try await Self.run(["backup", directory + "/pg.sqlite"],
                                          environment: ["GATEHOUSE_DATABASE_URL": "postgres://gatehouse@127.0.0.1:1/gatehouse"])
        #expect(postgres.status == 2 && postgres.stderr.contains("pg_dump"))
        let noFile = try await Self.run(["backup"], environment: environment)
        #expect(noFile.status == 2 && noFile.stderr.contains("exactly one FILE"))
        let badStep = try await Self.run(["backup", directory + "/other.sqlite", "--pages-per-step", "0"], environment: environment)
        #expect(badStep.status == 2 && badStep.stderr.contains("--pages-per-step"))
    }

    @Test func serveAnswersAndStopsCleanlyOnSIGTERM() async throws {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = ["serve"]
        // Port 0: the kernel picks a free port, which the "listening" log line reports.
        process.environment = ["GATEHOUSE_LISTEN": "127.0.0.1:0", "GATEHOUSE_DATABASE_URL": Self.temporaryDatabaseURL()]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        try process.run()
        let lines = LineReader(out.fileHandleForReading)
        let listening = try #require(await lines.first(containing: "gatehouse listening", timeoutSeconds: 60))
        let port = try #require(listening.firstMatch(of: /"listen":"127\.0\.0\.1:(\d+)"/).flatMap { UInt16($0.1) })
        #expect(try await SocketClient(port: port).get("/healthz").status == 200)
        process.terminate()   // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(await lines.first(containing: "\"msg\":\"stopped\"", timeoutSeconds: 10) != nil)
    }

    @Test func userSessionAndAuditCommands() async throws {
        let env = ["GATEHOUSE_DATABASE_URL": Self.temporaryDatabaseURL()]
        let created = try await Self.run(["user", "create", "--email", "Op@Example.com", "--password-stdin", "--verified"],
                                   environment: env, input: "a good long password\n")
        #expect(created.status == 0 && created.stdout.contains("created op@example.com"))
        #expect(!created.stdout.contains("a good long password") && !created.stderr.contains("a good long password"))
        let duplicate = try await Self.run(["user", "create", "--email", "op@example.com"], environment: env)
        #expect(duplicate.status == 1 && duplicate.stderr.contains("already exists"), "the data refuses it: a runtime failure")
        let weak = try await Self.run(["user", "create", "--email", "weak@example.com", "--password-stdin"], environment: env, input: "short\n")
        #expect(weak.status == 2)
        let list = try await Self.run(["user", "list"], environment: env)
        #expect(list.stdout.contains("op@example.com\ttrue\tfalse"))
        #expect(!list.stdout.contains("weak@example.com"))
        #expect(try await Self.run(["user", "disable", "--email", "op@example.com"], environment: env).status == 0)
        #expect(try await Self.run(["user", "list"], environment: env).stdout.contains("op@example.com\ttrue\ttrue"))
        let revoke = try await Self.run(["session", "revoke", "--email", "op@example.com"], environment: env)
        #expect(revoke.status == 0 && revoke.stdout.contains("ended 0 sessions"))
        let audit = try await Self.run(["audit", "--user", "op@example.com"], environment: env)
        #expect(audit.stdout.contains("account.disabled") && audit.stdout.contains("sign_up"))
        #expect(try await Self.run(["user", "delete", "--email", "op@example.com"], environment: env).status == 0)
        let missing = try await Self.run(["user", "delete", "--email", "op@example.com"], environment: env)
        #expect(missing.status == 1 && missing.stderr.contains("no account"), "an unknown user is a runtime failure")
        #expect(try await Self.run(["session", "revoke", "--email", "nobody@example.com"], environment: env).status == 1)
        #expect(try await Self.run(["user", "frob"], environment: env).status == 2)
        #expect(try await Self.run(["migrate", "stray"], environment: env).status == 2)
    }
}

/// Reads a child's output line by line in the background, for tests that wait for a log line.
final class LineReader: Sendable {
    private let lines = Recorder<String>()

    init(_ handle: FileHandle) {
        let lines = self.lines
        Thread {
            var buffer = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: 10) {
                    lines.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
        }.start()
    }

    func first(containing text: String, timeoutSeconds: Int) async -> String? {
        for _ in 0..<(timeoutSeconds * 20) {
            if let line = lines.all.first(where: { $0.contains(text) }) { return line }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
