import Foundation

/// One PostgreSQL import inside its transaction (see `PostgresImporter`).
final class PostgresRun {
    let options: ImportOptions
    let connection: PostgresConnection
    /// The table, once it exists (a missing one is created from the first batch).
    var tableSchema: PostgresSchema?
    var schema: PostgresSchema { tableSchema! }
    /// The table's name as requested, for a table this run creates.
    let requestedTable: String
    /// The schema `--table schema.name` names for a table this run creates (nil: the
    /// search path's first).
    let requestedSchema: String?
    let progress: ((ImportProgress) -> Void)?
    var summary: ImportSummary

    /// The conflict target, its predicate, and the primary key that matches records
    /// outside it (nil when the target is the primary key, or there is none).
    var target: PostgresSchema.UniqueKey?
    var fallbackKey: PostgresSchema.UniqueKey?

    /// Input field index → the table's column name (nil: dropped by --ignore-unknown).
    var columnOfField: [String?] = []
    var fieldNames: [String] = []
    var inputNames: [String] = []
    /// Staging tables by shape (the sorted column names the records have).
    var stagingOfShape: [[String]: String] = [:]
    /// Per staging table, the DELETEs that emptied it since its last TRUNCATE (`empty`).
    var deletesSinceTruncate: [String: Int] = [:]
    var sequence: Int64 = 0
    var fileProgress = FileProgress()
    /// The hashes of the keys this run has met (`PostgresBatchPlan`).
    var seenKeys = Set<Int>()
    /// The hashes moved to `sqlimport_keys` on the server (`spillKeys`).
    var keysOnServer = false
    /// What the batches did to `seenKeys` since the last savepoint (`attempt`), in order
    /// (`PostgresBatchPlan.undo`).
    var seenKeysUndo: [(key: Int, wasPresent: Bool)] = []
    var rejectsFile: RejectsFile?
    /// Records set aside by a batch not yet released (`attempt`).
    var pendingRejects: [RejectedRecord] = []
    /// The table started empty and no record has met a row yet (`PostgresUpsert.apply`).
    var insertsOnly = false
    /// Whether a COPY into the table is an INSERT (`copyIntoTable`), once asked.
    var tableTakesCopy: Bool?
    /// The table's columns of a row type or a domain (`copiesIntoTable`).
    var compositeColumns = Set<String>()

    /// The reader's sorted runs (`PostgresRun+KeyOrder`); nil with `--sort-memory 0`.
    var keyOrder: KeyOrder?
    var keyOrderDecided = false
    /// Whether the first batch was asked for the `newer` column's field.
    var newerFieldChecked = false
    /// Records whose order shows applied before an earlier one of another shape (`write`).
    var recordsAppliedWithTheirShape = 0
    /// The first pair of values of other forms `--merge newer:` compared (`PostgresUpsert`).
    let newerMixes = PostgresUpsert.NewerMixes()
    /// The current batch's records with no field the table can store, set aside
    /// (`setAsideEmptyRecords`).
    var emptyRows = Set<Int>()
    /// Whether the order of writes shows in the table, and why (`orderOfWritesShows`);
    /// `columns`: where only records writing these columns keep their order (nil: all).
    var orderOfWrites: (reason: String?, columns: Set<String>?)?
    /// The literal defaults of the target's columns, as text (`fillKeyDefaults`).
    var targetDefaults: [String: String]?
    /// A first load's indexes, dropped to be built at its end (`PostgresRun+DeferredIndexes`).
    var deferredIndexes: DeferredIndexes?
    var indexDeferralDecided = false
    /// Per index, its key columns' types when they compare as their bytes (`keyColumnTypes`).
    var keyTypesOfIndex: [String: [(column: String, isInteger: Bool)]?] = [:]

    /// `--infer-rows`: the first records' types, read by a first pass.
    var sampled: ColumnSample?
    /// The columns this run typed `bigint` or `double precision` from its sample, and the
    /// sample's size: a later value the sample would have typed wider does not fit.
    var inferredKinds: [NameKey: TypeTracker.Inferred] = [:]
    /// The columns this run made `bytea` because every sampled value was a BLOB marker:
    /// a later value that is none does not fit, as on SQLite (its text became bytes).
    var inferredBytea = Set<NameKey>()
    /// The values of the batch being copied whose zone or time of day PostgreSQL's own
    /// reading drops (`serverDrops`): row << 20 | the field's position.
    var droppedByServer = Set<Int64>()
    var inferredFrom = 0

    // The sync mirror (`PostgresRun+Mirror`).
    var mirrorPrepared = false
    var scopeColumns: [(field: Int, column: String)] = []
    var scopeValues = Set<[[UInt8]?]>()
    /// The scope's values as the records spelled them (each a cell's kind, then its text).
    var scopeTexts = Set<[[UInt8]?]>()
    var tombstoneField: Int?
    /// The table held rows when the run began: the rows records land on are noted.
    var tracksSeenRows = false

    // Checkpoints (`PostgresRun+Checkpoints`).
    var runLog: PostgresRunLog?
    var fingerprints: [Int: RunLog.Fingerprint] = [:]
    var resumeEntries: [String: RunLog.Entry] = [:]
    var runID = UUID().uuidString
    var carriedIgnored = 0
    var carriedStartMax: Int64?
    /// Where `--delete-missing`'s candidates are (`prepareMirror`).
    var candidatesTable = "sqlimport_candidates"
    var resumeOffsetOfInput: [Int: Int64] = [:]
    var committedRowsOfInput: [Int: Int] = [:]
    var rowsSinceCommit = 0
    /// What the last checkpoint committed (nothing before the first).
    var countsAtLastCommit = OutcomeCounts()

    init(
        options: ImportOptions, connection: PostgresConnection, schema: PostgresSchema?, table: String, inSchema: String? = nil,
        progress: ((ImportProgress) -> Void)?
    ) throws {
        self.options = options
        self.connection = connection
        tableSchema = schema
        requestedTable = schema?.table ?? table
        requestedSchema = schema?.schema ?? inSchema
        self.progress = progress
        summary = ImportSummary(
            database: PostgresConnection.redacted(options.databasePath), table: requestedTable, merge: options.merge.description,
            strategy: "copy", strategyReason: "PostgreSQL: COPY into a staging table, then one INSERT ... ON CONFLICT per batch")
        if let schema {
            summary.rowsPerStatement = schema.foreignKeysSeeStatements ? 1 : options.rowsPerBatch
            if schema.foreignKeysSeeStatements {
                summary.strategyReason =
                    "PostgreSQL: one record per statement, in input order (slow): a foreign key's check at the end of a statement could pass records that fail one by one (the table is the parent of an immediate NO ACTION or SET DEFAULT key, refers to itself, or has a trigger while the database has a foreign key)"
            }
            try resolveKeys()
            insertsOnly = try connection.query("SELECT NOT EXISTS (SELECT FROM \(schema.ownRows))").first?[0] == "t"
        } else {
            insertsOnly = true
        }
    }

    /// The conflict target `--upsert` names, and the primary key behind a partial one.
    func resolveKeys() throws {
        try refuseRules()
        // A flag's name that matches two columns only ignoring case names neither, as a
        // field's does: `column(named:)` took the first ("LIB" for `--scope Lib` beside
        // lib), and the other column's rows were deleted.
        var named = (options.upsert ?? []).map { ("--upsert", $0) } + options.mirror.scope.map { ("--scope", $0) }
        if case .newer(let column) = options.merge { named.append(("--merge newer:", column)) }
        for (option, name) in named {
            if let columns = schema.columnsDifferingOnlyInCase(from: name) {
                throw SchemaError.ambiguousColumnInOption(option: option, name: name, table: schema.table, columns: columns)
            }
        }
        if let upsert = options.upsert {
            for column in upsert where schema.column(named: column) == nil {
                throw UpsertError.unknownKeyColumn(table: schema.table, column: column)
            }
            if schema.uniqueKey(matching: upsert) == nil && options.createIndex {
                try createIndex(on: upsert)
            }
            guard let key = schema.uniqueKey(matching: upsert) else {
                throw UpsertError.noMatchingKey(
                    table: schema.table, requested: upsert,
                    available: schema.uniqueKeys.map {
                        UniqueKey(indexName: $0.name, columns: $0.columns, origin: $0.isPrimaryKey ? .primaryKey : .uniqueIndex, partialPredicate: $0.predicate)
                    })
            }
            target = key
            fallbackKey = key.isPrimaryKey ? nil : schema.primaryKey
            summary.conflictTarget = key.columns
            summary.conflictPredicate = key.predicate
            summary.fallbackKey = fallbackKey?.columns
        }
        if case .newer(let column) = options.merge, schema.column(named: column) == nil, tableSchema != nil {
            throw UpsertError.newerColumnMissing(column: column, table: schema.table)
        }
    }

