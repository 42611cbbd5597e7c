import GRDB
import GRDBSQLite

/// What a resumed run (`--resume`) knows of the records the interrupted run committed,
/// which it passes over.
extension ImportRun {
    /// Marks the rows of `rows` (records the interrupted run committed) as written by
    /// this run, so that a later record with the same key repeats one of them
    /// (`--duplicate-keys`) as it would in one uninterrupted run: the resumed run had
    /// taken them for rows that existed before, overwriting a key that
    /// `--duplicate-keys error` refuses, and counting too few repeats.
    func markResumedRows(_ rows: Range<Int>, of batch: RecordBatch, session: WriteSession, bytes: UnsafePointer<UInt8>) throws {
        guard !rows.isEmpty, let target, let schema else { return }
        for row in rows {
            let shape = session.shape(of: row, in: batch)
            let inside = try session.partialFilter?.isInside(row: row, of: batch, shape: shape, session: session, bytes: bytes) ?? true
            guard let touched = session.counters.touched, let rowidName = session.rowidName else {
                // Without rowids the `KeyLedger` counts repeats: it learns the keys.
                if let fingerprint = keyFingerprint(row: row, of: batch, shape: shape, inside: inside) {
                    _ = keyLedger.insert(fingerprint, position: KeyLedger.pack(input: batch.inputIndex, line: batch.lines[row]))
                }
                continue
            }
            let columns = keyColumns(of: shape)
            // A NULL key column matches nothing in the target: such a record lands on the
            // row of the primary key it carries (`--null-key`), which --delete-missing
            // then deleted (a helper's review).
            let targetHasNull = columns.target.contains { column in
                let kind = batch.cell(row: row, column: shape.inputColumns[column.position]).kind
                return kind == .null || kind == .absent
            }
            let byTarget = inside && !columns.target.isEmpty && !targetHasNull
            let key = byTarget ? columns.target : columns.primaryKey
            guard !key.isEmpty else { continue }
            // Each column compared as its index compares it (`KeyColumn.collation`): the
            // column's own collation missed a row a NOCASE index matched, or found another
            // one (a helper's review).
            let matches = key.map { column in
                "\(SQLIdentifier.quote(shape.statement.columns[column.position])) = ? COLLATE \(SQLIdentifier.quote(column.collation))"
            }
            var sql = "SELECT \(rowidName) FROM \(SQLIdentifier.quote(table)) WHERE \(matches.joined(separator: " AND "))"
            if byTarget, let predicate = target.predicate { sql += " AND (\(predicate))" }
            let statement = try db.cachedStatement(sql: sql).sqliteStatement
            defer { sqlite3_reset(statement) }
            var bound = true
            for (index, column) in key.enumerated() {
                let cell = batch.cell(row: row, column: shape.inputColumns[column.position])
                do {
                    try StatementBinder.bind(
                        cell, affinity: shape.affinities[column.position], to: statement, at: Int32(index + 1), bytes: bytes, anyColumnHoldsBlobs: !schema.isStrict)
                } catch {
                    bound = false  // refused when it was written: a reject, no row
                }
            }
            guard bound else { continue }
            switch sqlite3_step(statement) {
            case SQLITE_ROW:
                touched.mark(sqlite3_column_int64(statement, 0))
            case SQLITE_DONE:
                continue
            default:
                throw DatabaseError(resultCode: ResultCode(rawValue: sqlite3_errcode(session.connection)), message: String(cString: sqlite3_errmsg(session.connection)), sql: sql)
            }
        }
    }
}
