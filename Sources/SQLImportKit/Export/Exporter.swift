import Foundation
import GRDB
import GRDBSQLite

/// Streams a table or a query's rows out of SQLite as JSON Lines, JSON, CSV or TSV,
/// optionally compressed with zstd or gzip: the library's entry point for
/// `sqlimport export`.
///
/// Memory stays constant whatever the number of rows: one raw `sqlite3_stmt` is stepped,
/// each row is encoded into one reusable buffer, and the buffer is handed to the output
/// in chunks of about 1 MiB. A file output is written under a temporary name next to it
/// and renamed into place only when complete.
///
/// ```swift
/// var options = ExportOptions(databasePath: "app.db", source: .query("SELECT * FROM items WHERE libraryID = 1"))
/// options.outputPath = "items.jsonl.zst"
/// let summary = try Exporter(options: options).run()
/// ```
public final class Exporter {
    public let options: ExportOptions

    public init(options: ExportOptions) {
        self.options = options
    }

    /// Runs the export.
    /// - Throws: `ExportError`, `OutputError` (`.brokenPipe` when standard output's reader
    ///   went away), or GRDB's `DatabaseError`.
    ///
    /// - Parameter progress: called with the rows written so far, every 65,536 rows.
    public func run(progress: ((Int) -> Void)? = nil) throws -> ExportSummary {
        if let path = options.outputFile {
            try OutputError.refuseReplacing(source: options.databasePath, with: path, what: "the database being exported")
        }
        if let path = options.outputFile, !options.force, FileManager.default.fileExists(atPath: path), !AtomicOutputFile.writesInPlace(path) {
            throw OutputError.alreadyExists(path: path, what: "exports")
        }
        let format = try options.resolvedFormat()
        let compression = try options.resolvedCompression()
        let queue = try SourceDatabase.openReadOnly(path: options.databasePath, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        return try queue.inDatabase { db in try export(db, format: format, compression: compression, progress: progress) }
    }

    // MARK: - Steps

    private func export(_ db: Database, format: InputFormat, compression: OutputCompression, progress: ((Int) -> Void)?) throws -> ExportSummary {
        let statement = try prepare(db, sql: try selectSQL(db))
        defer { sqlite3_finalize(statement) }
        try bindParameters(statement)
        let columns = (0 ..< sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
        var encoder = try ValueText.encoder(for: format, columns: columns, nullText: options.nullText)

        return try ExportOutput.write(options, format: format, compression: compression, columns: columns) { writer in
            try encoder.begin(into: &writer.bytes)
            var rows = 0
            while true {
                let code = sqlite3_step(statement)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else {
                    throw DatabaseError(
                        resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)),
                        sql: String(cString: sqlite3_sql(statement)))
                }
                rows += 1
                if rows & 0xFFFF == 0 { progress?(rows) }
                try encoder.encodeRow(statement, number: rows, into: &writer.bytes)
                try writer.flushIfFull()
            }
            encoder.end(rows: rows, into: &writer.bytes)
            return rows
        }
    }

    /// The statement to run: the query, or `SELECT *` from an existing table or view.
    private func selectSQL(_ db: Database) throws -> String {
        switch options.source {
        case .query(let sql):
            return sql
        case .table(let name):
            let exists = try Bool.fetchOne(
                db, sql: "SELECT count(*) > 0 FROM sqlite_schema WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
                arguments: [name]) ?? false
            guard exists else {
                let tables = try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
                throw ExportError.noSuchTable(name: name, available: tables)
            }
            return "SELECT * FROM \(SQLIdentifier.quote(name))"
        }
    }

    /// Prepares exactly one read-only statement that returns rows.
    /// Binds `--param` values to the query's named parameters; an unbound or unknown
    /// name, or a positional `?`, is an error (SQLite would read an unbound one as NULL).
    private func bindParameters(_ statement: OpaquePointer) throws {
        let count = sqlite3_bind_parameter_count(statement)
        var names: [String] = []
        for index in stride(from: Int32(1), through: count, by: 1) {
            guard let raw = sqlite3_bind_parameter_name(statement, index), raw.pointee != 0x3F /* ? */ else { throw ExportError.positionalParameter }
            names.append(String(String(cString: raw).dropFirst()))
        }
        if let unknown = options.parameters.keys.sorted().first(where: { !names.contains($0) }) {
            throw ExportError.unknownParameter(name: unknown, known: names)
        }
        for (offset, name) in names.enumerated() {
            guard let value = options.parameters[name] else { throw ExportError.unboundParameter(name: name) }
            _ = value.withCString { sqlite3_bind_text(statement, Int32(offset + 1), $0, -1, StatementBinder.transient) }
        }
    }

    private func prepare(_ db: Database, sql: String) throws -> OpaquePointer {
        let connection = db.sqliteConnection
        var statement: OpaquePointer?
        var extra: OpaquePointer?
        let code = sql.withCString { text -> Int32 in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v2(connection, text, -1, &statement, &tail)
            // Anything after the first statement must be blank or comments.
            if code == SQLITE_OK, let tail, tail.pointee != 0 {
                _ = sqlite3_prepare_v2(connection, tail, -1, &extra, nil)
            }
            return code
        }
        guard code == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(connection))
            // The database's own faults stay faults; anything else is the query's.
            if let fault = DatabaseFault(code: sqlite3_extended_errcode(connection), message: message, database: options.databasePath) {
                throw fault
            }
            throw ExportError.invalidQuery(query: sql, message: message)
        }
        guard let statement, extra == nil else {
            sqlite3_finalize(statement)
            sqlite3_finalize(extra)
            throw ExportError.notOneStatement(query: sql)
        }
        guard sqlite3_stmt_readonly(statement) != 0, sqlite3_column_count(statement) > 0 else {
            sqlite3_finalize(statement)
            throw ExportError.notAQuery(query: sql)
        }
        return statement
    }
}

/// What an export wrote.
public struct ExportSummary: Sendable {
    /// Rows written.
    public var rows: Int
    /// The result's column names, in order.
    public var columns: [String]
    public var format: InputFormat
    public var compression: OutputCompression
    /// The output file; nil for standard output.
    public var output: String?
    /// Bytes of encoded rows, before compression.
    public var bytesEncoded: Int64
    /// Bytes written to the file or standard output, after compression.
    public var bytesWritten: Int64
}