    /// PostgreSQL refuses `INSERT ... ON CONFLICT` on a table with INSERT or UPDATE rules,
    /// and an INSERT in a `WITH` query (the inserts' statement) on one with INSERT rules:
    /// said before any record, not as an internal error at the first batch.
    private func refuseRules() throws {
        let found = try connection.query(
            "SELECT string_agg(rulename, ', ' ORDER BY rulename), bool_or(ev_type = '3') FROM pg_rewrite WHERE ev_class = $1::regclass AND ev_type IN ('2', '3')",
            [schema.qualifiedName])
        guard let rules = found.first?[0] ?? nil, options.upsert != nil || found.first?[1] == "t" else { return }
        throw UpsertError.rulesRefuseWrites(table: schema.table, rules: rules, onInsert: found.first?[1] == "t")
    }

    /// `--create-index`: a unique index on `columns`, as on SQLite: partial (`WHERE col IS
    /// NOT NULL`) over the columns that may hold NULL outside the primary key, so that
    /// records with a NULL there go to the primary key's statement; refused, naming a
    /// duplicate, when the rows already break it. It is made in the run's transaction:
    /// a failed run leaves no index.
    private func createIndex(on columns: [String]) throws {
        let names = columns.map { schema.column(named: $0)!.name }
        let primary = Set(schema.primaryKey?.columns ?? [])
        let nullable = names.filter { !schema.column(named: $0)!.notNull && !primary.contains($0) }
        let quoted = SQLIdentifier.quoteList(names)
        let complete = names.map { "\(SQLIdentifier.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
        if let duplicate = try connection.query(
            "SELECT \(names.map { "\(SQLIdentifier.quote($0))::text" }.joined(separator: ", ")) FROM \(schema.ownRows) WHERE \(complete) GROUP BY \(quoted) HAVING count(*) > 1 LIMIT 1"
        ).first {
            throw UpsertError.duplicateKeysBlockIndex(table: schema.table, columns: names, example: "(" + duplicate.map { $0 ?? "NULL" }.joined(separator: ", ") + ")")
        }
        let indexName = "sqlimport_\(schema.table)_\(names.joined(separator: "_"))"
        let predicate = nullable.map { "\(SQLIdentifier.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
        let statement = "CREATE UNIQUE INDEX \(SQLIdentifier.quote(indexName)) ON \(schema.qualifiedName) (\(quoted))" + (predicate.isEmpty ? "" : " WHERE \(predicate)")
        try connection.execute(statement)
        summary.createdIndex = statement
        guard let reread = try PostgresSchema.read(connection, table: schema.table, in: schema.schema) else { return }
        tableSchema = reread
    }

    func execute() throws {
        var readerOptions = options.reader
        readerOptions.skipBadRecords = options.onError == .skip
        // (A column `--alter` adds may be `numeric` by `--type`: every field then.)
        readerOptions.exactNumberFields = options.alter ? nil : tableSchema.map { schema in
            Set(schema.columns.filter { PostgresValueCheck.Family(type: $0.baseType) == .numeric }.map { $0.name.lowercased() })
        }
        // A top-level number into `json`/`jsonb` as written, as a nested one is: `jsonb`
        // keeps `12345678901234.5678` (a double would be `12345678901234.568`), `json`
        // keeps `1e2` and `-0`. Into a text column, digits a double would lose.
        // (A `jsonb` key column's numbers stay doubles, as before: repeats of a key are
        // found by value, and `jsonb` has `1.0` and `1e0` equal.)
        let keyColumns = Set((tableSchema?.uniqueKeys ?? []).flatMap(\.columns))
        for column in tableSchema?.columns ?? [] {
            if column.baseType == "json" || (column.baseType == "jsonb" && !keyColumns.contains(column.name)) {
                readerOptions.numberTextFields[column.name.lowercased()] = .written
            } else if column.baseType == "jsonb" || PostgresValueCheck.isText(column.baseType) {
                readerOptions.numberTextFields[column.name.lowercased()] = .writtenWhereDigitsAreLost
            }
        }

        defer { rejectsFile?.close() }
        if options.commitEvery != nil && !options.dryRun { try prepareRunLog() }
        try openRejects()
        if options.upsert != nil && options.sortMemoryMiB > 0 {
            keyOrder = KeyOrder(memoryBytes: options.sortMemoryMiB << 20, runBytes: options.sortRunBytes)
        }
        let reader = BatchReader(
            paths: options.inputs, options: readerOptions, rowsPerBatch: options.rowsPerBatch, keepRaw: options.onError == .skip,
            cancellation: options.cancellation, commitEvery: options.dryRun ? nil : options.commitEvery, keyOrder: keyOrder)
        reader.start()
        defer { reader.stop() }
        while let item = reader.next() {
            if let signal = options.cancellation?.signal { throw ImportError.interrupted(signal: signal) }
            switch item {
            case .opened(let index, let description):
                inputNames.append(description.path)
                summary.inputs.append(description)
                try resumeInput(index, path: description.path)
            case .batch(let batch):
                try write(batch)
                reader.recycle(batch)
            case .failed(let error):
                throw error
            case .finished:
                if let line = keyOrder?.reportLine { summary.keyOrder = line }
                try buildDeferredIndexes()
                if options.mirror.deleteMissing { report(.deleting) }
                try deleteMissingRows()
                try dropKeptCandidates()
                report(.committing)
                return
            }
        }
        // A signal closes the reader's queues: the loop ends without `.finished`, and the
        // transaction must not commit.
        if let signal = options.cancellation?.signal { throw ImportError.interrupted(signal: signal) }
    }

    // MARK: - A batch

    private func write(_ batch: RecordBatch) throws {
        if tableSchema == nil {
            try createTable(from: batch)
            try resolveKeys()
        }
        var unknown: [(field: Int, name: String)] = []
        var unwritable: [String] = []
        for name in batch.newColumns {
            // PostgreSQL names are case-sensitive: a field that matches two columns only
            // ignoring case ("Name" and name) names neither.
            let folded = schema.columns.filter { $0.name.sqliteFolded == name.sqliteFolded }
            if !schema.columns.contains(where: { NameKey($0.name) == NameKey(name) }), folded.count > 1 {
                throw SchemaError.ambiguousField(table: schema.table, field: name, columns: folded.map(\.name))
            }
            if let column = schema.column(named: name), !column.isWritable {
                // An identity GENERATED ALWAYS or a generated column: the server refused
                // the first record that gave it, with no line, whatever --on-error said.
                columnOfField.append(nil)
                if !options.ignoreUnknown { unwritable.append(column.name) }
            } else if let column = schema.column(named: name) {
                columnOfField.append(column.name)
            } else {
                columnOfField.append(nil)
                let isTombstoneField = options.mirror.tombstone.map { $0.field.sqliteFolded == name.sqliteFolded } ?? false
                if !options.ignoreUnknown && !isTombstoneField { unknown.append((fieldNames.count, name)) }
            }
            fieldNames.append(name)
        }
        if !unwritable.isEmpty { throw SchemaError.generatedColumnsInInput(table: schema.table, fields: unwritable) }
        if !unknown.isEmpty {
            guard options.alter else {
                throw SchemaError.unknownFields(
                    table: schema.table, fields: unknown.map(\.name),
                    at: ImportRun.fieldPosition(
                        unknown[0].0, in: batch, inputName: inputNames[batch.inputIndex], format: summary.inputs[safe: batch.inputIndex]?.format, hasHeader: options.reader.hasHeader))
            }
            try addColumns(unknown, from: batch)
            for (field, name) in unknown { columnOfField[field] = schema.column(named: name)?.name }
        }
        // (An empty input's batch has no fields to check; `deleteMissingRows` sees to it.)
        if batch.rowCount > 0 {
            try prepareMirror(fieldsAreFinal: ImportRun.fieldsAreFinal(after: batch, inputs: options.inputs.count, format: summary.inputs.first?.format))
            try deferIndexes(before: batch)
            try startKeyOrder()
        }
        // A tombstone field first seen in a later batch (`prepareMirror` saw the first):
        // its records were upserted, their rows kept (review).
        if mirrorPrepared, tombstoneField == nil, let tombstone = options.mirror.tombstone {
            tombstoneField = fieldNames.firstIndex { $0.sqliteFolded == tombstone.field.sqliteFolded }
        }
        // Records an interrupted run committed are passed over (--resume); with
        // --delete-missing the rows they landed on count as seen (`noteCommittedRowsSeen`).
        let resumeOffset = resumeOffsetOfInput[batch.inputIndex]
        let first = resumeOffset == nil ? 0 : firstUncommittedRow(of: batch)
        let rejects = batch.rejects.filter { record in resumeOffset.map { record.byteOffset >= $0 } ?? true }
        summary.counts.read += batch.rowCount - first + rejects.count
        if let line = batch.unterminatedLastLine { summary.warnings.append(ImportRun.unterminatedLastLineWarning(inputNames[batch.inputIndex], line: line)) }
        for record in rejects { try reject(record) }
        summary.inputs[batch.inputIndex].bytesRead = batch.inputBytesConsumed
        fileProgress.record(batch)
        if !keysOnServer && seenKeys.count > options.postgresKeysInMemory { try spillKeys() }
        try fillKeyDefaults(batch)
        // The keys of the records an interrupted run committed are met, not written, so
        // that a later record repeating one is a repeat (`--duplicate-keys`), as in one
        // uninterrupted run.
        if first > 0 {
            let routes = try write(rows: Array(0 ..< first), of: batch, meetingKeysOnly: true)
            try noteCommittedRowsSeen(Array(0 ..< first), routes: routes, of: batch)
        }
        // Records set aside while writing are rejects, not committed records (`--resume`).
        let rejectedBeforeWriting = summary.counts.rejected
        try setAsideEmptyRecords(of: batch, from: first)
        try writeIsolatingRefusals(batch, from: first) { row, refusal in
            let position = batch.position(row: row, inputName: inputNames[batch.inputIndex])
            var refusal = refusal
            refusal.position = position
            guard options.onError == .skip else { throw refusal }
            try reject(RejectedRecord(row: row, of: batch, at: position, reason: refusal.description))
        }
        try afterWriting(batch, rows: batch.rowCount - first - (summary.counts.rejected - rejectedBeforeWriting))
        report(.writing)
    }

    /// Records with no field the table can store (`{}`, or only fields no column takes,
    /// which --ignore-unknown drops) are bad records, as on SQLite: set aside under
    /// --on-error skip (`emptyRows`, which `write(rows:of:)` passes over), else the run's
    /// error. Without --upsert their INSERT named no column, a syntax error (exit 64);
    /// with --null-key insert they were inserted as rows of defaults.
    private func setAsideEmptyRecords(of batch: RecordBatch, from first: Int) throws {
        emptyRows.removeAll(keepingCapacity: true)
        for row in first ..< batch.rowCount {
            let width = min(batch.rowEnd(row) - batch.rowStarts[row], columnOfField.count)
            if (0 ..< width).contains(where: { columnOfField[$0] != nil && batch.cell(row: row, column: $0).kind != .absent }) { continue }
            let position = batch.position(row: row, inputName: inputNames[batch.inputIndex])
            guard options.onError == .skip else { throw ImportError.emptyRecord(position) }
            try reject(RejectedRecord(row: row, of: batch, at: position, reason: "\(position): \(ImportError.emptyRecordReason)"))
            emptyRows.insert(row)
        }
    }

    // MARK: - Refused records

    /// Writes the rows of `batch` from `first` inside a savepoint. When PostgreSQL refuses
    /// one of its records, the batch is rolled back to it and written again record by
    /// record, each in a savepoint of its own, or, where the order of its records cannot
    /// change which are refused, in halves, a refused half halved again down to its
    /// records (a batch of 1,000 with one refused record in about 20 statements instead
    /// of 1,000). `refused` gets each refused record: `--on-error skip` sets it aside;
    /// otherwise it is the run's error, now naming the record (a constraint that
    /// `INSERT ... SELECT` checks names no line by itself). A failure that is not a
    /// record's (the connection, a lock, the schema) ends the run.
    ///
    /// Halves are only for a table whose unique indexes are the conflict target and the
    /// primary key, without exclusion constraints: a part is applied in rounds by key, not
    /// in input order, and another unique index would then refuse another record of two
    /// that meet it than records applied one by one do (and SQLite does).
    private func writeIsolatingRefusals(_ batch: RecordBatch, from first: Int, refused: (Int, PostgresError) throws -> Void) throws {
        // The refused records, handed to `refused` in input order once the batch is
        // written: a sorted batch is in key order, and the rejects file, and the record
        // an aborted run names, follow the input as on SQLite.
        var refusals: [(row: Int, refusal: PostgresError)] = []
        let keys = Set([schema.primaryKey?.name, target?.name, fallbackKey?.name].compactMap { $0 })
        let halves = !schema.hasExclusionConstraint && schema.uniqueIndexCount <= keys.count
        func isolate(_ rows: Range<Int>) throws {
            // Isolating takes many statements: a signal must not wait for them.
            if let signal = options.cancellation?.signal { throw ImportError.interrupted(signal: signal) }
            do {
                try attempt(rows.count == 1 ? "sqlimport_record" : "sqlimport_part") { try write(rows: Array(rows), of: batch) }
            } catch let refusal as PostgresError where rows.count == 1 && refusal.kind == .data {
                refusals.append((rows.lowerBound, refusal))
            } catch where rows.count > 1 && (isDuplicateKeyToIsolate(error)
                || (error as? PostgresError).map { $0.kind == .data || $0.sqlState == Self.rowAffectedTwice } == true)
            {
                guard halves else {
                    for row in rows { try isolate(row ..< row + 1) }
                    return
                }
                let middle = rows.lowerBound + rows.count / 2
                try isolate(rows.lowerBound ..< middle)
                try isolate(middle ..< rows.upperBound)
            }
        }
        func isolateRefusals() throws {
            guard first < batch.rowCount else { return }
            try isolate(first ..< batch.rowCount)
            for (row, refusal) in refusals.sorted(by: { batch.byteOffsets[$0.row] < batch.byteOffsets[$1.row] }) { try refused(row, refusal) }
        }
        do {
            try attempt("sqlimport_batch") { try write(rows: Array(first ..< batch.rowCount), of: batch) }
        } catch where isDuplicateKeyToIsolate(error) {
            try isolateRefusals()
        } catch let error as PostgresError where error.sqlState == Self.rowAffectedTwice {
            // Two records of the batch have keys PostgreSQL finds equal with other bytes
            // (a uuid in both cases, citext, numeric 1 and 1.0, a nondeterministic
            // collation), which the plan's rounds do not tell apart, and one statement
            // cannot apply both. Applied record by record, in the batch's order, as
            // separate statements would.
            try isolateRefusals()
        } catch let error as PostgresError where error.kind == .data {
            // COPY's refusals already name their record.
            if error.position != nil && options.onError != .skip { throw error }
            // Record by record, in input order, as SQLite applies them: a refused record
            // is set aside or, without --on-error skip, the run's error naming it. A batch
            // refused whole whose records all go in one by one was refused for the order
            // it applied them in (shapes, on another unique index): it stopped the run,
            // exit 65 naming no record, where SQLite imports the file (a mirror fuzzer).
            try isolateRefusals()
        }
    }

    /// "ON CONFLICT DO UPDATE command cannot affect row a second time".
    static let rowAffectedTwice = "21000"

    /// `--duplicate-keys error` under `--on-error skip`: a record repeating the key of an
    /// earlier record of its batch, which PostgreSQL may still refuse. SQLite counts a
    /// repeat by the rows written, so the batch is written again record by record, and
    /// only a repeat of a record that was written stops the run (it stopped the run
    /// even when the earlier record was set aside, where SQLite imports the later one).
    private func isDuplicateKeyToIsolate(_ error: Error) -> Bool {
        guard options.onError == .skip, let error = error as? UpsertError, case .duplicateKey = error else { return false }
        return true
    }

    /// Runs `body` inside savepoint `name`; when PostgreSQL refuses a record, rolls back to
    /// it, restores the counts, the keys met and the staging tables to what they were, and
    /// rethrows. Any other failure ends the run, whose transaction is rolled back whole: it
    /// is rethrown as it came (a rollback to the savepoint could only hide it).
    private func attempt(_ name: String, _ body: () throws -> Void) throws {
        let counts = summary.counts
        let reordered = recordsAppliedWithTheirShape
        let staging = stagingOfShape
        let deferred = (deferredIndexes, summary.indexesBuiltEarly)
        seenKeysUndo.removeAll()
        try connection.execute("SAVEPOINT \(name)")
        do {
            try body()
        } catch {
            pendingRejects.removeAll()
            let refused = (error as? PostgresError).map { $0.kind == .data || $0.sqlState == Self.rowAffectedTwice } ?? false
            guard refused || isDuplicateKeyToIsolate(error) else { throw error }
            try connection.execute("ROLLBACK TO SAVEPOINT \(name)")
            try connection.execute("RELEASE SAVEPOINT \(name)")
            summary.counts = counts
            recordsAppliedWithTheirShape = reordered
            // Staging tables created since the savepoint are gone with it, and indexes
            // built since are dropped again.
            stagingOfShape = staging
            (deferredIndexes, summary.indexesBuiltEarly) = deferred
            for (key, wasPresent) in seenKeysUndo.reversed() {
                if wasPresent { seenKeys.insert(key) } else { seenKeys.remove(key) }
            }
            throw error
        }
        try connection.execute("RELEASE SAVEPOINT \(name)")
        let settled = pendingRejects
        pendingRejects.removeAll()
        for record in settled { try reject(record) }
    }

    func reject(_ record: RejectedRecord) throws {
        try summary.setAside(record, in: rejectsFile, maxErrors: options.maxErrors)
    }

    // MARK: - Records

    /// Plans and writes `rows` of `batch`, in their order. With `meetingKeysOnly`, the
    /// rows' keys are only added to the keys the run has met (records an interrupted
    /// run committed, which `--resume` passes over), and nothing is counted or written.
    /// Returns, with `meetingKeysOnly`, each record's route where its cells tell it
    /// (`PostgresUpsert.inside` or `.outside`; nil where the server decides).
    @discardableResult
    private func write(rows selected: [Int], of batch: RecordBatch, meetingKeysOnly: Bool = false) throws -> [Int?] {
        let selected = emptyRows.isEmpty || meetingKeysOnly ? selected : selected.filter { !emptyRows.contains($0) }
        guard !selected.isEmpty else { return [] }
        // The key columns' fields (a missing one is NULL): the target's in every record's
        // shape, so that a record without one takes the NULL-key route; the primary key's
        // where the record has them, so that one without gets the column's default or
        // identity, as the row SQLite inserts gets its rowid.
        func fields(of key: PostgresSchema.UniqueKey?) -> [Int]? {
            guard let key else { return nil }
            var found: [Int] = []
            for column in key.columns {
                guard let field = columnOfField.firstIndex(where: { $0 == column }) else { return nil }
                found.append(field)
            }
            return found
        }
        let targetFields = fields(of: target)
        if let target, targetFields == nil {
            let missing = target.columns.first { column in !columnOfField.contains { $0 == column } }
            throw UpsertError.keyNotInInput(column: missing ?? target.columns[0])
        }
        let primaryFields = fields(of: fallbackKey ?? (target?.isPrimaryKey == true ? target : nil))
        // Asked at the first batch, as on SQLite; a later batch may bring the field, and
        // until then records arrive with the column's default.
        if !newerFieldChecked, case .newer(let column) = options.merge {
            newerFieldChecked = true
            if !columnOfField.contains(where: { $0?.sqliteFolded == column.sqliteFolded }),
                ImportRun.fieldsAreFinal(after: batch, inputs: options.inputs.count, format: summary.inputs.first?.format)
            {
                throw UpsertError.newerColumnMissing(column: column, table: schema.table)
            }
        }
        let keyFields = Set(targetFields ?? [])
        // How each key field's values are spelled for the count of repeats.
        var spellingOfField: [Int: PostgresKeySpelling] = [:]
        for field in (targetFields ?? []) + (primaryFields ?? []) {
            guard let name = columnOfField[field], let column = schema.column(named: name) else { continue }
            let spelling = PostgresKeySpelling(type: column.baseType)
            if case .exact = spelling { continue }
            spellingOfField[field] = spelling
        }
        // A record outside the target's partial index has no target key to repeat, as on
        // SQLite (`ImportRun.keyFingerprint`); known here where the record's cells decide
        // the predicate (`NullTestPredicate`), else the server's routing decides. (A cell
        // the record lacks takes the column's default, which only the server knows; a
        // tombstone deletes by the stored row's side, not its own: both keep the key.)
        let predicateTests: [(field: Int, isNull: Bool)]? = target?.predicate.flatMap(NullTestPredicate.init).flatMap { predicate in
            var tests: [(field: Int, isNull: Bool)] = []
            for test in predicate.tests {
                guard !compositeColumns.contains(test.column), let field = columnOfField.firstIndex(where: { $0 == test.column }) else { return nil }
                tests.append((field, test.isNull))
            }
            return tests
        }
        var shapeIDs: [[Int]: Int] = [:]
        var shapes: [[Int]] = []
        var shapeOfMask: [UInt64: Int] = [:]
        var tombstoneRows = Set<Int>()
        let fieldCount = columnOfField.count
        let isKeyField = (0 ..< fieldCount).map(keyFields.contains)
        var shapeOfRow: [Int] = []
        var keys: [(target: Int?, primary: Int?)] = []
        var linking: [Int?] = []  // `PostgresBatchPlan.init(linking:)`
        // Per row, the conflict clause the server routes it to, where its cells tell:
        // `PostgresUpsert`'s inside and outside routes, nil where a default or a predicate
        // the cells cannot decide will (the epochs of `inInputOrder` below).
        var routes: [Int?] = []
        let routeIsKnown = target?.predicate == nil || predicateTests != nil
        batch.bytes.withUnsafeBufferPointer { buffer in
            let bytes = buffer.baseAddress!
            for row in selected {
                let width = batch.rowEnd(row) - batch.rowStarts[row]
                func inShape(_ field: Int) -> Bool {
                    columnOfField[field] != nil && (isKeyField[field] || (field < width && batch.cell(row: row, column: field).kind != .absent))
                }
                // Up to 64 fields, a shape is first told by a bit mask (an array per
                // record was a twentieth of the writing thread).
                // A tombstone is a shape of its own (its last element -1; bit 63).
                let tombstone = isTombstone(row: row, of: batch)
                if tombstone { tombstoneRows.insert(keys.count) }
                collectScope(row: row, of: batch)
                var mask: UInt64 = tombstone ? 1 << 63 : 0
                var id: Int?
                if fieldCount <= 63 {
                    for field in 0 ..< fieldCount where inShape(field) { mask |= 1 << UInt64(field) }
                    id = shapeOfMask[mask]
                }
                if id == nil {
                    let shape = (0 ..< fieldCount).filter(inShape) + (tombstone ? [-1] : [])
                    let found = shapeIDs[shape] ?? shapes.count
                    if found == shapes.count {
                        shapeIDs[shape] = found
                        shapes.append(shape)
                    }
                    if fieldCount <= 63 { shapeOfMask[mask] = found }
                    id = found
                }
                shapeOfRow.append(id!)
                func cell(_ field: Int) -> Cell { field < width ? batch.cell(row: row, column: field) : .absent }
                func hash(_ fields: [Int]?, domain: UInt8) -> Int? {
                    guard let fields else { return nil }
                    var hasher = Hasher()
                    hasher.combine(domain)
                    for field in fields {
                        let value = cell(field)
                        if value.kind == .null || value.kind == .absent {
                            // (Under NULLS NOT DISTINCT a NULL is a key column's value.)
                            guard domain == 1, target?.nullsNotDistinct == true else { return nil }
                            hasher.combine(0xFF as UInt8)
                            hasher.combine(0x1F as UInt8)
                            continue
                        }
                        let spelling = spellingOfField[field]
                        Self.appendText(of: value, exact: batch.exactNumber(row: row, column: field, cell: value), bytes: bytes) { text in
                            if let canonical = spelling?.canonical(text) {
                                canonical.withUnsafeBytes { hasher.combine(bytes: $0) }
                            } else {
                                hasher.combine(bytes: text)
                            }
                        }
                        hasher.combine(0x1F as UInt8)
                    }
                    return hasher.finalize()
                }
                let inside = tombstone || predicateTests?.allSatisfy { test in
                    let kind = cell(test.field).kind
                    return kind == .absent || (kind == .null) == test.isNull
                } ?? true
                let primary = hash(primaryFields, domain: 2)
                keys.append((inside ? hash(targetFields, domain: 1) : nil, primary))
                let decided = routeIsKnown && !(predicateTests ?? []).contains { cell($0.field).kind == .absent }
                routes.append(keys[keys.count - 1].target == nil ? PostgresUpsert.outside : decided ? PostgresUpsert.inside : nil)
                // Only a record routed by its primary key can change a stored row; one set
                // aside or inserted as a new row (`--null-key`) cannot.
                linking.append(inside || primary == nil ? nil : hash(targetFields, domain: 1))
            }
        }
        let inputName = inputNames[batch.inputIndex]
        // The key a repeat names, with its values as SQLite's message gives them.
        func describeKey(row: Int, routedByTarget: Bool) -> String {
            guard let fields = routedByTarget ? targetFields : primaryFields else { return "(\((target?.columns ?? []).joined(separator: ", ")))" }
            let width = batch.rowEnd(row) - batch.rowStarts[row]
            let values = fields.map { $0 < width ? batch.describe(batch.cell(row: row, column: $0)) : "null" }
            return "(\(SQLIdentifier.quoteList(fields.map { columnOfField[$0] ?? "" }))) = (\(values.joined(separator: ", ")))"
        }
        // The hashes earlier batches met: in memory, or asked of the server.
        // (Moved out of `seenKeys` and back, so that the set is never copied.)
        var seen: Set<Int>
        if keysOnServer {
            seen = try keysMetBefore(keys.indices.filter { !tombstoneRows.contains($0) }.map { keys[$0] })
        } else {
            seen = seenKeys
            seenKeys = []
        }
        defer { if !keysOnServer { seenKeys = seen } }
        let plan = try PostgresBatchPlan(
            keys: keys, shapes: shapeOfRow, tombstones: tombstoneRows, seen: &seen, linking: linking,
            duplicate: options.duplicateKeys == .error && !meetingKeysOnly
                ? { earlier, later in
                    throw UpsertError.duplicateKey(
                        earlier: earlier.map { "\(batch.position(row: selected[$0], inputName: inputName))" },
                        later: batch.position(row: selected[later], inputName: inputName), key: describeKey(row: selected[later], routedByTarget: keys[later].target != nil))
                }
                : nil)
        if keysOnServer && !plan.forgotten.isEmpty {
            let list = "{" + plan.forgotten.sorted().map(String.init).joined(separator: ",") + "}"
            _ = try connection.query("DELETE FROM sqlimport_keys WHERE h = ANY($1::bigint[])", [list])
        }
        guard !meetingKeysOnly else { return routes }
        summary.counts.duplicateKeys += plan.repeats
        // Counted as written: a refused record's count goes with its savepoint.
        if batch.numbersKeptAsText > 0 { countNumbersKeptAsText(in: selected, of: batch, tombstones: tombstoneRows) }
        // (On the server, the keys' table rolls back with the savepoint.)
        if !keysOnServer { seenKeysUndo += plan.undo }
        var rounds = [Int32](repeating: 0, count: batch.rowCount)
        for (index, row) in selected.enumerated() { rounds[row] = plan.rounds[index] }
        // Each shape's records together, in input order; when records of different
        // shapes share a key, runs of consecutive records of one shape, in input order.
        var groups: [(shape: Int, rows: [Int])] = []
        // One record per statement (`foreignKeysSeeStatements`): in input order, each in
        // a round of its own.
        let recordByRecord = schema.foreignKeysSeeStatements
        let inInputOrder = try !recordByRecord && orderOfWritesShows() != nil
        if inInputOrder {
            // Where the order of writes shows (a trigger, another unique index, an identity
            // column), rounds by key would apply a later record before an earlier one: a
            // record that took a value another record of the batch frees later was stored
            // where SQLite, which writes in input order, refuses it. So the batch goes in
            // epochs with no key twice, each applied in one round, each shape's records in
            // input order (`ORDER BY sqlimport_seq`); a record whose route the server
            // decides is an epoch of its own. Within an epoch, the records of each shape
            // (the fields they have) go together: runs of one shape made ragged JSON 50 to
            // 100 times slower (one group of statements per record). A record whose order
            // shows (`ordersShape`) that is applied before an earlier such record of
            // another shape is counted, and the run warns (`recordsAppliedWithTheirShape`).
            var keysOfEpoch = Set<Int>()
            var groupOf: [Int: Int] = [:]  // shape * 4 + route → its group in this epoch
            var orderedGroup: Int?
            var sensitive: [Int: Bool] = [:]
            for (index, row) in selected.enumerated() {
                let rowKeys = [keys[index].target, keys[index].primary, linking[index]].compactMap { $0 }
                let shape = shapeOfRow[index]
                let ordered = try sensitive[shape] ?? {
                    let found = try ordersShape(shapes[shape])
                    sensitive[shape] = found
                    return found
                }()
                let slot = routes[index].map { shape * 4 + $0 }
                if slot == nil || rowKeys.contains(where: keysOfEpoch.contains) {
                    keysOfEpoch.removeAll(keepingCapacity: true)
                    groupOf.removeAll(keepingCapacity: true)
                    orderedGroup = nil
                }
                let group = slot.flatMap { groupOf[$0] } ?? groups.count
                if group == groups.count {
                    if let slot { groupOf[slot] = group }
                    groups.append((shape, [row]))
                } else {
                    groups[group].rows.append(row)
                }
                if ordered {
                    // Joining an earlier group than the last ordered record's: applied before it.
                    if let last = orderedGroup, group < last { recordsAppliedWithTheirShape += 1 }
                    orderedGroup = max(group, orderedGroup ?? group)
                }
                keysOfEpoch.formUnion(rowKeys)
                if slot == nil {
                    keysOfEpoch.removeAll(keepingCapacity: true)
                    groupOf.removeAll(keepingCapacity: true)
                    orderedGroup = nil
                }
                rounds[row] = 1
            }
        } else if plan.shapesShareKeys || recordByRecord {
            for (index, row) in selected.enumerated() {
                if groups.last?.shape == shapeOfRow[index] { groups[groups.count - 1].rows.append(row) } else { groups.append((shapeOfRow[index], [row])) }
            }
        } else {
            var at: [Int: Int] = [:]
            for (index, row) in selected.enumerated() {
                if let group = at[shapeOfRow[index]] { groups[group].rows.append(row) } else {
                    at[shapeOfRow[index]] = groups.count
                    groups.append((shapeOfRow[index], [row]))
                }
            }
        }
        if recordByRecord {
            for group in groups {
                for (rank, row) in group.rows.enumerated() { rounds[row] = Int32(rank + 1) }
            }
        }
        for group in groups {
            if shapes[group.shape].last == -1 {
                try writeTombstones(rows: group.rows, of: batch)
            } else {
                try write(rows: group.rows, fields: shapes[group.shape], rounds: rounds, meetsEarlierKeys: plan.meetsEarlierKeys, of: batch)
            }
        }
        return []
    }

    /// Counts the numbers too large for an integer or a double that `rows` pass to
    /// PostgreSQL as their digits (`numbersKeptAsText`): the cells of fields with a
    /// column, but for tombstones (`tombstones` holds their indexes in `rows`).
    private func countNumbersKeptAsText(in rows: [Int], of batch: RecordBatch, tombstones: Set<Int>) {
        for (index, row) in rows.enumerated() where !tombstones.contains(index) {
            let width = min(batch.rowEnd(row) - batch.rowStarts[row], columnOfField.count)
            for field in 0 ..< width where columnOfField[field] != nil && batch.cell(row: row, column: field).kind == .numberAsText {
                summary.counts.numbersKeptAsText += 1
            }
        }
    }

    /// Moves the key hashes met so far to a temporary table on the server, so that the
    /// run's memory stays flat however many keys it meets (a hash set of 10M records'
    /// keys is hundreds of MiB). Done between batches, outside any savepoint; the table
    /// outlives `--commit-every`'s commits and goes with the session.
    private func spillKeys() throws {
        try connection.execute("DROP TABLE IF EXISTS pg_temp.sqlimport_keys")
        try connection.execute("CREATE TEMP TABLE sqlimport_keys (h bigint PRIMARY KEY) ON COMMIT PRESERVE ROWS")
        _ = try connection.copy("COPY sqlimport_keys FROM STDIN") { send in
            var out: [UInt8] = []
            for key in seenKeys {
                Self.appendDigits(Int64(key), to: &out)
                out.append(0x0A)
                if out.count >= 1 << 18 {
                    out.withUnsafeBytes(send)
                    out.removeAll(keepingCapacity: true)
                }
            }
            out.withUnsafeBytes(send)
        }
        seenKeys = Set()
        keysOnServer = true
    }

    /// With the hashes on the server: adds this batch's, and returns those an earlier
    /// batch had met. In the batch's savepoint, so a rolled-back batch takes its own out.
    private func keysMetBefore(_ keys: [(target: Int?, primary: Int?)]) throws -> Set<Int> {
        // Sorted, so that the server's index takes them in order.
        var batchKeys = Set<Int>()
        var probes = Set<Int>()
        for key in keys {
            if let target = key.target { batchKeys.insert(target) }
            if let primary = key.primary { batchKeys.insert(primary) }
            let counting = PostgresBatchPlan.countingKeys(key)
            if let mark = counting.mark { batchKeys.insert(mark) }
            probes.formUnion(counting.probeList)
        }
        // A probe that is no mark of this batch is only looked up, never added.
        let lookups = probes.subtracting(batchKeys)
        var met = Set<Int>()
        if !lookups.isEmpty {
            let list = "{" + lookups.sorted().map(String.init).joined(separator: ",") + "}"
            met = Set(try connection.query("SELECT h FROM sqlimport_keys WHERE h = ANY($1::bigint[])", [list]).compactMap { $0[0].flatMap(Int.init) })
        }
        guard !batchKeys.isEmpty else { return met }
        let list = "{" + batchKeys.sorted().map(String.init).joined(separator: ",") + "}"
        let added = try connection.query("INSERT INTO sqlimport_keys SELECT unnest($1::bigint[]) ON CONFLICT DO NOTHING RETURNING h", [list])
        return met.union(batchKeys.subtracting(added.compactMap { $0[0].flatMap(Int.init) }))
    }

    /// Whether `predicate` (as `pg_get_expr` prints it) names `column`: quoted, or bare
    /// as a whole word.
    static func names(_ predicate: String, _ column: String) -> Bool {
        if predicate.contains(SQLIdentifier.quote(column)) { return true }
        let escaped = NSRegularExpression.escapedPattern(for: column)
        return predicate.range(of: "(?<![A-Za-z0-9_\"])\(escaped)(?![A-Za-z0-9_\"])", options: .regularExpression) != nil
    }

    /// Appends the text COPY gets for a key value (the same for `1` and `"1"`); `exact`
    /// is a number's digits as written, where a double does not keep them
    /// (`RecordBatch.exactNumber`).
    static func appendText(of cell: Cell, exact: [UInt8]? = nil, bytes: UnsafePointer<UInt8>, _ append: (UnsafeRawBufferPointer) -> Void) {
        if let exact {
            exact.withUnsafeBytes(append)
            return
        }
        switch cell.kind {
        case .absent, .null: return
        case .integer:
            var digits: [UInt8] = []
            appendDigits(cell.payload, to: &digits)
            digits.withUnsafeBytes(append)
        // (±infinity as export spells it, `±1e999`: valid text, numeric and jsonb.)
        case .real: NumberText.shortest(cell.doubleValue).utf8CString.withUnsafeBytes { append(UnsafeRawBufferPointer(rebasing: $0.dropLast())) }
        case .text, .untypedText, .json, .numberAsText: append(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length)))
        }
    }

