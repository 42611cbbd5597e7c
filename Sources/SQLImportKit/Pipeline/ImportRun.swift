import Foundation
import GRDB
import GRDBSQLite

/// The state of one import inside its transaction: schema decisions, column mapping,
/// and the hand-off of each batch's rows to the write strategy.
final class ImportRun {
    let options: ImportOptions
    let db: Database
    let table: String
    let source: BatchSource
    let transaction: RunTransaction
    var summary: ImportSummary
    let progress: ((ImportProgress) -> Void)?

    private var schema: TableSchema?
    /// True when the table exists in the database (not only in a dry run's plan).
    private var tableIsReal = false
    private var target: ConflictTarget?
    private var session: WriteSession?
    private var strategy: WriteStrategy = CachedStatementStrategy()
    private var tableWasEmpty = true
    private var inputNames: [String] = []
    /// Input column names, by column number.
    private var columnNames: [String] = []
    /// Table column of each mapped input column, by column number; nil when dropped.
    private var tableColumnOfInput: [Int?] = []

    // Checkpoints (--commit-every) and --resume.
    private var rowsSinceCommit = 0
    private var committedRowsOfInput: [Int: Int] = [:]
    private var fingerprints: [Int: RunLog.Fingerprint] = [:]
    private var resumeEntries: [String: RunLog.Entry] = [:]
    /// Records of input `i` before this decompressed offset were committed by the
    /// interrupted run, and are skipped.
    private var resumeOffsetOfInput: [Int: Int64] = [:]
    private var countsAtLastCommit = OutcomeCounts()
    private var deferredIndexes = DeferredIndexes()
    private var rejectsFile: RejectsFile?

    init(
        options: ImportOptions, db: Database, table: String, source: BatchSource, transaction: RunTransaction, summary: ImportSummary,
        progress: ((ImportProgress) -> Void)?
    ) {
        self.transaction = transaction
        self.options = options
        self.db = db
        self.table = table
        self.source = source
        self.summary = summary
        self.progress = progress
    }

    func close() {
        session?.close()
        session = nil
        rejectsFile?.close()
    }

    /// The summary of a run that failed: what was read, and the counts as of the last
    /// commit (nothing, without --commit-every).
    var summaryAfterFailure: ImportSummary {
        var failed = summary
        let read = summary.counts.read
        failed.counts = countsAtLastCommit
        failed.counts.read = read
        return failed
    }

    // MARK: - Run

    func execute() throws {
        if let path = options.rejectsPath { rejectsFile = try RejectsFile(path: path) }
        if options.commitEvery != nil { try prepareRunLog() }
        if let existing = try TableSchema.read(db, table: table) {
            schema = existing
            tableIsReal = true
            tableWasEmpty = try Bool.fetchOne(db, sql: "SELECT NOT EXISTS (SELECT 1 FROM \(SQLIdentifier.quote(table)))") ?? true
            try resolveTarget()
            try deferIndexes()
        }
        var sample: [RecordBatch] = []
        var sampleRows = 0
        loop: while let item = source.next() {
            try checkCancellation()
            switch item {
            case .opened(let index, let description):
                inputNames.append(description.path)
                summary.inputs.append(description)
                try resumeInput(index, path: description.path)
            case .batch(let batch):
                try account(batch)
                if schema == nil {
                    sample.append(batch)
                    sampleRows += batch.rowCount
                    if sampleRows < options.inferRows { continue }
                    try createTable(from: sample)
                }
                for pending in sample where pending !== batch {
                    try write(pending)
                    source.recycle(pending)
                }
                sample.removeAll()
                try write(batch)
                source.recycle(batch)
            case .failed(let error):
                throw error
            case .finished:
                break loop
            }
        }
        try checkCancellation()
        if schema == nil {
            if columnNames.isEmpty {
                summary.warnings.append("the input holds no fields; table \(SQLIdentifier.quote(table)) was not created")
                return finishSummary()
            }
            try createTable(from: sample)
        }
        for pending in sample { try write(pending) }
        try deferredIndexes.rebuild(db, table: table)
        finishSummary()
    }

