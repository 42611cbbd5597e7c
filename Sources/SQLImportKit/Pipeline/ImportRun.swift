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

    var schema: TableSchema?
    /// True when the table exists in the database (not only in a dry run's plan).
    var tableIsReal = false
    var target: ConflictTarget?
    var session: WriteSession?
    var strategy: WriteStrategy = CachedStatementStrategy()
    var tableWasEmpty = true
    var inputNames: [String] = []
    /// Input column names, by column number: a nested field (`--flatten`) by its
    /// prefixed name (`meta_color`), the name a table created by the run gives it.
    var columnNames: [String] = []
    /// Input field names as the reader gave them: a nested field by its path
    /// (`FieldPath`), which `NestedFields` maps by leaf or by prefix.
    var fieldNames: [String] = []
    /// Enum groups (`--enum`, or recognised in the first batch), once the columns are mapped.
    var enumGroups: [EnumGroup] = []
    /// For each input column of an enum group's field: the group (index into
    /// `enumGroups`) and the case it belongs to.
    var enumCaseOfInput: [Int: (group: Int, caseName: String)] = [:]
    /// Input columns outside an enum's field that fill one of its columns, with the group.
    var enumColumnOfDirectInput: [Int: Int] = [:]
    /// Fields of an enum's field that fill none of its columns (a case the enum lacks),
    /// by input, with their group: under `--on-error skip` the records holding them are
    /// rejected one by one (`checkEnumCases`), not the run stopped.
    var enumUnknownCaseOfInput: [Int: Int] = [:]
    /// Fields of a declared enum (true) or column group given as null or a plain value,
    /// by input: under `--on-error skip` the records holding them are rejected one by one
    /// (`checkEnumCases`); the run stopped.
    var plainGroupOfInput: [Int: Bool] = [:]
    /// Nested fields (lowercased first components) already declared or recognised as an
    /// enum or a column group.
    var decidedNestedFields = Set<NameKey>()
    /// Fields read as column groups while every record held one key of them, and one key
    /// only so far (`NestedFields.UndecidedField`), by lowercased name.
    var undecidedNestedFields: [NameKey: NestedFields.UndecidedField] = [:]
    /// Objects inside groups (`meta.kind`): the keys seen one per record, or nil once a
    /// record held two (a group) (`refusePlainEnumsInsideGroups`).
    var keysOfObjectsInsideGroups: [NameKey: Set<String>?] = [:]
    /// Why the records are not sorted by key (`KeyOrder`), when they are not.
    var keyOrderRefusal: String?
    /// Rows by the hash of their content (`ImportRun+UnchangedRows`), once built.
    var unchangedRows: UnchangedRows?
    /// The scan that builds `unchangedRows`, while it runs.
    var unchangedRowsScan: UnchangedRowsScan?
    /// What the scan runs, to run it again on the run's connection (`endUnchangedRowsScan`).
    var pendingUnchangedRowsBuild: (@Sendable (OpaquePointer, () -> Bool) throws(SQLiteFailure) -> UnchangedRows?)?
    var unchangedRowsState = UnchangedRowsState.undecided
    /// Records found equal to a row by `unchangedRows`, counted `unchanged` unwritten.
    var recordsMatchedByContent = 0
    /// The writing thread's time in `write(_:)` while the comparison is undecided.
    var writingNanoseconds: UInt64 = 0
    /// When the batch being written began (0: not timed).
    var writeStartedAt: UInt64 = 0
    /// The records `writingNanoseconds` covers.
    var timedRecords = 0
    /// The literal defaults of the conflict target's columns (`fillKeyDefaults`), once read.
    var keyDefaultsOfTarget: [Int: DatabaseValue]?

    // The sync mirror (`ImportRun+Mirror`).
    var scopeInputs: [Int] = []
    /// Each scope column's affinity (`.blob` for none: untyped, or `ANY` when STRICT).
    var scopeAffinities: [ColumnAffinity] = []
    var scopeValues = Set<[ScopeValue]>()
    var tombstoneInput: Int?
    /// Whether the mirror's trigger watches inserts (`watchInsertsBelowStartMax`).
    var watchesInserts = false
    /// Table column of each mapped input column, by column number; nil when dropped.
    var tableColumnOfInput: [Int?] = []

    // Checkpoints (--commit-every) and --resume.
    var rowsSinceCommit = 0
    var committedRowsOfInput: [Int: Int] = [:]
    var fingerprints: [Int: RunLog.Fingerprint] = [:]
    var resumeEntries: [String: RunLog.Entry] = [:]
    var runID = UUID().uuidString
    var carriedIgnored = 0
    var carriedStartMax: Int64?
    /// Records of input `i` before this decompressed offset were committed by the
    /// interrupted run, and are skipped.
    var resumeOffsetOfInput: [Int: Int64] = [:]
    var countsAtLastCommit = OutcomeCounts()
    var deferredIndexes = DeferredIndexes()
    /// The target keys inserted so far while the target's index is deferred; nil when
    /// it is not (`DeferredIndexes`, `FingerprintSet`).
    var firstLoadKeys: FingerprintSet?
    /// `IndexedColumns` as read before deferred indexes were dropped.
    var guardableColumns: Set<NameKey>?
    var fileProgress = FileProgress()
    /// Columns of a table this run created, whose types it inferred, with the records
    /// it sampled (lowercased names).
    var inferredTypes: [NameKey: Int] = [:]
    var rejectsFile: RejectsFile?

    // Keys (`ImportRun+Keys`).
    let keyLedger = KeyLedger()
    var batchPlan = BatchPlan()
    var firstNullKey: SourcePosition?
    var firstDuplicate: String?
    /// The first value `missingValuesAsText` counted: its column, its text, its record.
    var firstMissingValueAsText: (column: String, text: String, position: SourcePosition)?
    /// Repeats the `KeyLedger` found (where SQLite cannot tell them).
    var ledgerRepeats = 0
    /// The rows of the slice being written that were set aside while writing.
    var rowsRejectedWhileWriting = Set<Int>()
    /// The tombstones of the slice being written that deleted a row.
    var rowsDeletedByTombstones = Set<Int>()

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

    /// After the run's transaction ended: the connection is the caller's again.
    func close() {
        unchangedRowsScan?.finish(interrupt: true)
        unchangedRowsScan = nil
        stopWatchingInserts(afterTransaction: true)
        session?.close()
        session = nil
        rejectsFile?.close()
    }

    /// What a failed run leaves: the counts of what it committed (with --commit-every,
    /// up to its last checkpoint; else nothing), `read` included.
    var summaryAfterFailure: ImportSummary {
        var failed = summary
        failed.counts = countsAtLastCommit
        return failed
    }

    // MARK: - Run

    func execute() throws {
        defer { stopWatchingInserts(afterTransaction: false) }
        if options.commitEvery != nil { try prepareRunLog() }
        try openRejects()
        if let existing = try TableSchema.read(db, table: table) {
            schema = existing
            tableIsReal = true
            try DatabaseOpener.addUUIDFunctionWhenMissing(db, for: existing)
            try refuseOptionsForANewTable(existing)
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
                if options.reader.format == nil, let named = InputFormat.fromExtension(description.path),
                    named != description.format, !(named == .csv && description.format == .tsv || named == .tsv && description.format == .csv)
                {
                    summary.warnings.append(
                        "\(description.path) is named as \(named.rawValue.uppercased()) but holds \(description.format.rawValue.uppercased()); it was read as \(description.format.rawValue.uppercased()) (pass --format to choose)")
                }
                try resumeInput(index, path: description.path)
            case .batch(let batch):
                try account(batch)
                if schema == nil {
                    sample.append(batch)
                    sampleRows += batch.rowCount
                    // Huge records fill batches early: the sample then ends with the
                    // batches the reader can spare, never starving it.
                    if sampleRows < options.inferRows && sample.count < source.batchesTheWriterMayHold { continue }
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
        try endUnchangedRowsScan(interrupt: true)
        if schema == nil {
            if columnNames.isEmpty {
                summary.warnings.append("the input holds no fields; table \(SQLIdentifier.quote(table)) was not created")
                return finishSummary()
            }
            try createTable(from: sample)
        }
        for pending in sample { try write(pending) }
        // The key set is done with: its memory goes to the index builds' sorter (the page
        // cache stays as small as it was, until the run's settings are restored).
        firstLoadKeys = nil
        if !deferredIndexes.indexes.isEmpty { report(phase: .buildingIndexes) }
        try deferredIndexes.rebuild(db, table: table)
        if options.mirror.deleteMissing { report(phase: .deleting) }
        try deleteMissingRows()
        warnAboutUnusedEnums()
        warnAboutUnusedTombstone()
        describeKeyOrder()
        describeUnchangedRows()
        finishSummary()
    }

    /// For a first load, drops secondary indexes to build them once at the end (see
    /// `DeferredIndexes` for when this applies).
    func deferIndexes() throws {
        guard tableWasEmpty, tableIsReal, options.commitEvery == nil, options.onError == .abort else { return }
        // Read before the drop: a column of a deferred index is still one whose unchanged
        // value an update may leave alone once the index is back.
        if options.usesGuardedStatements { guardableColumns = try IndexedColumns.read(db, table: table) }
        // The target's index only where its keys' fingerprints compare as it does (built-in
        // collations); not with `--alter`, which re-reads the schema mid-run and finds the
        // target by its index, nor with `--tombstone`, whose deletions look rows up by it.
        let comparesAsFingerprints = target?.key.collations?.allSatisfy { ["BINARY", "NOCASE", "RTRIM"].contains($0.uppercased()) } ?? true
        deferredIndexes = try DeferredIndexes.drop(
            db, table: table, target: target?.key.indexName,
            deferTarget: !options.alter && options.mirror.tombstone == nil && comparesAsFingerprints)
        summary.deferredIndexes = deferredIndexes.indexes.map(\.name)
        if let target, deferredIndexes.defers(target.key.indexName) {
            let bytes = Self.firstLoadKeyBytes(cacheMiB: options.cacheSizeMiB)
            firstLoadKeys = FingerprintSet(maxBytes: bytes)
            // The key set is paid for out of the page cache while it lives: plain inserts
            // touch only the table's last pages and the primary key's index, which need
            // far less than the cache (the bench's 1M-row load runs as fast with half).
            try db.execute(sql: "PRAGMA cache_size = \(-(max(options.cacheSizeMiB, 1) << 10 - bytes >> 10))")
        }
    }

    /// What `firstLoadKeys` may take: a sixteenth of the page cache (`--cache-mib`), so
    /// 16 MiB (1M keys) by default, 64 KiB (4,096 keys) with a 1 MiB cache.
    static func firstLoadKeyBytes(cacheMiB: Int) -> Int { max(max(cacheMiB, 1) << 20 / 16, 1 << 16) }

    /// Builds the deferred unique indexes (the conflict target's among them) now, and
    /// writes the rest of the load through the upsert statements (`DeferredIndexes`).
    /// - Parameters:
    ///   - position: the record that could conflict, or that found the key set full.
    ///   - reason: why, for the summary.
    func endInsertsOnly(at position: String, _ reason: String) throws {
        guard firstLoadKeys != nil else { return }
        firstLoadKeys = nil
        try db.execute(sql: "PRAGMA cache_size = \(-(max(options.cacheSizeMiB, 1) << 10))")
        summary.indexesBuiltEarly = "\(position): \(reason)"
        report(phase: .buildingIndexes)
        try deferredIndexes.rebuildUnique(db, table: table)
        session?.endInsertsOnly()
        // The rest of the load inserts into the target's random-key index row by row,
        // where `auto` takes one row per statement (`WriteStrategyKind.choose`).
        if options.strategy == .auto, strategy is MultiRowStrategy {
            strategy = CachedStatementStrategy()
            summary.strategy = WriteStrategyKind.cached.rawValue
            summary.rowsPerStatement = 1
            summary.strategyReason = "multi-row plain inserts while the conflict target's index was deferred, then one row per statement from \(position), where it was built"
        }
    }

    /// `--pk` shapes a table the run creates, and `--type` one it creates or a column
    /// `--alter` adds: against an existing table they would be ignored, silently. The
    /// same flags as the table has pass (the nightly command that created it); others are
    /// refused.
    func refuseOptionsForANewTable(_ schema: TableSchema) throws {
        if !options.primaryKey.isEmpty, Set(options.primaryKey.map(\.sqliteFolded)) != Set(schema.primaryKey.map(\.sqliteFolded)) {
            let current = schema.primaryKey.isEmpty ? "none (rowid)" : schema.primaryKey.joined(separator: ",")
            throw SchemaError.optionForNewTable(
                "--pk \(options.primaryKey.joined(separator: ",")): table \(SQLIdentifier.quote(table)) exists, with primary key \(current); --pk applies to a table the run creates: drop it")
        }
        for (name, type) in options.typeOverrides.sorted(by: { $0.key < $1.key }) {
            guard let index = schema.columnIndex(named: name) else { continue }
            let column = schema.columns[index]
            guard column.declaredType.sqliteFolded.text.trimmingCharacters(in: .whitespaces) != type.sqliteFolded.text.trimmingCharacters(in: .whitespaces) else { continue }
            throw SchemaError.optionForNewTable(
                "--type \(name)=\(type): table \(SQLIdentifier.quote(table)) exists, and its column \(SQLIdentifier.quote(column.name)) is \(column.declaredType.isEmpty ? "untyped" : column.declaredType); --type applies to a table the run creates or a column --alter adds: drop it")
        }
    }

    func checkCancellation() throws {
        if let signal = options.cancellation?.signal { throw ImportError.interrupted(signal: signal) }
    }

    func account(_ batch: RecordBatch) throws {
        fieldNames.append(contentsOf: batch.newColumns)
        columnNames.append(contentsOf: batch.newColumns.map(FieldPath.prefixName))
        summary.counts.read += batch.rowCount + batch.rejects.count
        // Records the reader could not parse, in the part an interrupted run committed:
        // counted by that run (`openRejects`), as the records it wrote are skipped.
        let resumeOffset = resumeOffsetOfInput[batch.inputIndex]
        for record in batch.rejects {
            if let resumeOffset, record.byteOffset < resumeOffset {
                summary.counts.read -= 1
                continue
            }
            try reject(record)
        }
        if let line = batch.unterminatedLastLine { summary.warnings.append(Self.unterminatedLastLineWarning(inputNames[batch.inputIndex], line: line)) }
        summary.inputs[batch.inputIndex].bytesRead = batch.inputBytesConsumed
        fileProgress.record(batch)
    }

    /// A CSV/TSV input whose last record has no line end: a file written whole ends its
    /// last line, and one cut short is read without an error, its last field cut too.
    static func unterminatedLastLineWarning(_ input: String, line: Int) -> String {
        "\(input):\(line): the last record has no line end; if the file was cut short, so is that record's last field (it was imported as read)"
    }

    /// Tells the caller where the run stands (`ImportProgress`).
    func report(phase: ImportProgress.Phase) {
        guard let progress else { return }
        var written = summary.counts.rejected + summary.counts.nullKey
        if let counts = session?.counts { written += counts.inserted + counts.updated + counts.unchanged + counts.skipped + counts.ignored }
        if phase != .writing { written = summary.counts.read }
        progress(fileProgress.progress(phase: phase, summary: summary, inputCount: options.inputs.count, rowsWritten: written))
    }

    func syncCounts() {
        if let session {
            let counts = session.counts
            summary.counts.inserted = counts.inserted
            summary.counts.updated = counts.updated
            summary.counts.unchanged = counts.unchanged
            summary.counts.skipped = counts.skipped
            summary.counts.ignored = counts.ignored
            summary.counts.newerMixedForms = session.counters.newerMixedForms
        }
        summary.counts.duplicateKeys = ledgerRepeats + (session?.counts.duplicates ?? 0)
    }

    /// Names the key of the first row a record met that this run had written
    /// (`OutcomeCounters.firstDuplicateRowid`), read from the row just after the statement
    /// that met it. (Read at the end, the row could be gone: a tombstone, `--delete-missing`;
    /// or its rowid another row's.)
    func nameFirstDuplicate(session: WriteSession, readingTheRow: Bool = true) {
        guard firstDuplicate == nil, let rowid = session.counters.firstDuplicateRowid, let rowidName = session.rowidName, let target else { return }
        let key = !readingTheRow ? nil : try? Row.fetchOne(
            db, sql: "SELECT \(SQLIdentifier.quoteList(target.columns)) FROM \(SQLIdentifier.quote(table)) WHERE \(rowidName) = ?", arguments: [rowid])
        firstDuplicate = "a record repeats (\(SQLIdentifier.quoteList(target.columns)))"
            + (key.map { " = (" + $0.databaseValues.map(\.description).joined(separator: ", ") + ")" } ?? "")
    }

    func finishSummary() {
        syncCounts()
        if summary.counts.nullKey > 0, let firstNullKey, options.nullKey == .insert {
            summary.warnings.append(
                "\(summary.counts.nullKey) record(s) have a NULL key column or fall outside the partial index's predicate, and no primary key (first: \(firstNullKey)): they were inserted as new rows (--null-key insert), and a re-run will insert them again")
        }
        if let session {
            // Not named as it happened: from its row, unless the run deleted rows (the row
            // may be gone, or its rowid another row's).
            nameFirstDuplicate(session: session, readingTheRow: summary.counts.deleted == 0)
        }
        if summary.counts.missingValuesAsText > 0, let (column, text, position) = firstMissingValueAsText {
            let instead = options.reader.nullText.map { " in place of --null '\($0)'" } ?? ""
            summary.warnings.append(
                "\(summary.counts.missingValuesAsText) value(s) that spell a missing value were given for numeric columns of \(SQLIdentifier.quote(table)), which is not STRICT and keeps them as text (first: \(SQLIdentifier.quote(column)) = \(text) at \(position)); if \(text) means a missing value in this CSV/TSV input, pass \(WriteError.nullOption(text))\(instead) to store NULL")
        }
        if summary.counts.newerMixedForms > 0, let warning = options.merge.newerMixedFormsWarning(summary.counts.newerMixedForms, first: session?.counters.firstNewerMix) {
            summary.warnings.append(warning)
        }
        if summary.counts.duplicateKeys > 0, let firstDuplicate {
            summary.warnings.append(
                "\(summary.counts.duplicateKeys) record(s) repeat the key of an earlier record; the later record won (first: \(firstDuplicate)). Pass --duplicate-keys error to refuse such input")
        }
        if summary.counts.ignored > 0 {
            summary.warnings.append(
                "\(summary.counts.ignored) record(s) were dropped by SQLite (an ON CONFLICT IGNORE constraint of the table, or a trigger's RAISE(IGNORE)): neither inserted nor updated")
        }
        if summary.counts.numbersKeptAsText > 0 {
            summary.warnings.append("\(summary.counts.numbersKeptAsText) number(s) do not fit a 64-bit integer or a double exactly and were stored as TEXT")
        }
    }
}
