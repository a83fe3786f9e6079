import Foundation
import GatehouseServer
import GatehouseSQLite

/// `gatehouse backup FILE`: a consistent copy of the (possibly serving) SQLite database.
enum BackupCommand: CLICommand {
    static let name = "backup"
    static let summary = "Copy the serving SQLite database to a file"
    static let options = ["--config": true, "--force": false, "--pages-per-step": true]
    static let takesAction = true
    static let help = """
        Usage: gatehouse backup FILE [--force] [--pages-per-step N] [--config FILE]

        Copies the SQLite database of GATEHOUSE_DATABASE_URL to FILE while the server keeps serving, through
        SQLite's online backup API: one read snapshot, N pages per step (default \(SQLiteBackup.defaultPagesPerStep)) with a
        short pause between steps. The copy is checked with PRAGMA integrity_check before it replaces FILE.
        Refuses (exit 2) a PostgreSQL database (use pg_dump), an existing FILE without --force, and a FILE
        that cannot be written. Restoring: docs/backup.md.
        """

    static func run(options: inout CommandOptions, environment: [String: String]) async throws -> Int32 {
        guard options.positional.count == 1, let file = options.positional.first else {
            throw UsageError(message: "backup needs exactly one FILE. Run 'gatehouse backup --help'.")
        }
        let configuration = try GatehouseConfiguration.load(environment: environment, configPath: options.value("--config"))
        let url = configuration.databaseURL
        guard url.lowercased().hasPrefix("sqlite:") else {
            throw UsageError(message: "backup copies a SQLite database; GATEHOUSE_DATABASE_URL is PostgreSQL — use pg_dump (docs/backup.md)")
        }
        guard case .file(let source) = try SQLiteLocation(url: url) else {
            throw UsageError(message: "backup needs a SQLite file; GATEHOUSE_DATABASE_URL is an in-memory database")
        }
        guard FileManager.default.fileExists(atPath: source) else {
            throw UsageError(message: "no SQLite database at \(source)")
        }
        try checkTarget(file, source: source, force: options.flag("--force"))
        var pagesPerStep = SQLiteBackup.defaultPagesPerStep
        if let text = options.value("--pages-per-step") {
            guard let value = Int32(text), value > 0 else { throw UsageError(message: "--pages-per-step must be a positive number") }
            pagesPerStep = value
        }
        let report = try SQLiteBackup.copy(sourcePath: source, targetPath: file, pagesPerStep: pagesPerStep)
        print("backed up \(source) to \(file): \(report.pages) pages, \(report.bytes) bytes, \(report.steps) steps; integrity_check ok")
        return ExitCode.success
    }

    private static func checkTarget(_ file: String, source: String, force: Bool) throws {
        let target = URL(fileURLWithPath: file).standardizedFileURL
        if target.resolvingSymlinksInPath().path == URL(fileURLWithPath: source).standardizedFileURL.resolvingSymlinksInPath().path {
            throw UsageError(message: "\(file) is the database itself; back up to another file")
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory) {
            if isDirectory.boolValue { throw UsageError(message: "\(file) is a directory; give a file name") }
            if !force { throw UsageError(message: "\(file) already exists; pass --force to replace it") }
        }
        let directory = target.deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw UsageError(message: "cannot write \(file): directory \(directory) does not exist")
        }
        // The copy is written beside the target and renamed onto it, so the directory must be writable.
        guard access(directory, W_OK) == 0 else {
            throw UsageError(message: "cannot write \(file): directory \(directory) is not writable")
        }
    }
}
