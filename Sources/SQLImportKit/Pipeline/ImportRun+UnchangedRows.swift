import Foundation
import GRDB
import GRDBSQLite

/// When a run compares records with the table's rows by content (`UnchangedRows`), and
/// how a record equal to a row is passed over.
extension ImportRun {
    enum UnchangedRowsState: Equatable {
        case undecided
        /// `unchangedRowsScan` runs.
        case scanning
        /// Not for this run, with the reason the summary gives (nil: not worth saying).
        case declined(String?)
        case built(rows: Int)
        /// Built, then dropped: another connection wrote between two checkpoints.
        case dropped(rows: Int)
    }

    /// Records written through statements before the decision, and timed after the
    /// first batch.
    static let unchangedRowsSample = 4096

    /// Decides, once `unchangedRowsSample` records went through statements, whether the
    /// rest of the run compares records by content: when at least half of those were
    /// unchanged, and the time the unchanged records still to come would spend in their
    /// statements is at least twice what the scan of the table costs. Call after each
    /// batch.
    func considerUnchangedRows(_ session: WriteSession, lastShape: RowShape?) throws {
        if unchangedRowsState == .scanning, let scan = unchangedRowsScan, scan.finished != nil {
            try endUnchangedRowsScan(interrupt: false)
        }
        guard unchangedRowsState == .undecided else { return }
        if options.contentComparison == .off {
            unchangedRowsState = .declined(nil)
            return
        }
        let forced = options.contentComparison == .always
        let counts = session.counts
        let written = session.recordsThroughStatements
        guard forced || written >= Self.unchangedRowsSample && timedRecords >= Self.unchangedRowsSample else { return }
        guard forced || counts.unchanged * 2 >= written else {
            unchangedRowsState = .declined(nil)
            return
        }
        if let refusal = unchangedRowsRefusal(session) {
            unchangedRowsState = .declined("not compared by content: \(refusal)")
            return
        }
        guard let touched = session.counters.touched, let rowidName = session.rowidName, let schema, let target else { return }
        let fractionRead = fileProgress.fractionRead(summary: summary, inputCount: options.inputs.count)
        let expected = fractionRead.map { Int(Double(summary.counts.read) / max($0, 1e-9)) } ?? summary.counts.read
        let matches = max(expected - written, 0) * counts.unchanged / max(written, 1)
        let tableRows = Int(max(touched.startMax, 1))
        // What a record's statement costs here (the writing thread's time per record so
        // far), against what the scan costs per row and a comparison per record: on keys
        // that come in the table's order (sequential ids) statements are cheap, and the
        // scan, on the core the reader needs, made a re-run slower (1.67 -> 1.78 s).
        let perRecord = Double(writingNanoseconds) / Double(max(timedRecords, 1))
        let saved = Double(matches) * (perRecord - options.comparisonCost.nanosecondsPerRecord)
        guard forced || saved >= 2 * Double(tableRows) * options.comparisonCost.scanNanosecondsPerRow else {
            // A pipe's size is unknown: its records so far may still grow to enough.
            if fractionRead != nil { unchangedRowsState = .declined(nil) }
            return
        }
        guard let shape = lastShape, let columns = coveringColumns(of: shape, schema: schema) else {
            unchangedRowsState = .declined("not compared by content: the records do not supply every column of the table")
            return
        }
        let budget = max(options.cacheSizeMiB, 1) << 20 / 4
        guard UnchangedRows.bytes(forRows: tableRows) <= budget else {
            unchangedRowsState = .declined("not compared by content: the table's \(tableRows) rows need more than a quarter of --cache-mib")
            return
        }
        var filter = target.columns.map { "\(SQLIdentifier.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
        if let predicate = target.predicate { filter = "(\(predicate)) AND \(filter)" }
        let table = self.table
        let admitted = filter
        let dataVersion = try sqliteResult { () throws(SQLiteFailure) in try UnchangedRows.dataVersion(session.connection) }
        let build: @Sendable (OpaquePointer, () -> Bool) throws(SQLiteFailure) -> UnchangedRows? = { connection, shouldStop throws(SQLiteFailure) in
            try UnchangedRows.build(
                connection: connection, table: table, rowidName: rowidName, columns: columns, filter: admitted, expectedRows: tableRows, maxBytes: budget,
                dataVersion: dataVersion, shouldStop: shouldStop)
        }
        pendingUnchangedRowsBuild = build
        let path = sqlite3_db_filename(session.connection, "main").map { String(cString: $0) } ?? ""
        // Inside the caller's transaction (the Swift API) a second connection would not
        // see the caller's own changes: the run's connection scans.
        if !path.isEmpty, !transaction.isNested, let scan = UnchangedRowsScan(path: path, like: session.connection) {
            unchangedRowsScan = scan
            unchangedRowsState = .scanning
            scan.start(build)
            if forced || options.comparisonCost.writerWaitsForTheScan { try endUnchangedRowsScan(interrupt: false) }
        } else {
            try adoptUnchangedRows(.success(sqliteResult { () throws(SQLiteFailure) in try build(session.connection) { false } }), session: session)
        }
    }

    /// Ends the scan (stopping it when `interrupt`: the input is over) and takes its
    /// rows. A scan the run's own locks kept out (a page cache that spilled) is made
    /// again on the run's connection.
    func endUnchangedRowsScan(interrupt: Bool) throws {
        guard let scan = unchangedRowsScan, let session else { return }
        unchangedRowsScan = nil
        let outcome = scan.finish(interrupt: interrupt)
        if case .failure(let failure) = outcome, failure.code & 0xFF == SQLITE_BUSY, !interrupt, let build = pendingUnchangedRowsBuild {
            return try adoptUnchangedRows(.success(sqliteResult { () throws(SQLiteFailure) in try build(session.connection) { false } }), session: session)
        }
        if interrupt, case .failure(let failure) = outcome, failure.code & 0xFF == SQLITE_INTERRUPT {
            unchangedRowsState = .declined("not compared by content: the input ended before the scan of the table did")
            return
        }
        try adoptUnchangedRows(outcome, session: session)
    }

    private func adoptUnchangedRows(_ outcome: Result<UnchangedRows?, SQLiteFailure>, session: WriteSession) throws {
        pendingUnchangedRowsBuild = nil
        switch outcome {
        case .success(let rows?):
            unchangedRows = rows
            unchangedRowsState = .built(rows: rows.count)
            // Paid for out of the page cache, as the first load's key set is.
            try db.execute(sql: "PRAGMA cache_size = \(-(max(options.cacheSizeMiB, 1) << 10 - rows.bytes >> 10))")
        case .success(nil):
            unchangedRowsState = .declined("not compared by content: the table's rows need more than a quarter of --cache-mib")
        case .failure(let failure):
            unchangedRowsState = .declined("not compared by content: the scan of the table failed (\(failure.description))")
        }
    }

    /// Runs a scan step, turning its error into a `DatabaseError` for the run.
    private func sqliteResult<T>(_ body: () throws(SQLiteFailure) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw DatabaseError(resultCode: ResultCode(rawValue: error.code), message: error.description)
        }
    }