    /// `meetsEarlierKeys`: the batch has a record that meets a key the run met before.
    private func write(rows: [Int], fields: [Int], rounds: [Int32], meetsEarlierKeys: Bool, of batch: RecordBatch) throws {
        let columns = fields.map { columnOfField[$0]! }
        func from() -> String { "the batch from \(batch.position(row: rows[0], inputName: inputNames[batch.inputIndex]))" }
        if insertsOnly {
            if deferredIndexes != nil, try !deferralHolds(rows: rows, of: batch, meetsEarlierKeys: meetsEarlierKeys) {
                try buildDeferredIndexes(
                    reason: "\(from()) holds a record whose key may repeat an earlier one's, or an integer key given as text")
            }
            // COPY is one statement: its foreign keys are checked once, at its end.
            if !schema.foreignKeysSeeStatements, try copyIntoTable(rows: rows, fields: fields, rounds: rounds, of: batch) { return }
        }
        if deferredIndexes != nil {
            try buildDeferredIndexes(reason: "\(from()) needs the upsert statements")
        }
        let staging = try stagingTable(for: columns)
        var first: Int64 = 0
        try empty(staging: staging, before: rows.count)
        _ = try copy(
            into: "\(staging) (sqlimport_seq, sqlimport_round, \(SQLIdentifier.quoteList(columns)))", rows: rows, fields: fields, rounds: rounds,
            of: batch, firstSequence: &first)
        let statement = PostgresUpsert(
            table: schema.qualifiedName, staging: staging, columns: columns, target: target, fallbackKey: fallbackKey, policy: options.merge,
            schema: schema, seenKey: tracksSeenRows ? schema.primaryKey?.columns : nil, newerMixes: newerMixes)
        var counts = summary.counts
        let lastRound = Int(rows.map { rounds[$0] }.max() ?? 1)
        var setAside: [(sequence: Int64, why: String)] = []
        try statement.apply(
            connection, counts: &counts, rounds: lastRound, nullKey: options.nullKey, insertsOnly: &insertsOnly, setAside: &setAside
        ) { sequence in
            self.position(ofSequence: sequence, first: first, rows: rows, batch: batch)
        }
        summary.counts = counts
        try noteSeenRows(staging: staging, columns: columns)
        // --null-key skip: records no clause can match, as on SQLite; set aside once the
        // batch's savepoint is released (`attempt`), so that a batch written again record
        // by record does not set them aside twice.
        for (sequence, why) in setAside {
            let position = position(ofSequence: sequence, first: first, rows: rows, batch: batch)
            pendingRejects.append(RejectedRecord(
                row: rows[Int(sequence - first)], of: batch, at: position, reason: "\(position): the record's key \(why) (--null-key skip)"))
        }
    }

