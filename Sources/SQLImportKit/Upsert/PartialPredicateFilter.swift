import GRDBSQLite

/// Tells whether a record falls inside a partial index's predicate. Records outside it
/// can never conflict on that index: they are plain inserts (or go to the primary-key
/// clause), and the summary counts them as `outsidePartialIndex`.
///
/// The common predicate `col IS NOT NULL` is decided from the cell; any other predicate
/// is evaluated by SQLite on the row that would be stored, defaults included:
/// `SELECT (<predicate>) FROM (SELECT ?1 AS "a", ?2 AS "b", (0) AS "deleted") AS "items"`.
final class PartialPredicateFilter {
    private let predicate: String
    private let table: String
    private let notNullColumn: String?
    private var evaluators: [ObjectIdentifier: OpaquePointer] = [:]
    /// Whether `notNullColumn`, when a record omits it, may hold a value in the row
    /// SQLite stores (a DEFAULT or a generated column), decided once.
    private var omittedColumnMayHoldValue: Bool?

    init(predicate: String, table: String) {
        self.predicate = predicate
        self.table = table
        notNullColumn = Self.notNullColumn(in: predicate)
    }

    deinit {
        for statement in evaluators.values { sqlite3_finalize(statement) }
    }

    /// The column of a predicate of the form `col IS NOT NULL` (bare or quoted).
    static func notNullColumn(in predicate: String) -> String? {
        var text = Substring(predicate.trimmingSQLWhitespace())
        let name: String
        if text.first == "\"" {
            var collected = ""
            var index = text.index(after: text.startIndex)
            while index < text.endIndex {
                if text[index] == "\"" {
                    let next = text.index(after: index)
                    if next < text.endIndex, text[next] == "\"" {
                        collected.append("\"")
                        index = text.index(after: next)
                        continue
                    }
                    break
                }
                collected.append(text[index])
                index = text.index(after: index)
            }
            guard index < text.endIndex else { return nil }
            name = collected
            text = text[text.index(after: index)...]
        } else {
            let word = text.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            guard !word.isEmpty else { return nil }
            name = String(word)
            text = text.dropFirst(word.count)
        }
        let words = text.split(whereSeparator: \.isWhitespace).map { $0.uppercased() }
        return words == ["IS", "NOT", "NULL"] ? name : nil
    }

    func isInside(row: Int, of batch: RecordBatch, shape: RowShape, session: WriteSession, bytes: UnsafePointer<UInt8>) throws -> Bool {
        if let column = notNullColumn {
            if shape.notNullPosition == nil {
                shape.notNullPosition = .some(shape.statement.columns.firstIndex { $0.sqliteFolded == column.sqliteFolded })
            }
            if let position = shape.notNullPosition! {
                let kind = batch.cell(row: row, column: shape.inputColumns[position]).kind
                if kind != .absent { return kind != .null }
            }
            // Omitted: NULL, unless the column has a DEFAULT or is generated, which the
            // row SQLite would store holds (`DEFAULT CURRENT_TIMESTAMP`).
            if omittedColumnMayHoldValue == nil {
                let stored = session.schema.columnIndex(named: column).map { session.schema.columns[$0] }
                omittedColumnMayHoldValue = stored?.defaultSQL != nil || stored?.generatedSQL != nil
            }
            if omittedColumnMayHoldValue == false { return false }
        }
        let statement = try evaluator(for: shape, session: session)
        do {
            try session.bindRow(row, of: batch, shape: shape, to: statement, bytes: bytes)
        } catch {
            // A value the binder refuses (`0959` into an INTEGER column): the record's
            // statement refuses it too, naming the field, and `--on-error skip` sets it
            // aside there. (Thrown from here, it ended the run as an internal error.)
            return true
        }
        defer { sqlite3_reset(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return false }
        return sqlite3_column_type(statement, 0) != SQLITE_NULL && sqlite3_column_int64(statement, 0) != 0
    }

    private func evaluator(for shape: RowShape, session: WriteSession) throws -> OpaquePointer {
        if let statement = evaluators[ObjectIdentifier(shape)] { return statement }
        // The row SQLite would store: the record's values, and for every column the
        // record omits, the column's DEFAULT (or NULL), so that a predicate may name a
        // defaulted column the input leaves out (`deleted = 0 AND remoteID IS NOT NULL`).
        // Parameters are numbered in the statement's column order, as `bindRow` binds them.
        let supplied = Dictionary(
            shape.statement.columns.enumerated().map { ($0.element.sqliteFolded, $0.offset + 1) }, uniquingKeysWith: { first, _ in first })
        let columns = session.schema.columns
        let stored = columns.map { column -> String in
            let value = supplied[column.name.sqliteFolded].map { "?\($0)" } ?? column.defaultSQL.map { "(\($0))" } ?? "NULL"
            return "\(value) AS \(SQLIdentifier.quote(column.name))"
        }.joined(separator: ", ")
        var row = "SELECT \(stored.isEmpty ? "NULL" : stored)"
        // Generated columns, computed from the row as their expressions say: one layer per
        // generated column, so that one may use another whatever their order.
        let generated = columns.filter { $0.generatedSQL != nil }
        for _ in generated {
            let layer = columns.map { column in
                column.generatedSQL.map { "(\($0)) AS \(SQLIdentifier.quote(column.name))" } ?? SQLIdentifier.quote(column.name)
            }.joined(separator: ", ")
            row = "SELECT \(layer) FROM (\(row)) AS \(SQLIdentifier.quote(table))"
        }
        let sql = "SELECT (\(predicate)) FROM (\(row)) AS \(SQLIdentifier.quote(table))"
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(session.connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw UpsertError.conflictClauseRejected(sql: sql, message: String(cString: sqlite3_errmsg(session.connection)))
        }
        evaluators[ObjectIdentifier(shape)] = statement
        return statement
    }
}