    /// Why records can never be compared by content in this run, or nil.
    private func unchangedRowsRefusal(_ session: WriteSession) -> String? {
        if session.hasTriggers { return "the database has triggers, which see every upsert" }
        if session.usesSavepoints { return "the table has an ON CONFLICT FAIL constraint" }
        if options.merge == .ignore { return "--merge ignore" }
        if options.alter { return "--alter" }
        if options.mirror.tombstone != nil { return "--tombstone" }
        if tableWasEmpty || firstLoadKeys != nil || session.insertsOnly { return "a first load" }
        if session.counters.touched == nil { return "a WITHOUT ROWID table" }
        guard let tableSQL = try? String.fetchOne(db, sql: "SELECT upper(sql) FROM sqlite_schema WHERE type = 'table' AND name = ?", arguments: [table]),
            !tableSQL.contains("REPLACE"), !tableSQL.contains("IGNORE")
        else { return "an ON CONFLICT REPLACE or IGNORE constraint" }
        // SQLite checks CHECK constraints on the record before it finds the conflict: a
        // stored row that breaks one (written with ignore_check_constraints) fails its
        // record's upsert, and must not be passed over.
        if tableSQL.contains(/\bCHECK\s*\(/) { return "a CHECK constraint, which an upsert checks even when it changes nothing" }
        // A no-op upsert with a generated rowid still advances sqlite_sequence.
        if tableSQL.contains(/\bAUTOINCREMENT\b/) { return "AUTOINCREMENT, whose counter an upsert advances even when it changes nothing" }
        // A cascade changes rows of this table without `sqlimport_outcome` seeing them,
        // so that their hashes go stale.
        let actions = (try? String.fetchAll(db, sql: "SELECT upper(on_update) || ' ' || upper(on_delete) FROM pragma_foreign_key_list(?)", arguments: [table])) ?? ["CASCADE"]
        if actions.contains(where: { $0.contains("CASCADE") || $0.contains("SET") }) {
            return "a foreign key whose ON UPDATE or ON DELETE action changes the table's rows"
        }
        // A table of the same name in `temp` is the one the run writes; the scan reads `main`.
        if (try? Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_temp_schema WHERE name = ? COLLATE NOCASE)", arguments: [table])) ?? true {
            return "a temporary table of the same name"
        }
        return nil
    }