    /// Empties a staging table before `rows` records go in. TRUNCATE makes the table a new
    /// file, which takes milliseconds: records written one by one (a refused batch
    /// isolated record by record) took 10 ms each, half of it the TRUNCATE. Small loads
    /// DELETE instead, and every 128th of them TRUNCATEs, so that the dead rows that the
    /// run's own open transaction cannot prune do not pile up for each DELETE to scan.
    private func empty(staging: String, before rows: Int) throws {
        let deletes = deletesSinceTruncate[staging, default: 0]
        if rows <= 16 && deletes < 128 {
            try connection.execute("DELETE FROM \(staging)")
            deletesSinceTruncate[staging] = deletes + 1
        } else {
            try connection.execute("TRUNCATE \(staging)")
            deletesSinceTruncate[staging] = 0
        }
    }

    /// Which of `values` (a date or time's text, and the kind of its column: `timestamp`
    /// or `time` without time zone, `timetz`, `date`) PostgreSQL's own reading would
    /// store without its zone (one other than UTC, read in UTC: the session's zone would
    /// pass a value of its zone and one of UTC for the same wall time), its time of day
    /// or its date (`time`, `timetz`): the spellings
    /// `PostgresValueCheck.classifyTime` cannot read. A value PostgreSQL cannot read is
    /// left for the COPY to refuse. (One round trip, for the rare values it takes.)
    func serverDrops(_ values: [(text: String, kind: String)]) throws -> Set<Int> {
        guard !values.isEmpty else { return [] }
        try connection.execute(
            """
            CREATE OR REPLACE FUNCTION pg_temp.sqlimport_drops(v text, k text) RETURNS boolean LANGUAGE plpgsql STABLE SET TimeZone = 'UTC' AS $$
            BEGIN
              IF k = 'timetz' THEN
                -- A date in it: a timetz column drops it.
                PERFORM v::timestamp;
                RETURN true;
              END IF;
              IF k = 'time' THEN
                BEGIN
                  -- A date in it (a time alone is no timestamp): the column would drop it.
                  PERFORM v::timestamp;
                  RETURN true;
                EXCEPTION WHEN others THEN
                END;
                RETURN (v::timetz AT TIME ZONE 'UTC')::time <> v::time;
              END IF;
              IF v::timestamptz <> v::timestamp AT TIME ZONE 'UTC' THEN
                RETURN true;
              END IF;
              RETURN k = 'date' AND v::timestamp <> v::date::timestamp;
            EXCEPTION WHEN others THEN
              RETURN false;
            END $$
            """)
        let found = try connection.query(
            "SELECT i - 1 FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(v, k, i) WHERE pg_temp.sqlimport_drops(v, k)",
            [PostgresArrayText.literal(values.map(\.text)), PostgresArrayText.literal(values.map(\.kind))])
        return Set(found.compactMap { $0[0].flatMap { Int($0) } })
    }

