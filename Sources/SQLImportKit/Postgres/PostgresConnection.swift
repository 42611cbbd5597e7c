import Foundation
import CLibPQ

/// A synchronous libpq connection, used from one thread (the writer's).
package final class PostgresConnection {
    private let connection: OpaquePointer

    /// What `cancelStatement` sends the server: made once, as libpq asks, so that another
    /// thread may use it while this one waits for a result.
    private let canceller: OpaquePointer?
    private let cancelLock = NSLock()

    /// Connects to `url` (`postgresql://user@host:port/dbname?...`); the `PG*`
    /// environment variables fill what the URL leaves out, as in `psql`.
    package init(url: String) throws(PostgresError) {
        guard let connection = PQconnectdb(url) else { throw PostgresError(kind: .connection, message: "out of memory") }
        guard PQstatus(connection) == CONNECTION_OK else {
            // Before `self.connection` is set: deinit does not run, so this is the only
            // PQfinish.
            let message = Self.text(PQerrorMessage(connection))
            PQfinish(connection)
            let refused = message.contains("password authentication failed") || message.contains("authentication failed")
                || message.contains("no pg_hba.conf entry") || message.contains("role \"")
            throw PostgresError(kind: refused ? .authentication : .connection, message: message)
        }
        self.connection = connection
        canceller = PQgetCancel(connection)
        _ = PQsetClientEncoding(connection, "UTF8")
        // NOTICEs ("relation ... already exists, skipping") are not for the user's log.
        PQclear(PQexec(connection, "SET client_min_messages = warning"))
    }

    deinit {
        cancelLock.lock()
        if let canceller { PQfreeCancel(canceller) }
        cancelLock.unlock()
        PQfinish(connection)
    }

    /// Asks the server to cancel the statement this connection is running (from another
    /// thread: a signal's handler), which then fails with SQLSTATE 57014. A statement
    /// waiting for a lock stops waiting; nothing happens when none runs.
    package func cancelStatement() {
        cancelLock.lock()
        defer { cancelLock.unlock() }
        guard let canceller else { return }
        var error = [CChar](repeating: 0, count: 256)
        _ = PQcancel(canceller, &error, Int32(error.count))
    }

    /// Runs `sql` (one or more statements without parameters).
    package func execute(_ sql: String) throws(PostgresError) {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        try check(result)
    }

    /// Commits the open transaction. A refusal at the commit comes from a deferred
    /// constraint or constraint trigger, checked after every record was written: no
    /// record can be named, and the message says so (it read as a record's refusal).
    package func commit() throws(PostgresError) {
        do {
            try execute("COMMIT")
        } catch var error where error.kind == .data {
            error.atCommit = true
            throw error
        }
    }

    /// Rolls back the open transaction, if there is one (after a failed COMMIT there is
    /// none, and a ROLLBACK would print the server's warning on stderr).
    package func rollbackIfOpen() {
        let status = PQtransactionStatus(connection)
        guard status == PQTRANS_INTRANS || status == PQTRANS_INERROR else { return }
        try? execute("ROLLBACK")
    }

    /// Runs `sql` (one statement) and returns the rows it inserted, updated or deleted.
    package func executeCounting(_ sql: String) throws(PostgresError) -> Int {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        try check(result)
        return Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    /// Runs `sql` with text parameters `$1, $2, ...` and returns its rows as text.
    package func query(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> [[String?]] {
        let result = withParameters(parameters) { values in
            PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        defer { PQclear(result) }
        try check(result)
        var rows: [[String?]] = []
        let columns = PQnfields(result)
        for row in 0 ..< PQntuples(result) {
            rows.append((0 ..< columns).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            })
        }
        return rows
    }

    /// Runs `sql` and keeps its result as libpq returned it (text format): what an export
    /// reads a batch of rows from without a String per value.
    package func result(_ sql: String) throws(PostgresError) -> PostgresResult {
        let result = PQexec(connection, sql)
        do {
            try check(result)
        } catch {
            PQclear(result)
            throw error
        }
        return PostgresResult(result!)
    }

    /// `COPY ... FROM STDIN` with the text `produce` passes to its `send` (COPY text
    /// format, any number of pieces): the server parses one piece while the next is made.
    /// When `produce` throws, the COPY is aborted and its error is the one thrown.
    /// Returns the rows it inserted.
    package func copy(_ sql: String, produce: (_ send: (UnsafeRawBufferPointer) -> Void) throws -> Void) throws -> Int {
        let start = PQexec(connection, sql)
        let status = PQresultStatus(start)
        if status != PGRES_COPY_IN {
            defer { PQclear(start) }
            try check(start)
            throw PostgresError(kind: .server, message: "COPY did not start")
        }
        PQclear(start)
        var broken = false
        var producerError: (any Error)?
        do {
            try produce { data in
                guard !broken, data.count > 0 else { return }
                broken = PQputCopyData(connection, data.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(data.count)) != 1
            }
        } catch {
            producerError = error
        }
        _ = PQputCopyEnd(connection, broken || producerError != nil ? "aborted" : nil)
        var failure: PostgresError?
        var copied = 0
        while let result = PQgetResult(connection) {
            do throws(PostgresError) { try check(result) } catch { failure = failure ?? error }
            if failure == nil { copied += Int(String(cString: PQcmdTuples(result))) ?? 0 }
            PQclear(result)
        }
        if let producerError { throw producerError }
        if let failure { throw failure }
        return copied
    }

    private func check(_ result: OpaquePointer?) throws(PostgresError) {
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_COPY_IN { return }
        guard let result else { throw PostgresError(kind: .connection, message: Self.text(PQerrorMessage(connection))) }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        var message = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) } ?? Self.text(PQerrorMessage(connection))
        if let detail = PQresultErrorField(result, Int32(UInt8(ascii: "D"))) { message += " (\(String(cString: detail)))" }
        var error = Self.error(state: state, message: message, connectionIsOK: PQstatus(connection) == CONNECTION_OK)
        guard error.kind != .connection else { throw error }
        if let context = PQresultErrorField(result, Int32(UInt8(ascii: "W"))) {
            error.context = String(cString: context)
            // A PL/pgSQL `RAISE EXCEPTION` with a code of its own (`USING ERRCODE = '45000'`)
            // is a trigger refusing the row, as class P0 is.
            if error.kind == .server, error.context!.contains(" at RAISE") { error.kind = .data }
        }
        throw error
    }

    /// The error a failed result means. One without a SQLSTATE is libpq's own, not the
    /// server's: the connection broke, though its status may not say so yet (a stopped
    /// server's failed COPY exited 70, an internal error, about one run in seven:
    /// helper-87).
    static func error(state: String, message: String, connectionIsOK: Bool) -> PostgresError {
        if !connectionIsOK || state.isEmpty { return PostgresError(kind: .connection, sqlState: state, message: message) }
        return PostgresError(sqlState: state, message: message)
    }

    private func withParameters<T>(_ parameters: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> T) -> T {
        var pointers: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.map { strdup($0) } ?? nil }
        defer { for pointer in pointers { free(pointer) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: max(buffer.count, 1)) { body(buffer.count == 0 ? nil : $0) }
        }
    }

    private static func text(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? ""
    }
}

