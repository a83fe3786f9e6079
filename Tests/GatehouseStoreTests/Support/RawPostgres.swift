import CLibPQ
import Dispatch
import Foundation

/// Direct libpq access for tests that act as an administrator or another client would: create
/// and drop schemas and roles, terminate backends, hold row locks, write a future schema version.
final class RawPostgresConnection: @unchecked Sendable {  // wraps a PGconn*; each test uses its own
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let handle: OpaquePointer

    /// Connects with a plain libpq URI (no Gatehouse-only parameters).
    init(url: String) throws {
        guard let handle = PQconnectdb(url) else { throw Failure(description: "PQconnectdb returned nil") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw Failure(description: "connect \(url): \(message)")
        }
        self.handle = handle
        PQsetNoticeProcessor(handle, { _, _ in }, nil)  // keep test output free of NOTICEs
    }

    deinit { PQfinish(handle) }

    /// Runs SQL (several statements allowed); returns the last statement's rows as text.
    @discardableResult
    func execute(_ sql: String) throws -> [[String?]] {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw Failure(description: "\(sql): \(String(cString: PQresultErrorMessage(result)))")
        }
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
    }
}

enum RawPostgres {
    /// Connects, runs `sql` and disconnects, on a dispatch queue (libpq blocks).
    @discardableResult
    static func execute(url: String, _ sql: String) async throws -> [[String?]] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try RawPostgresConnection(url: url).execute(sql) })
            }
        }
    }
}