    /// `COPY into FROM STDIN` with `rows` (with their sequence numbers and `rounds` when
    /// given); returns the rows it inserted. A value the column refuses names its record.
    func copy(into: String, rows: [Int], fields: [Int], rounds: [Int32]?, of batch: RecordBatch, firstSequence: inout Int64) throws -> Int {
        // Dates and times only the server can read, judged before the COPY (`copyText`).
        droppedByServer.removeAll(keepingCapacity: true)
        let types = fields.map { schema.column(named: columnOfField[$0]!)?.baseType ?? "" }
        let limits = types.map(PostgresValueCheck.Limit.init(type:))
        if limits.contains(where: PostgresValueCheck.serverMayJudge) {
            var judged: [(row: Int, position: Int)] = []
            var values: [(text: String, kind: String)] = []
            batch.bytes.withUnsafeBufferPointer { buffer in
                for row in rows {
                    let width = batch.rowEnd(row) - batch.rowStarts[row]
                    for (position, field) in fields.enumerated() where field < width {
                        let cell = batch.cell(row: row, column: field)
                        if let kind = PostgresValueCheck.serverJudges(cell, limit: limits[position], type: types[position], bytes: buffer.baseAddress!) {
                            judged.append((row, position))
                            values.append((batch.text(cell), kind))
                        }
                    }
                }
            }
            for index in try serverDrops(values) { droppedByServer.insert(Int64(judged[index].row) << 20 | Int64(judged[index].position)) }
        }
        do {
            return try connection.copy("COPY \(into) FROM STDIN") { send in
                try copyText(rows: rows, fields: fields, rounds: rounds, of: batch, firstSequence: &firstSequence, send: send)
            }
        } catch var error as PostgresError {
            if let context = error.context, let (line, column) = Self.copyLine(inContext: context), line >= 1, line <= rows.count {
                error.position = batch.position(row: rows[line - 1], inputName: inputNames[batch.inputIndex])
                if let column { error.message += "; \(column)" }
            }
            throw error
        }
    }