extension PostgresConnection {
    /// `postgresql://` and `postgres://` name a PostgreSQL database in `--db`.
    package static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgresql://") || text.hasPrefix("postgres://")
    }

    /// The URL as logs and reports show it: a password, in the user part or as a
    /// `password=` parameter, becomes `***`.
    package static func redacted(_ url: String) -> String {
        var text = url.replacingOccurrences(of: #"^(postgres(?:ql)?://[^:@/?]*):[^@/?]*@"#, with: "$1:***@", options: .regularExpression)
        text = text.replacingOccurrences(of: #"([?&]password=)[^&]*"#, with: "$1***", options: .regularExpression)
        return text
    }
}

/// A query's result in libpq's text format, freed with it.
package final class PostgresResult {
    private let result: OpaquePointer
    package let rows: Int
    package let columns: Int

    init(_ result: OpaquePointer) {
        self.result = result
        rows = Int(PQntuples(result))
        columns = Int(PQnfields(result))
    }

    deinit { PQclear(result) }

    package func name(_ column: Int) -> String { String(cString: PQfname(result, Int32(column))) }
    /// The column's type OID (`pg_type.oid`).
    package func type(_ column: Int) -> UInt32 { UInt32(PQftype(result, Int32(column))) }
    package func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(result, Int32(row), Int32(column)) == 1 }
    /// The value's text, valid while the result lives.
    package func bytes(_ row: Int, _ column: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: PQgetvalue(result, Int32(row), Int32(column)), count: Int(PQgetlength(result, Int32(row), Int32(column))))
    }
}
