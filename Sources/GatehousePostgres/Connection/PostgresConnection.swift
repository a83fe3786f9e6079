import CLibPQ
import Foundation
import GatehouseSQLStore
import GatehouseStore

/// One libpq connection with its prepared-statement cache.
///
/// libpq connections are not thread-safe: each one belongs to a `PostgresConnectionSlot`,
/// whose serial queue is the only code that touches it, one operation at a time.
final class PostgresConnection: SQLConnection, @unchecked Sendable {  // owns a PGconn*, confined to its slot's queue
    private var handle: OpaquePointer?
    /// SQL text as the stores write it (`?` placeholders) → server-side prepared statement name
    /// (`PQprepare` once per connection, after numbering the placeholders once).
    private var statementNames: [String: String] = [:]
    /// The configured `statement_timeout`, restored after work that lifts it (online migration steps).
    let statementTimeoutMilliseconds: Int

    /// Connects and applies per-connection settings. Blocking: call only from a slot's queue.
    /// Any failure to connect is `StoreError.unavailable`.
    init(_ configuration: PostgresConfiguration) throws {
        statementTimeoutMilliseconds = configuration.statementTimeoutMilliseconds
        let pairs = configuration.libpqParameters
        // Keyword/value arrays (never a concatenated conninfo string), expand_dbname = 0, so a
        // value cannot smuggle in other settings.
        let keywords = pairs.map { strdup($0.keyword) } + [nil]
        let values = pairs.map { strdup($0.value) } + [nil]
        defer {
            keywords.forEach { free($0) }
            values.forEach { free($0) }
        }
        let connection = keywords.map { UnsafePointer($0) }.withUnsafeBufferPointer { keywordPointers in
            values.map { UnsafePointer($0) }.withUnsafeBufferPointer { valuePointers in
                PQconnectdbParams(keywordPointers.baseAddress, valuePointers.baseAddress, 0)
            }
        }
        guard let connection else { throw StoreError.unavailable(detail: "postgres connect: out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            throw StoreError.unavailable(detail: "postgres connect: \(message.trimmingCharacters(in: .whitespacesAndNewlines))"
                                         + " [\(configuration)]")
        }
        handle = connection
        // libpq prints NOTICEs (e.g. "relation already exists, skipping") to stderr by
        // default; a library must not write there, and nothing here needs them.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        do {
            // An integer we validated, not user text.
            try execute("SET statement_timeout = \(configuration.statementTimeoutMilliseconds)")
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Closes the connection (server-side prepared statements go with it). Idempotent.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        statementNames.removeAll()
    }

    /// True while libpq considers the connection up.
    var isConnected: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Whether an idle connection can take a statement. The server sends nothing to an idle
    /// client unless it is going away (a FATAL 57P01 before closing on shutdown or
    /// `pg_terminate_backend`), so a readable or hung-up socket means: replace it before use
    /// rather than fail the caller's statement.
    func isUsableWhenIdle() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) == PQTRANS_IDLE else {
            return false
        }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) == 0
    }

    // MARK: - Statements

    /// Runs SQL without parameters through the simple protocol (DDL, SET, BEGIN/COMMIT; may
    /// hold several statements).
    func execute(_ sql: String) throws {
        let connection = try openHandle()
        PQclear(try check(PQexec(connection, sql), context: sql))
    }

    /// Runs a statement; returns the number of rows it changed (or returned).
    @discardableResult
    func run(_ sql: String, _ parameters: [any SQLBindable]) throws -> Int {
        let result = try execPrepared(sql, parameters)
        defer { PQclear(result) }
        return PQcmdTuples(result).flatMap { Int(String(cString: $0)) } ?? 0
    }

    /// Runs a query and maps every row.
    func query<T>(_ sql: String, _ parameters: [any SQLBindable], _ map: (PostgresRow) throws -> T) throws -> [T] {
        let result = try execPrepared(sql, parameters)
        defer { PQclear(result) }
        return try (0..<PQntuples(result)).map { try map(PostgresRow(result: result, row: $0)) }
    }

    /// Runs a query and maps its first row, or returns nil.
    func queryOne<T>(_ sql: String, _ parameters: [any SQLBindable], _ map: (PostgresRow) throws -> T) throws -> T? {
        let result = try execPrepared(sql, parameters)
        defer { PQclear(result) }
        guard PQntuples(result) > 0 else { return nil }
        return try map(PostgresRow(result: result, row: 0))
    }

    /// Runs `body` inside `BEGIN … COMMIT`, rolling back if it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) != PQTRANS_IDLE {
                _ = try? execute("ROLLBACK")
            }
            throw error
        }
    }

    // MARK: - Internals

    private func openHandle() throws -> OpaquePointer {
        guard let handle else { throw StoreError.unavailable(detail: "postgres connection closed") }
        return handle
    }

    private func preparedName(_ sql: String, _ connection: OpaquePointer) throws -> String {
        if let name = statementNames[sql] { return name }
        let name = "gh_\(statementNames.count)"
        PQclear(try check(PQprepare(connection, name, SQLPlaceholders.numbered(sql), 0, nil), context: "prepare \(sql)"))
        statementNames[sql] = name
        return name
    }

    /// Executes a prepared statement with results in binary format; the caller clears the result.
    private func execPrepared(_ sql: String, _ parameters: [any SQLBindable]) throws -> OpaquePointer {
        let connection = try openHandle()
        let name = try preparedName(sql, connection)
        let result = try PostgresParameters(parameters.map(\.sqlValue)).withArrays { count, values, lengths, formats in
            PQexecPrepared(connection, name, count, values, lengths, formats, 1)
        }
        return try check(result, context: sql)
    }

    /// Returns a successful result, or clears it and throws the mapped error.
    private func check(_ result: OpaquePointer?, context: String) throws -> OpaquePointer {
        guard let result else {
            let message = handle.map { String(cString: PQerrorMessage($0)) } ?? "no connection"
            throw StoreError.postgres(sqlstate: nil, message: message, connectionLost: !isConnected, context: context)
        }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return result }
        let sqlstate = PQresultErrorField(result, gh_pq_diag_sqlstate()).map { String(cString: $0) }
        let message = String(cString: PQresultErrorMessage(result))
        PQclear(result)
        throw StoreError.postgres(sqlstate: sqlstate, message: message, connectionLost: !isConnected, context: context)
    }
}