    /// The COPY line (and column) an error's CONTEXT names: "COPY sqlimport_staging_1,
    /// line 3, column libraryID: ..." names the record. Only the COPY's own line of the
    /// context counts: a trigger's error has "PL/pgSQL function boom() line 1 at RAISE"
    /// above it, whose "line 1" named the batch's first record instead of the fifth.
    static func copyLine(inContext context: String) -> (line: Int, column: String?)? {
        guard let copy = context.split(separator: "\n").last(where: { $0.hasPrefix("COPY ") }),
            let range = copy.range(of: #", line \d+"#, options: .regularExpression),
            let line = Int(copy[range].dropFirst(7))
        else { return nil }
        let column = copy.range(of: #"column [^:]+"#, options: .regularExpression).map { String(copy[$0]) }
        return (line, column)
    }

    /// The position of the record COPY gave sequence number `sequence`.
    private func position(ofSequence sequence: Int64, first: Int64, rows: [Int], batch: RecordBatch) -> SourcePosition {
        let index = Int(sequence - first)
        guard index >= 0, index < rows.count else { return SourcePosition(input: inputNames[batch.inputIndex], line: 0, byteOffset: 0) }
        return batch.position(row: rows[index], inputName: inputNames[batch.inputIndex])
    }

    /// A temporary table with a sequence number and the target's types for `columns`.
    /// A column a partial index's predicate names that the shape lacks is there too, with
    /// the table's default for it and never written: the route is decided from the
    /// predicate in the staging table, where a record without the column has its default,
    /// as the row it would insert has and as SQLite decides it.
    private func stagingTable(for columns: [String]) throws -> String {
        if let name = stagingOfShape[columns] { return name }
        let name = "sqlimport_staging_\(stagingOfShape.count + 1)"
        var definitions = columns.map { column in "\(SQLIdentifier.quote(column)) \(schema.column(named: column)!.type)" }
        var staged = columns
        if let predicate = target?.predicate {
            // The columns the predicate names that records lack: their defaults, and a
            // generated column's expression, with the columns that expression names.
            var needed = [predicate]
            var added = Set(columns)
            while let text = needed.popLast() {
                for column in schema.columns where Self.names(text, column.name) && !added.contains(column.name) {
                    added.insert(column.name)
                    staged.append(column.name)
                    if let expression = try schema.generationExpression(of: column.name, connection) {
                        definitions.append("\(SQLIdentifier.quote(column.name)) \(column.type) GENERATED ALWAYS AS (\(expression)) STORED")
                        needed.append(expression)
                        continue
                    }
                    let value = try schema.defaultExpression(of: column.name, connection) ?? "NULL"
                    // A default that takes a sequence's next value would take one per record.
                    guard !value.contains("nextval(") else {
                        throw PostgresError(
                            kind: .usage,
                            message: "the partial index's predicate (WHERE \(predicate)) names \(SQLIdentifier.quote(column.name)), which some records lack, and its default takes a sequence's value; add the field to every record")
                    }
                    definitions.append("\(SQLIdentifier.quote(column.name)) \(column.type) DEFAULT \(value)")
                }
            }
        }
        // The staging table's own columns: a column of the table by one of their names (a
        // field, or a column the predicate names) stopped every batch with "column
        // specified more than once".
        if let taken = staged.first(where: { ["sqlimport_seq", "sqlimport_route", "sqlimport_round"].contains($0) }) {
            throw PostgresError(
                kind: .usage,
                message: "the table's column \(SQLIdentifier.quote(taken)) has a name that sqlimport's PostgreSQL staging table uses for itself (sqlimport_seq, sqlimport_route, sqlimport_round); rename the column (ALTER TABLE ... RENAME COLUMN) and the input's field")
        }
        try connection.execute(
            "CREATE TEMP TABLE \(name) (sqlimport_seq bigint NOT NULL, sqlimport_route smallint NOT NULL DEFAULT 1, sqlimport_round integer NOT NULL DEFAULT 1, \(definitions.joined(separator: ", "))) ON COMMIT DROP")
        // A round per record: each statement finds its one record by the index.
        if schema.foreignKeysSeeStatements { try connection.execute("CREATE INDEX ON \(name) (sqlimport_round)") }
        stagingOfShape[columns] = name
        return name
    }

    /// The rows in COPY's text format: `\N` for NULL; backslash, tab, newline and carriage
    /// return escaped; every value as its text, for PostgreSQL to parse into the column's
    /// type (an integer beyond int64 is exact in a numeric column, refused in a bigint one).
    private func copyText(
        rows: [Int], fields: [Int], rounds: [Int32]?, of batch: RecordBatch, firstSequence: inout Int64, send: (UnsafeRawBufferPointer) -> Void
    ) throws {
        // Sent in pieces, so that the server parses while the rest is made.
        let piece = 256 << 10
        var out: [UInt8] = []
        out.reserveCapacity(piece + 64 << 10)
        firstSequence = sequence
        // A JSON string into a json/jsonb column is that JSON string, quoted (nested JSON
        // is already JSON text; CSV text is JSON as written). `±1e999` (export's spelling
        // of infinity) into a float or `numeric` column is an infinity, as SQLite stores
        // it (`numeric` read it as 10^999, and an exported infinity came back finite);
        // other numbers such a column would change are refused (`PostgresValueCheck`).
        // (A domain's values are its base type's: `baseType`.)
        let types = fields.map { schema.column(named: columnOfField[$0]!)?.baseType ?? "" }
        let isJSON = types.map { $0 == "json" || $0 == "jsonb" }
        let families = types.map(PostgresValueCheck.Family.init(type:))
        let limits = types.map(PostgresValueCheck.Limit.init(type:))
        let holdsInfinity = families.map { $0 == .double || $0 == .float || $0 == .numeric }
        // An array column's elements are checked as its element type's values, and a JSON
        // array is written as the array's text (`PostgresArrayText`).
        let arrayElements = types.map { PostgresArrayText.elementType(of: $0).map(PostgresValueCheck.ArrayElements.init(type:)) }
        let inferred = fields.map { inferredKinds[columnOfField[$0]!.sqliteFolded] ?? .text }
        let markersOnly = fields.map { inferredBytea.contains(columnOfField[$0]!.sqliteFolded) }
        var quoted: [UInt8] = []
        try batch.bytes.withUnsafeBufferPointer { buffer in
            let bytes = buffer.baseAddress!
            for row in rows {
                if let rounds {
                    Self.appendDigits(sequence, to: &out)
                    sequence += 1
                    out.append(0x09)
                    Self.appendDigits(Int64(rounds[row]), to: &out)
                }
                // A record read before a field first appeared has no cell for it.
                let width = batch.rowEnd(row) - batch.rowStarts[row]
                for (position, field) in fields.enumerated() {
                    if rounds != nil || position > 0 { out.append(0x09) }
                    let cell = field < width ? batch.cell(row: row, column: field) : .absent
                    // A BLOB marker (`{"$base64":...}`, CSV's `base64:...`), as export
                    // writes a BLOB, into a `bytea` column is its bytes, as into SQLite's
                    // BLOB column: PostgreSQL stored the marker's text as bytes.
                    if families[position] == .bytea, let blob = BlobMarker.decode(cell, bytes: bytes) {
                        Self.appendByteaHex(blob, to: &out)
                        continue
                    }
                    if cell.kind == .text && isJSON[position] {
                        quoted.removeAll(keepingCapacity: true)
                        _ = JSONRowEncoder.appendString(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length)), to: &quoted)
                        quoted.withUnsafeBytes { Self.appendEscaped($0, to: &out) }
                        continue
                    }
                    if inferred[position] < .text ? !TypeTracker.fits(cell, inferred[position], bytes: bytes)
                        : markersOnly[position] && cell.kind != .null && cell.kind != .absent && BlobMarker.decode(cell, bytes: bytes) == nil
                    {
                        var text = batch.text(cell)
                        if text.count > 80 { text = String(text.prefix(77)) + "..." }
                        let column = columnOfField[field]!
                        throw PostgresError(
                            kind: .data,
                            message: "field \(SQLIdentifier.quote(fieldNames[field])) = \(cell.kind == .real ? NumberText.shortest(cell.doubleValue) : "\"\(text)\"") does not fit the column's type \(types[position]), \(WriteError.inferredTypePhrase) \(inferredFrom) records. Pass --type \(column)=TEXT (or the type that holds every value), or --infer-rows all to type it from every record",
                            position: batch.position(row: row, inputName: inputNames[batch.inputIndex]))
                    }
                    // A JSON number with more digits than a double keeps, into `numeric`:
                    // the digits as written (the double's were 12345678901234.568 for
                    // 12345678901234.5678, and a numeric export came back changed).
                    if families[position] == .numeric, let exact = batch.exactNumber(row: row, column: field, cell: cell) {
                        if case .scale(let scale) = limits[position],
                            let why = exact.withUnsafeBytes({ PostgresValueCheck.scaleRefusal($0, scale: scale, type: types[position]) })
                        {
                            throw PostgresError(
                                kind: .data, message: "field \(SQLIdentifier.quote(fieldNames[field])) = \(String(decoding: exact, as: UTF8.self)) \(why)",
                                position: batch.position(row: row, inputName: inputNames[batch.inputIndex]))
                        }
                        exact.withUnsafeBytes { out.append(contentsOf: $0) }
                        continue
                    }
                    if let why = PostgresValueCheck.refusal(cell, family: families[position], bytes: bytes)
                        ?? (limits[position] == .none ? nil : PostgresValueCheck.refusal(
                            cell, limit: limits[position], type: types[position], bytes: bytes,
                            droppedByServer: !droppedByServer.isEmpty && droppedByServer.contains(Int64(row) << 20 | Int64(position))))
                    {
                        let value = cell.kind == .integer ? String(cell.payload) : cell.kind == .real ? NumberText.shortest(cell.doubleValue) : batch.text(cell)
                        throw PostgresError(
                            kind: .data,
                            message: "field \(SQLIdentifier.quote(fieldNames[field])) = \(value) \(why)",
                            position: batch.position(row: row, inputName: inputNames[batch.inputIndex]))
                    }
                    if let elements = arrayElements[position], cell.kind == .json || cell.kind == .text || cell.kind == .untypedText {
                        let raw = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
                        // A JSON array, nested or a string's text (what SQLite stores and
                        // exports for one), becomes the array's text; else the cell is it.
                        var converted: [UInt8]?
                        var why: String?
                        do {
                            converted = try PostgresArrayText.text(ofJSONArray: raw, element: elements.family)
                        } catch let refusal as PostgresArrayText.Refusal {
                            why = refusal.why
                        }
                        if why == nil {
                            if let converted { why = converted.withUnsafeBytes(elements.refusal) } else { why = elements.refusal(raw) }
                        }
                        if let why {
                            throw PostgresError(
                                kind: .data,
                                message: "field \(SQLIdentifier.quote(fieldNames[field])) = \(batch.text(cell)) \(why)",
                                position: batch.position(row: row, inputName: inputNames[batch.inputIndex]))
                        }
                        if let converted {
                            // (A JSON string's \u0000 is a NUL, which PostgreSQL text cannot store.)
                            if converted.contains(0) { throw nulRefused(field: field, row: row, of: batch) }
                            converted.withUnsafeBytes { Self.appendEscaped($0, to: &out) }
                            continue
                        }
                    }
                    if families[position] == .bytea, let text = PostgresValueCheck.byteaText(cell, bytes: bytes) {
                        Self.appendByteaHex(text, to: &out)
                        continue
                    }
                    if holdsInfinity[position], cell.kind == .text || cell.kind == .untypedText || cell.kind == .real,
                        cell.kind == .real ? cell.doubleValue.isInfinite
                            : NumberText.isInfinitySpelling(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length)))
                    {
                        let negative = cell.kind == .real ? cell.doubleValue < 0 : bytes[Int(cell.payload)] == UInt8(ascii: "-")
                        out.append(contentsOf: Array((negative ? "-Infinity" : "Infinity").utf8))
                        continue
                    }
                    if families[position] == .integer, let whole = PostgresValueCheck.wholeNumber(cell, bytes: bytes) {
                        Self.appendDigits(whole, to: &out)
                        continue
                    }
                    switch cell.kind {
                    case .absent, .null:
                        out.append(contentsOf: [0x5C, 0x4E])  // \N
                        continue
                    case .integer:
                        if cell.isBoolean && isJSON[position] {
                            out.append(contentsOf: Array((cell.payload != 0 ? "true" : "false").utf8))
                        } else {
                            Self.appendDigits(cell.payload, to: &out)
                        }
                        continue
                    case .text, .untypedText, .json, .numberAsText:
                        if UnsafeBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length)).contains(0) {
                            throw nulRefused(field: field, row: row, of: batch)
                        }
                    case .real:
                        break
                    }
                    Self.appendText(of: cell, bytes: bytes) { Self.appendEscaped($0, to: &out) }
                }
                out.append(0x0A)
                if out.count >= piece {
                    out.withUnsafeBytes(send)
                    out.removeAll(keepingCapacity: true)
                }
            }
        }
        out.withUnsafeBytes(send)
    }

    /// A value holding a NUL, which PostgreSQL text cannot store (and a parameter, a C
    /// string, would end at).
    func nulRefused(field: Int, row: Int, of batch: RecordBatch) -> PostgresError {
        PostgresError(
            kind: .data,
            message: "field \(SQLIdentifier.quote(fieldNames[field])) holds a NUL character, which PostgreSQL text cannot store; remove it from the input",
            position: batch.position(row: row, inputName: inputNames[batch.inputIndex]))
    }

    /// `bytes` as a `bytea` in COPY's text format: `\\x` and two hex digits a byte.
    static func appendByteaHex(_ bytes: [UInt8], to out: inout [UInt8]) {
        bytes.withUnsafeBytes { appendByteaHex($0, to: &out) }
    }

    static func appendByteaHex(_ bytes: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        let digits = Array("0123456789abcdef".utf8)
        out.reserveCapacity(out.count + 3 + bytes.count * 2)
        out.append(contentsOf: [0x5C, 0x5C, UInt8(ascii: "x")])
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
    }

    /// `text` in COPY's text format: backslash, tab, newline and carriage return escaped.
    /// Runs without one of them are appended whole (a byte at a time was an eighth of
    /// the writer's time).
    static func appendEscaped(_ text: UnsafeRawBufferPointer, to out: inout [UInt8]) {
        var start = 0
        for index in 0 ..< text.count {
            let byte = text[index]
            guard byte == 0x5C || byte == 0x09 || byte == 0x0A || byte == 0x0D else { continue }
            if index > start { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[start ..< index])) }
            switch byte {
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            default: out.append(contentsOf: [0x5C, 0x72])
            }
            start = index + 1
        }
        if text.count > start { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: text[start...])) }
    }

    /// `value`'s decimal digits, without a String per value.
    static func appendDigits(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(0x2D) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // room for 20 digits
        withUnsafeMutableBytes(of: &digits) { room in
            var index = room.count
            repeat {
                index -= 1
                room[index] = UInt8(0x30 + magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: room[index...])
        }
    }

    func report(_ phase: ImportProgress.Phase) {
        progress?(fileProgress.progress(phase: phase, summary: summary, inputCount: options.inputs.count, rowsWritten: summary.counts.read))
    }
}