    /// The columns `shape` writes, when they are every column the table lets a record
    /// write (the `INTEGER PRIMARY KEY` aside, which a new row gets anyway: no CHECK
    /// constraint sees it, `unchangedRowsRefusal`), with their names and affinities.
    private func coveringColumns(of shape: RowShape, schema: TableSchema) -> [(index: Int, name: String, affinity: ColumnAffinity)]? {
        var writable = Set(schema.columns.indices.filter { schema.columns[$0].isWritable })
        if let alias = schema.rowidAlias, let index = schema.columnIndex(named: alias), !shape.tableColumns.contains(index) {
            writable.remove(index)
        }
        guard Set(shape.tableColumns) == writable, shape.tableColumns.count == writable.count else { return nil }
        return zip(shape.tableColumns, shape.affinities).map { ($0, schema.columns[$0].name, $1) }
    }

    /// The rowid of the row `row` is equal to in every column, when `unchangedRows` has it.
    @inline(__always)
    func unchangedRowid(row: Int, of batch: RecordBatch, shape: RowShape, session: WriteSession, bytes: UnsafePointer<UInt8>) -> Int64? {
        guard let unchangedRows, unchangedRows.hashes(shape) else { return nil }
        var hasher = RowHasher(seeds: unchangedRows.seeds)
        do {
            try session.values(of: row, in: batch, shape: shape, into: &hasher, bytes: bytes)
        } catch {
            return nil  // the statement will refuse it, saying why
        }
        return unchangedRows.rowid(of: hasher.finish())
    }

    /// Counts the record equal to row `rowid` as unchanged, as its upsert would have, and
    /// returns true; false when the run has written that row since the scan (the record
    /// then goes through its statement).
    func passUnchanged(_ rowid: Int64, session: WriteSession) -> Bool {
        guard let touched = session.counters.touched, !touched.protects(rowid) else { return false }
        _ = touched.testAndSet(rowid)
        session.counters.unchanged += 1
        recordsMatchedByContent += 1
        return true
    }

    /// After a checkpoint's commit: another connection may have changed rows since the
    /// scan, and then the hashes are dropped.
    func checkUnchangedRowsAfterCommit(_ session: WriteSession) throws {
        guard let unchangedRows else { return }
        let version = try sqliteResult { () throws(SQLiteFailure) in try UnchangedRows.dataVersion(session.connection) }
        guard version != unchangedRows.dataVersion else { return }
        self.unchangedRows = nil
        unchangedRowsState = .dropped(rows: unchangedRows.count)
        try db.execute(sql: "PRAGMA cache_size = \(-(max(options.cacheSizeMiB, 1) << 10))")
    }

    /// The summary's line (`ImportSummary.unchangedRows`).
    func describeUnchangedRows() {
        switch unchangedRowsState {
        case .undecided, .scanning, .declined(nil):
            break
        case .declined(let reason?):
            summary.unchangedRows = reason
        case .built(let rows):
            summary.unchangedRows = "compared by content with the table's \(rows) rows after one scan: \(recordsMatchedByContent) record(s) matched a row and were counted unchanged without a statement"
        case .dropped(let rows):
            summary.unchangedRows = "compared by content with the table's \(rows) rows after one scan until another connection wrote between checkpoints: \(recordsMatchedByContent) record(s) matched a row before that"
        }
    }
}