    /// For a first load, drops secondary indexes to build them once at the end (see
    /// `DeferredIndexes` for when this applies).
    private func deferIndexes() throws {
        guard tableWasEmpty, tableIsReal, !options.dryRun, options.commitEvery == nil, options.onError == .abort else { return }
        deferredIndexes = try DeferredIndexes.drop(db, table: table, keep: target?.key.indexName)
        summary.deferredIndexes = deferredIndexes.indexes.map(\.name)
    }

    private func checkCancellation() throws {
        if let signal = options.cancellation?.signal { throw ImportError.interrupted(signal: signal) }
    }

    // MARK: - Checkpoints and resume

    /// Creates `_sqlimport_runs` and decides whether this run continues an interrupted one:
    /// only with --resume, and only when some input of the last run did not finish.
    private func prepareRunLog() throws {
        try RunLog.ensureTable(db)
        for (index, path) in options.inputs.enumerated() where path != "-" {
            fingerprints[index] = try RunLog.Fingerprint(path: path)
        }
        let entries = try RunLog.entries(db, target: table)
        let previous = options.inputs.compactMap { entries[$0] }
        if options.resume, !previous.isEmpty, !previous.allSatisfy(\.finished) {
            resumeEntries = entries
        } else if options.resume {
            summary.warnings.append("--resume: no interrupted run of these inputs into \(SQLIdentifier.quote(table)); importing from the start")
        }
    }

    private func resumeInput(_ index: Int, path: String) throws {
        guard let entry = resumeEntries[path] else {
            if options.commitEvery != nil { try saveProgress(input: index, offset: 0, finished: false) }
            return
        }
        guard entry.fingerprint == fingerprints[index] else { throw ImportError.inputChangedSinceInterruptedRun(path: path) }
        resumeOffsetOfInput[index] = entry.finished ? Int64.max : entry.committedOffset
        committedRowsOfInput[index] = entry.committedRows
        summary.resumedRecords += entry.committedRows
    }

    private func saveProgress(input: Int, offset: Int64, finished: Bool) throws {
        guard options.commitEvery != nil, let path = options.inputs[safe: input] else { return }
        let entry = RunLog.Entry(
            fingerprint: fingerprints[input] ?? RunLog.Fingerprint(size: -1, headCRC32: 0), committedOffset: offset,
            committedRows: committedRowsOfInput[input, default: 0], finished: finished)
        try RunLog.save(db, target: table, path: path, entry: entry)
    }

    /// After a batch: record its end as this input's progress, and commit after every
    /// --commit-every records read (the reading thread ends batches there).
    private func afterWriting(_ batch: RecordBatch, rows: Int) throws {
        guard options.commitEvery != nil else { return }
        committedRowsOfInput[batch.inputIndex, default: 0] += rows
        rowsSinceCommit += rows
        if batch.endsInput || batch.endsCommitInterval {
            try saveProgress(input: batch.inputIndex, offset: batch.inputBytesConsumed, finished: batch.endsInput)
        }
        if batch.endsCommitInterval && rowsSinceCommit > 0 {
            syncCounts()
            try transaction.checkpoint()
            countsAtLastCommit = summary.counts
            rowsSinceCommit = 0
        }
    }

    // MARK: - Rejects

    private func reject(_ record: RejectedRecord) throws {
        summary.counts.rejected += 1
        try rejectsFile?.append(record)
        if let limit = options.maxErrors, summary.counts.rejected > limit {
            throw ImportError.tooManyRejects(limit: limit, last: "\(record.input):\(record.line): \(record.reason)")
        }
    }

    private func account(_ batch: RecordBatch) throws {
        columnNames.append(contentsOf: batch.newColumns)
        summary.counts.read += batch.rowCount + batch.rejects.count
        for record in batch.rejects { try reject(record) }
        summary.counts.numbersKeptAsText += batch.numbersKeptAsText
        summary.inputs[batch.inputIndex].bytesRead = batch.inputBytesConsumed
        if let progress {
            let sizes = summary.inputs.map { $0.compression == .none ? $0.bytes : nil }
            let total: Int64? = sizes.contains(where: { $0 == nil }) || summary.inputs.count < options.inputs.count ? nil : sizes.reduce(0) { $0 + $1! }
            progress(ImportProgress(rowsRead: summary.counts.read, bytesRead: summary.bytesRead, totalBytes: total))
        }
    }

    // MARK: - Schema

