/// How rows reach SQLite (`--strategy`). All strategies leave identical databases and
/// identical counts; they differ in speed and in how early and how precisely they report
/// a bad value.
public enum WriteStrategyKind: String, Sendable, Codable, CaseIterable {
    /// Picks `cached` or `multirow` by the rule in `WriteStrategyKind.choose`.
    case auto
    /// One record per statement; each value is checked against the column's declared
    /// type first, so a failure names the column, the expected type and the value.
    case typed
    /// One prepared statement, re-bound per record.
    case cached
    /// `VALUES (...), (...)`, as many records per statement as the variable limit allows,
    /// up to `MultiRowStrategy.defaultCap`.
    case multirow

    /// The `auto` rule, from the measurements in bench/README.md:
    /// - `cached` when the table is empty at the start and keeps a secondary index that
    ///   must be maintained row by row (the conflict target's, or one that cannot be
    ///   deferred): every row is then an insert into random-key indexes, where one row
    ///   per statement is as fast or faster;
    /// - `multirow` otherwise: a first load whose secondary indexes are built after the
    ///   load (1.5× faster than one row per statement), re-runs (1.45×) and deltas.
    public static func choose(tableWasEmpty: Bool, maintainsIndexes: Bool) -> (kind: WriteStrategyKind, reason: String) {
        if tableWasEmpty && maintainsIndexes {
            return (.cached, "the table is empty and a secondary index is maintained row by row: one row per statement is fastest")
        }
        if tableWasEmpty {
            return (.multirow, "a first load with no secondary index updated row by row: multi-row statements are fastest")
        }
        return (.multirow, "the table already holds rows, so most rows conflict: multi-row statements are fastest")
    }
}

/// Writes runs of records that share a shape.
protocol WriteStrategy {
    /// Rows per statement for a shape of `columns` columns.
    func rowsPerStatement(columns: Int, session: WriteSession) -> Int
    /// Writes `rows` of `batch`, all of `shape`, in order: a key seen twice is resolved
    /// by the later record.
    func write(_ rows: Range<Int>, of batch: RecordBatch, shape: RowShape, session: WriteSession, inputName: String, bytes: UnsafePointer<UInt8>) throws
}

/// One record per statement, re-bound each time.
struct CachedStatementStrategy: WriteStrategy {
    func rowsPerStatement(columns: Int, session: WriteSession) -> Int { 1 }

    func write(_ rows: Range<Int>, of batch: RecordBatch, shape: RowShape, session: WriteSession, inputName: String, bytes: UnsafePointer<UInt8>) throws {
        let statement = try session.statement(for: shape, rows: 1)
        for row in rows {
            do {
                try session.execute(
                    statement, shape: shape, rows: row ..< row + 1, batch: batch, bytes: bytes,
                    atomic: session.usesSavepoints && session.onRecordFailure != nil)
            } catch {
                if error.endsInsertsOnly { throw InsertsOnlyConflict(row: row) }
                try session.fail(session.recordError(error, row: row, shape: shape, batch: batch, inputName: inputName), row: row, batch: batch)
            }
        }
    }
}

/// `INSERT ... VALUES (...), (...)`: records per statement = min(limit ÷ columns, cap),
/// where limit is `SQLITE_LIMIT_VARIABLE_NUMBER` read at run time; the remainder goes
/// through a second statement of its own size. A chunk that fails is retried record by
/// record, so the bad record is named and the good ones are applied.
struct MultiRowStrategy: WriteStrategy {
    /// Preparing huge statements is slow; measured in bench/ (see bench/README.md).
    static let defaultCap = 500
    var cap = MultiRowStrategy.defaultCap

    func rowsPerStatement(columns: Int, session: WriteSession) -> Int {
        max(1, min(session.variableLimit / max(columns, 1), cap, session.recordsPerStatementLimit ?? .max))
    }

    func write(_ rows: Range<Int>, of batch: RecordBatch, shape: RowShape, session: WriteSession, inputName: String, bytes: UnsafePointer<UInt8>) throws {
        let chunk = rowsPerStatement(columns: shape.inputColumns.count, session: session)
        var start = rows.lowerBound
        while start < rows.upperBound {
            let count = min(chunk, rows.upperBound - start)
            let statement = try session.statement(for: shape, rows: count)
            do {
                try session.execute(statement, shape: shape, rows: start ..< start + count, batch: batch, bytes: bytes, atomic: session.usesSavepoints)
            } catch {
                if error.endsInsertsOnly { throw InsertsOnlyConflict(row: start) }
                // A full disk or an I/O error is not a record's: SQLite may have rolled the
                // transaction back, and retried records would each commit on their own.
                guard error.isAboutTheRecord else {
                    var failure = session.recordError(error, row: start, shape: shape, batch: batch, inputName: inputName)
                    if count > 1 {
                        let lines = (start ..< start + count).map { batch.lines[$0] }
                        failure.statementRecords = (count, lines.min()! ... lines.max()!)
                    }
                    throw failure
                }
                // Isolate the failing record; the good ones of the chunk are still applied.
                // The chunk's work was undone whole (see `WriteSession.usesSavepoints`), so
                // each record runs once more from the state before the chunk.
                try CachedStatementStrategy().write(start ..< start + count, of: batch, shape: shape, session: session, inputName: inputName, bytes: bytes)
            }
            start += count
        }
    }
}
