import Foundation
import GatehouseStore

extension StoreError {
    /// Translates a PostgreSQL error into the backend-neutral error. The server's message goes
    /// only into `detail` (for logs), never into the public description.
    ///
    /// - Parameters:
    ///   - sqlstate: the five-character SQLSTATE, nil when libpq failed without a server error.
    ///   - connectionLost: the connection is unusable afterwards (whatever the SQLSTATE).
    static func postgres(sqlstate: String?, message: String, connectionLost: Bool, context: String) -> StoreError {
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "\n", with: " ")
        let detail = "postgres \(sqlstate ?? "-----"): \(text) [\(context)]"
        if connectionLost { return .unavailable(detail: detail) }
        guard let sqlstate else { return .failure(detail: detail) }
        switch sqlstate {
        case PostgresSQLState.uniqueViolation:
            return .conflict(detail: detail)
        case PostgresSQLState.foreignKeyViolation:
            // An insert that refers to a missing parent row: the parent was not found.
            return .notFound(detail: detail)
        case PostgresSQLState.adminShutdown, PostgresSQLState.crashShutdown, PostgresSQLState.cannotConnectNow,
             PostgresSQLState.queryCanceled, PostgresSQLState.serializationFailure, PostgresSQLState.deadlockDetected,
             PostgresSQLState.lockNotAvailable:
            return .unavailable(detail: detail)
        default:
            break
        }
        switch sqlstate.prefix(2) {
        case PostgresSQLState.connectionExceptionClass, PostgresSQLState.insufficientResourcesClass:
            return .unavailable(detail: detail)
        case PostgresSQLState.dataExceptionClass:
            // Values the server cannot store (e.g. a NUL byte in text): the caller's argument.
            return .invalidArgument(detail: detail)
        default:
            return .failure(detail: detail)
        }
    }
}

/// The SQLSTATE codes the backend distinguishes (PostgreSQL manual, appendix A).
enum PostgresSQLState {
    static let uniqueViolation = "23505"
    static let foreignKeyViolation = "23503"
    static let queryCanceled = "57014"        // statement_timeout, pg_cancel_backend
    static let adminShutdown = "57P01"        // server stopping, pg_terminate_backend
    static let crashShutdown = "57P02"
    static let cannotConnectNow = "57P03"     // server starting up or shutting down
    static let serializationFailure = "40001"
    static let deadlockDetected = "40P01"
    static let lockNotAvailable = "55P03"
    static let connectionExceptionClass = "08"
    static let insufficientResourcesClass = "53"  // e.g. 53300 too many connections
    static let dataExceptionClass = "22"
}
