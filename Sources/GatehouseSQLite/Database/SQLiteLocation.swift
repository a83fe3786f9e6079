import Foundation
import GatehouseStore

/// Where an SQLite database lives, parsed from a database URL.
///
/// Accepted forms:
/// - `sqlite://./var/gatehouse.sqlite` or `sqlite:var/gatehouse.sqlite` — relative to the
///   current directory;
/// - `sqlite:///srv/gatehouse/db.sqlite` — absolute;
/// - `sqlite::memory:` — a private in-memory database (tests; one connection, gone on close).
public enum SQLiteLocation: Sendable, Equatable {
    case file(path: String)
    case memory

    /// Parses a `sqlite:` URL; throws `StoreError.invalidConfiguration` for anything else.
    public init(url: String) throws {
        let scheme = "sqlite:"
        guard url.lowercased().hasPrefix(scheme) else {
            throw StoreError.invalidConfiguration(detail: "database URL must start with sqlite: (got \(url.prefix(16))…)")
        }
        var rest = String(url.dropFirst(scheme.count))
        if rest == ":memory:" || rest == "//:memory:" {
            self = .memory
            return
        }
        if rest.hasPrefix("//") { rest.removeFirst(2) }  // sqlite://./x → ./x, sqlite:///abs → /abs
        if let query = rest.firstIndex(of: "?") { rest = String(rest[..<query]) }
        guard !rest.isEmpty, rest != "/", !rest.hasSuffix("/") else {
            throw StoreError.invalidConfiguration(detail: "database URL has no file name: \(url)")
        }
        self = .file(path: rest.removingPercentEncoding ?? rest)
    }

    /// The path handed to `sqlite3_open_v2`.
    var sqlitePath: String {
        switch self {
        case .file(let path): path
        case .memory: ":memory:"
        }
    }
}