    private func createTable(from sample: [RecordBatch]) throws {
        try checkFieldNames(columnNames)
        let limit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_COLUMN, -1))
        if columnNames.count > limit { throw SchemaError.tooManyColumns(table: table, count: columnNames.count, limit: limit) }
        try checkCaseCollisions(columnNames)
        // Without --pk, the --upsert columns become the new table's primary key.
        let primaryKey = options.primaryKey.isEmpty ? (options.upsert ?? []) : options.primaryKey
        let creation = try TableCreation.infer(
            table: table, columnNames: columnNames, sample: sample, sampleRows: options.inferRows,
            primaryKey: primaryKey, primaryKeyOption: options.primaryKey.isEmpty ? "--upsert" : "--pk",
            typeOverrides: options.typeOverrides)
        summary.createdTable = creation.sql
        if options.dryRun {
            schema = creation.schema
        } else {
            try db.execute(sql: creation.sql)
            schema = try TableSchema.read(db, table: table)
            tableIsReal = true
        }
        tableWasEmpty = true
        try resolveTarget()
    }

    private func checkFieldNames(_ names: [String]) throws {
        for name in names {
            if name.isEmpty { throw ImportError.invalidFieldName(name: name, reason: "is empty, and a column needs a name") }
            if name.utf8.contains(0) { throw ImportError.invalidFieldName(name: name, reason: "contains a NUL byte, which SQLite identifiers cannot hold") }
        }
    }

    private func checkCaseCollisions(_ names: [String]) throws {
        var seen: [String: String] = [:]
        for name in names {
            if let other = seen[name.lowercased()] {
                throw SchemaError.fieldsCollide(table: table, fields: [other, name], column: other)
            }
            seen[name.lowercased()] = name
        }
    }

    /// Matches `--upsert` against the table's keys, before any row is written, and
    /// prepares a probe statement so that a bad conflict clause fails fast.
    private func resolveTarget() throws {
        guard let requested = options.upsert, var schema else { return }
        var key: UniqueKey?
        var failure: UpsertError?
        do {
            key = try ConflictTarget.resolve(requested: requested, in: schema)
        } catch {
            failure = error
        }
        if let failure {
            guard case .noMatchingKey = failure, options.createIndex else { throw failure }
            key = try createIndex(on: requested, in: &schema)
            self.schema = schema
        }
        guard let key else { return }
        if case .newer(let column) = options.merge, schema.columnIndex(named: column) == nil {
            throw UpsertError.newerColumnMissing(column: column, table: table)
        }
        target = ConflictTarget(key: key, fallbackKey: nil)
        summary.conflictTarget = key.columns
        summary.conflictPredicate = key.partialPredicate
        if tableIsReal {
            let probe = UpsertStatement(table: table, columns: key.columns, target: target, policy: .ignore).sql()
            do {
                _ = try db.makeStatement(sql: probe)
            } catch let error as DatabaseError {
                throw UpsertError.conflictClauseRejected(sql: probe, message: error.message ?? "\(error)")
            }
        }
    }

    private func createIndex(on columns: [String], in schema: inout TableSchema) throws -> UniqueKey {
        let names = columns.map { name in schema.columns[schema.columnIndex(named: name)!].name }
        let quoted = SQLIdentifier.quoteList(names)
        let notNull = names.map { "\(SQLIdentifier.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
        if tableIsReal, let duplicate = try Row.fetchOne(
            db, sql: "SELECT \(quoted) FROM \(SQLIdentifier.quote(table)) WHERE \(notNull) GROUP BY \(quoted) HAVING count(*) > 1 LIMIT 1")
        {
            let example = "(" + duplicate.databaseValues.map(\.description).joined(separator: ", ") + ")"
            throw UpsertError.duplicateKeysBlockIndex(table: table, columns: names, example: example)
        }
        let indexName = "sqlimport_\(table)_\(names.joined(separator: "_"))"
        let sql = "CREATE UNIQUE INDEX \(SQLIdentifier.quote(indexName)) ON \(SQLIdentifier.quote(table)) (\(quoted))"
        summary.createdIndex = sql
        let key = UniqueKey(indexName: indexName, columns: names, origin: .uniqueIndex, partialPredicate: nil)
        if options.dryRun || !tableIsReal {
            schema.uniqueKeys.append(key)
        } else {
            try db.execute(sql: sql)
            schema = try TableSchema.read(db, table: table)!
        }
        return key
    }

    // MARK: - Columns

    /// Maps the input columns first seen in `batch` to table columns: by name, ignoring
    /// case; unknown fields are added (--alter), dropped (--ignore-unknown) or an error.
    private func mapNewColumns(of batch: RecordBatch) throws {
        guard var schema else { return }
        let first = tableColumnOfInput.count
        guard first < columnNames.count else { return }
        try checkFieldNames(Array(columnNames[first...]))
        var unknown: [Int] = []
        for input in first ..< columnNames.count {
            if let index = schema.columnIndex(named: columnNames[input]), schema.columns[index].isWritable {
                tableColumnOfInput.append(index)
            } else {
                tableColumnOfInput.append(nil)
                unknown.append(input)
            }
        }
        if !unknown.isEmpty && !options.ignoreUnknown {
            guard options.alter else {
                throw SchemaError.unknownFields(table: table, fields: unknown.map { columnNames[$0] })
            }
            let limit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_COLUMN, -1))
            if schema.columns.count + unknown.count > limit {
                throw SchemaError.tooManyColumns(table: table, count: schema.columns.count + unknown.count, limit: limit)
            }
            try checkCaseCollisions(schema.columns.map(\.name) + unknown.map { columnNames[$0] })
            for input in unknown {
                var tracker = TypeTracker()
                batch.bytes.withUnsafeBufferPointer { bytes in
                    for row in 0 ..< batch.rowCount { tracker.observe(batch.cell(row: row, column: input), bytes: bytes) }
                }
                let name = columnNames[input]
                let sql = "ALTER TABLE \(SQLIdentifier.quote(table)) ADD COLUMN \(SQLIdentifier.quote(name)) \(tracker.declaredType)"
                summary.addedColumns.append(name)
                if options.dryRun {
                    schema.columns.append(ColumnInfo(name: name, declaredType: tracker.declaredType, notNull: false, defaultSQL: nil, primaryKeyPosition: 0, isWritable: true))
                } else {
                    try db.execute(sql: sql)
                }
            }
            if !options.dryRun { schema = try TableSchema.read(db, table: table)! }
            for input in unknown { tableColumnOfInput[input] = schema.columnIndex(named: columnNames[input]) }
            self.schema = schema
            session?.updateSchema(schema)
        }
        // Two fields may not land in one column.
        var owner: [Int: Int] = [:]
        for (input, column) in tableColumnOfInput.enumerated() {
            guard let column else { continue }
            if let other = owner[column], other != input {
                throw SchemaError.fieldsCollide(table: table, fields: [columnNames[other], columnNames[input]], column: schema.columns[column].name)
            }
            owner[column] = input
        }
        if let session {
            for input in first ..< columnNames.count {
                if let column = tableColumnOfInput[input] { session.map(input: input, toTableColumn: column) }
            }
        }
    }

    /// True when the table keeps a secondary index (not the primary key's) that the load
    /// updates row by row: one that could not be deferred (see `DeferredIndexes`).
    private func maintainsSecondaryIndexes() throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pragma_index_list(?) WHERE origin <> 'pk')", arguments: [table]) ?? false
    }

    /// Creates the write session once the first batch's columns are known.
    private func startSession() throws -> WriteSession {
        guard let schema else { preconditionFailure("the table exists before writing") }
        let mapped = Set(tableColumnOfInput.compactMap { $0 })
        for (index, column) in schema.columns.enumerated()
        where column.notNull && column.defaultSQL == nil && column.isWritable && !mapped.contains(index) && column.name != schema.rowidAlias {
            throw SchemaError.missingRequiredColumn(table: table, column: column.name)
        }
        if var target {
            for column in target.columns where !mapped.contains(schema.columnIndex(named: column)!) {
                throw UpsertError.keyNotInInput(column: column)
            }
            if case .newer(let column) = options.merge, !mapped.contains(schema.columnIndex(named: column)!) {
                throw UpsertError.newerColumnMissing(column: column, table: table)
            }
            let primaryKey = schema.primaryKey
            if target.predicate != nil, !primaryKey.isEmpty,
                Set(primaryKey.map { $0.lowercased() }) != Set(target.columns.map { $0.lowercased() }),
                primaryKey.allSatisfy({ mapped.contains(schema.columnIndex(named: $0)!) })
            {
                target.fallbackKey = primaryKey
                summary.fallbackKey = primaryKey
            }
            self.target = target
        }
        let session = WriteSession(db: db, schema: schema, target: target, policy: options.merge)
        if options.onError == .skip {
            session.onRecordFailure = { [unowned self] error, row, batch in
                try reject(RejectedRecord(
                    input: error.position.input, line: error.position.line, byteOffset: error.position.byteOffset,
                    reason: error.description, record: batch.rawRecord(row: row)))
            }
        }
        for (input, column) in tableColumnOfInput.enumerated() {
            if let column { session.map(input: input, toTableColumn: column) }
        }
        var kind = options.strategy
        if kind == .auto {
            let choice = WriteStrategyKind.choose(tableWasEmpty: tableWasEmpty, maintainsIndexes: try maintainsSecondaryIndexes())
            kind = choice.kind
            summary.strategyReason = choice.reason
        }
        summary.strategy = kind.rawValue
        switch kind {
        case .auto, .cached: strategy = CachedStatementStrategy()
        case .typed: strategy = TypedStrategy()
        case .multirow: strategy = MultiRowStrategy(cap: options.multirowCap ?? MultiRowStrategy.defaultCap)
        }
        summary.rowsPerStatement = strategy.rowsPerStatement(columns: max(mapped.count, 1), session: session)
        return session
    }

    // MARK: - Rows

    private func write(_ batch: RecordBatch) throws {
        try mapNewColumns(of: batch)
        let session = try self.session ?? startSession()
        self.session = session
        if batch.bytes.isEmpty { batch.bytes.append(0) }  // a valid base address
        let inputName = inputNames[batch.inputIndex]
        // Records an interrupted run already committed are passed over.
        var firstRow = 0
        if let resumeOffset = resumeOffsetOfInput[batch.inputIndex] {
            while firstRow < batch.rowCount, batch.byteOffsets[firstRow] < resumeOffset { firstRow += 1 }
            summary.counts.read -= firstRow
        }
        try batch.bytes.withUnsafeBufferPointer { buffer in
            let bytes = buffer.baseAddress!
            var runStart = firstRow
            var runShape: RowShape?
            for row in firstRow ..< batch.rowCount {
                let shape = session.shape(of: row, in: batch)
                if shape.inputColumns.isEmpty { throw ImportError.emptyRecord(batch.position(row: row, inputName: inputName)) }
                if let filter = session.partialFilter, try !filter.isInside(row: row, of: batch, shape: shape, session: session, bytes: bytes) {
                    summary.counts.outsidePartialIndex += 1
                }
                if summary.statementSQL == nil {
                    summary.statementSQL = shape.statement.sql(rowCount: 1)
                }
                if shape !== runShape {
                    if let runShape, !options.dryRun {
                        try strategy.write(runStart ..< row, of: batch, shape: runShape, session: session, inputName: inputName, bytes: bytes)
                    }
                    runShape = shape
                    runStart = row
                }
            }
            if let runShape, !options.dryRun {
                try strategy.write(runStart ..< batch.rowCount, of: batch, shape: runShape, session: session, inputName: inputName, bytes: bytes)
            }
        }
        try checkCancellation()
        try afterWriting(batch, rows: batch.rowCount - firstRow)
    }

    private func syncCounts() {
        if let session {
            let counts = session.counts
            summary.counts.inserted = counts.inserted
            summary.counts.updated = counts.updated
            summary.counts.unchanged = counts.unchanged
            summary.counts.skipped = counts.skipped
        }
    }

    private func finishSummary() {
        syncCounts()
        if summary.counts.outsidePartialIndex > 0, let target, target.fallbackKey == nil {
            summary.warnings.append(
                "\(summary.counts.outsidePartialIndex) record(s) fall outside the partial index's predicate (WHERE \(target.predicate ?? "")) and the input supplies no primary key: they were inserted as new rows, and a re-run will insert them again")
        }
        if summary.counts.numbersKeptAsText > 0 {
            summary.warnings.append("\(summary.counts.numbersKeptAsText) number(s) do not fit a 64-bit integer or a double exactly and were stored as TEXT")
        }
    }
}
