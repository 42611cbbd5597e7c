import GRDB
import GRDBSQLite

/// The writing side of one run, on one connection inside one transaction: the row
/// shapes and their prepared statements, and the exact outcome counts.
final class WriteSession {
    let connection: OpaquePointer
    private(set) var schema: TableSchema
    let target: ConflictTarget?
    let policy: MergePolicy
    let counters = OutcomeCounters()
    /// Inserted rows, and conflicts resolved by `DO NOTHING` (counted here because no
    /// SQL function runs for them).
    private(set) var inserted = 0
    /// `(input column, table column)` for every mapped input column, by table column.
    private(set) var mapping: [(input: Int, table: Int)] = []
    private var shapes: [[Int]: RowShape] = [:]
    private var lastShape: RowShape?
    private var shapeKey: [Int] = []
    /// Called for a record SQLite or a check refused, when the run sets bad records aside
    /// (`--on-error skip`); nil makes the failure end the run.
    var onRecordFailure: ((WriteError, Int, RecordBatch) throws -> Void)?
    /// Decides which rows fall outside a partial conflict index.
    private(set) var partialFilter: PartialPredicateFilter?
    /// `sqlite3_limit(SQLITE_LIMIT_VARIABLE_NUMBER)`, read at run time.
    let variableLimit: Int
    /// Columns an update may leave out while unchanged (`IndexedColumns`).
    let guardable: Set<NameKey>
    /// Whether statements may put the primary-key clause first (`UpsertStatement`).
    let mayReorderKeyClauses: Bool
    /// Builds the deferred unique indexes when the first conflict of a first load needs
    /// them (`DeferredIndexes`); the statement then runs again.
    var buildDeferredUniqueIndexes: (() throws -> Void)?
    /// True while the conflict target's index is deferred for a first load
    /// (`DeferredIndexes`): shapes get plain `INSERT` statements, and a constraint
    /// failure means a record may conflict (`StepFailure.endsInsertsOnly`).
    private(set) var insertsOnly = false
    /// Columns whose type this run inferred (lowercased), with the records it sampled:
    /// a value that does not fit names the inference and its fixes.
    var inferredTypes: [NameKey: Int] = [:]
    /// Records SQLite dropped through an `ON CONFLICT IGNORE` resolution.
    private(set) var ignored = 0
    /// True when a failed statement may leave part of its work in place: the database
    /// has a trigger (`RAISE(FAIL)`, or a statement with `OR FAIL`) or a table with an
    /// `ON CONFLICT FAIL` constraint. Statements whose failure is retried or set aside
    /// then run inside a savepoint, rolled back on failure, so that the retry starts
    /// from the state before the statement, as one SQL upsert per record would.
    let usesSavepoints: Bool
    /// The database has a trigger, which sees each write: records keep their input order.
    let hasTriggers: Bool
    /// 1 when a trigger may `RAISE(IGNORE)` an update, which only a statement of one
    /// record can count exactly (`account`), or when a foreign key's check at the end of
    /// a statement could pass a record that fails on its own; nil otherwise.
    let recordsPerStatementLimit: Int?
    /// Inserts say `INSERT OR ABORT` (`TableSchema.overridesDeclaredConflictClauses`),
    /// unless a trigger has a conflict clause of its own (`INSERT OR REPLACE`): SQLite
    /// applies the outer statement's resolution to the statements of the triggers it
    /// fires, so the override would change what the trigger does.
    let abortsOtherConflicts: Bool
    /// A trigger's own conflict clause kept the table's from being overridden.
    var keepsDeclaredConflictClauses: Bool { schema.overridesDeclaredConflictClauses && !abortsOtherConflicts }
    /// How statements name the conflicting row's rowid (`_rowid_`, `rowid` or `oid`,
    /// whichever no column shadows), nil for a WITHOUT ROWID table.
    let rowidName: String?
    /// True when repeated keys are counted by rowid (`TouchedRows`) inside SQLite.
    var tracksRowids: Bool { counters.touched != nil }
    private var savepointStatements: [OpaquePointer] = []
    /// The table columns of each enum group (`EnumGroup`), and the group of each input
    /// column of a group's field: a record with a case gets every other column of its
    /// group as NULL, through a shape position whose input is `clearedInput(column)`.
    private(set) var enumColumns: [[Int]] = []
    private var enumGroupOfInput: [Int: Int] = [:]
    /// Inputs of an enum's field that fill no column (`FieldPath.isPresenceMarker`): a
    /// case with no value, which still clears the others.
    private var enumMarkers: [(input: Int, group: Int)] = []
    /// Input column numbers from here on name no field: `batch.cell` finds them absent,
    /// which binds as NULL.
    static let clearedInputBase = 1 << 40

    init(
        db: Database, schema: TableSchema, target: ConflictTarget?, policy: MergePolicy, guardable: Set<NameKey> = [],
        mayReorderKeyClauses: Bool = false
    ) {
        connection = db.sqliteConnection!
        self.schema = schema
        self.target = target
        self.policy = policy
        self.guardable = guardable
        self.mayReorderKeyClauses = mayReorderKeyClauses
        variableLimit = Int(sqlite3_limit(connection, SQLITE_LIMIT_VARIABLE_NUMBER, -1))
        // One look at the schema decides all three (unreadable: assume the worst).
        let triggers = (try? String.fetchAll(db, sql: """
            SELECT upper(sql) FROM sqlite_schema WHERE type = 'trigger' UNION ALL SELECT upper(sql) FROM sqlite_temp_schema WHERE type = 'trigger'
            """)) ?? ["RAISE(IGNORE)"]
        let failColumns = (try? Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND sql LIKE '%FAIL%')")) ?? true
        hasTriggers = !triggers.isEmpty
        // SQLite checks an immediate foreign key at the end of each statement, so a
        // statement of several records may pass where one upsert per record fails: a
        // record that takes a parent key from a row children refer to while a later one
        // gives it to another row, a child before its parent in one table, or a
        // trigger's write that a later record's makes valid. Such tables get one record
        // per statement. (`RESTRICT`, `CASCADE` and `SET NULL` act on each row at once.)
        // So does a table that refers to another while it holds rows that break the key
        // (loaded with foreign keys off): a record that repairs one of them makes room,
        // in SQLite's count, for a new orphan in the same statement.
        let foreignKeysSeeStatements = (try? Bool.fetchOne(db, sql: """
            SELECT (SELECT foreign_keys FROM pragma_foreign_keys) AND EXISTS (
              SELECT 1 FROM sqlite_schema AS s, pragma_foreign_key_list(s.name) AS f WHERE s.type = 'table' AND (?2
                OR f."table" = ?1 COLLATE NOCASE AND (s.name = ?1 COLLATE NOCASE OR upper(f.on_update) IN ('NO ACTION', 'SET DEFAULT'))
                OR s.name = ?1 COLLATE NOCASE AND EXISTS (SELECT 1 FROM pragma_foreign_key_check(?1))))
            """, arguments: [schema.name, !triggers.isEmpty])) ?? true
        let raisesIgnore = triggers.contains { $0.range(of: "RAISE") != nil && $0.range(of: "IGNORE") != nil }
        recordsPerStatementLimit = raisesIgnore || foreignKeysSeeStatements ? 1 : nil
        let triggersResolveConflicts = triggers.contains { trigger in
            let words = trigger.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return ["OR REPLACE", "OR IGNORE", "OR ABORT", "OR FAIL", "OR ROLLBACK", "REPLACE INTO"].contains { words.contains($0) }
        }
        abortsOtherConflicts = schema.overridesDeclaredConflictClauses && !triggersResolveConflicts
        usesSavepoints = hasTriggers || failColumns
        if let predicate = target?.predicate {
            partialFilter = PartialPredicateFilter(predicate: predicate, table: schema.name)
        }
        let names = Set(schema.columns.map { $0.name.sqliteFolded })
        rowidName = schema.isWithoutRowid ? nil : ["_rowid_", "rowid", "oid"].first { !names.contains(NameKey($0)) }
        counters.register(on: connection)
    }

    /// Starts counting repeated keys by rowid: `startMax` is the table's largest rowid
    /// when the run began. Call before the first statement.
    func trackRowids(startMax: Int64) {
        guard rowidName != nil else { return }
        counters.touched = TouchedRows(startMax: startMax)
    }

    func close() {
        for statement in savepointStatements { sqlite3_finalize(statement) }
        savepointStatements.removeAll()
        for shape in shapes.values { shape.finalize() }
        shapes.removeAll()
        lastShape = nil
        partialFilter = nil
        counters.unregister(on: connection)
    }

    func updateSchema(_ schema: TableSchema) {
        self.schema = schema
        forgetShapes()
    }

    /// Sets the enum groups (see `enumColumns`); shapes are rebuilt.
    func setEnumGroups(_ columns: [[Int]], groupOfInput: [Int: Int]) {
        for shape in shapes.values { shape.finalize() }
        shapes.removeAll()
        lastShape = nil
        enumColumns = columns
        enumGroupOfInput = groupOfInput
        let mapped = Set(mapping.map(\.input))
        enumMarkers = groupOfInput.filter { !mapped.contains($0.key) }.map { ($0.key, $0.value) }.sorted { $0.input < $1.input }
    }

    /// Writes plain inserts until `endInsertsOnly` (see `insertsOnly`).
    func beginInsertsOnly() {
        guard target != nil else { return }
        insertsOnly = true
        forgetShapes()
    }

    /// Goes back to the upsert statements, once the target's index exists again.
    func endInsertsOnly() {
        guard insertsOnly else { return }
        insertsOnly = false
        counters.conflictsNeedIndexes = false
        forgetShapes()
    }

    /// Finalizes the shapes' statements, so that shapes are made again. The partial
    /// filter is made again too: it keeps an evaluator per shape object.
    private func forgetShapes() {
        for shape in shapes.values { shape.finalize() }
        shapes.removeAll()
        lastShape = nil
        if let predicate = target?.predicate {
            partialFilter = PartialPredicateFilter(predicate: predicate, table: schema.name)
        }
    }

    /// The statement a shape runs once the upsert statements are back: what the summary
    /// shows while `insertsOnly`.
    func upsertStatement(of shape: RowShape) -> UpsertStatement {
        guard insertsOnly else { return shape.statement }
        return RowShape(
            inputColumns: shape.inputColumns, tableColumns: shape.tableColumns, schema: schema, target: target, policy: policy,
            guardable: guardable, mayReorderKeyClauses: mayReorderKeyClauses, rowidName: rowidName, abortsOtherConflicts: abortsOtherConflicts
        ).statement
    }

    func map(input: Int, toTableColumn table: Int) {
        mapping.append((input, table))
        mapping.sort { $0.table < $1.table }
        lastShape = nil
    }

    // MARK: - Shapes

    /// The shape of `row`: which mapped columns it supplies.
    @inline(__always)
    func shape(of row: Int, in batch: RecordBatch) -> RowShape {
        if !enumColumns.isEmpty { return shapeClearingEnumCases(of: row, in: batch) }
        if let last = lastShape, matches(last, row: row, batch: batch) { return last }
        shapeKey.removeAll(keepingCapacity: true)
        for pair in mapping where batch.cell(row: row, column: pair.input).kind != .absent {
            shapeKey.append(pair.input)
        }
        if let known = shapes[shapeKey] {
            lastShape = known
            return known
        }
        let tableColumns = shapeKey.map { input in mapping.first { $0.input == input }!.table }
        return makeShape(tableColumns: tableColumns)
    }

    /// `shape(of:in:)` with enum groups: the columns of a group the record has a case of,
    /// but that its case does not fill, are written as NULL.
    private func shapeClearingEnumCases(of row: Int, in batch: RecordBatch) -> RowShape {
        var pairs: [(input: Int, table: Int)] = []
        var groups = Set<Int>()
        for pair in mapping where batch.cell(row: row, column: pair.input).kind != .absent {
            pairs.append(pair)
            if let group = enumGroupOfInput[pair.input] { groups.insert(group) }
        }
        for marker in enumMarkers where batch.cell(row: row, column: marker.input).kind != .absent { groups.insert(marker.group) }
        var replaced = Set<NameKey>()
        if !groups.isEmpty {
            let filled = Set(pairs.map(\.table))
            for group in groups.sorted() {
                for column in enumColumns[group] {
                    if !filled.contains(column) { pairs.append((Self.clearedInputBase + column, column)) }
                    replaced.insert(schema.columns[column].name.sqliteFolded)
                }
            }
            pairs.sort { $0.table < $1.table }
        }
        shapeKey = pairs.map(\.input)
        if let known = shapes[shapeKey] { return known }
        return makeShape(tableColumns: pairs.map(\.table), replacedColumns: replaced)
    }

    /// - Parameter replacedColumns: the (folded) columns `SET` assigns from the record under
    ///   every policy: the columns of an enum the record holds a case of (a case switch
    ///   under `coalesce` still clears the old case).
    private func makeShape(tableColumns: [Int], replacedColumns: Set<NameKey> = []) -> RowShape {
        let shape = RowShape(
            inputColumns: shapeKey, tableColumns: tableColumns, schema: schema, target: insertsOnly ? nil : target, policy: policy, guardable: guardable,
            mayReorderKeyClauses: mayReorderKeyClauses, rowidName: rowidName, replacedColumns: replacedColumns,
            abortsOtherConflicts: abortsOtherConflicts)
        if !inferredTypes.isEmpty {
            let kinds = zip(tableColumns, shape.affinities).map { column, affinity -> TypeTracker.Inferred in
                guard inferredTypes[schema.columns[column].name.sqliteFolded] != nil else { return .text }
                return affinity == .integer ? .integer : affinity == .real ? .real : .text
            }
            if kinds.contains(where: { $0 < .text }) { shape.inferredKinds = kinds }
        }
        shapes[shapeKey] = shape
        lastShape = shape
        return shape
    }

    @inline(__always)
    private func matches(_ shape: RowShape, row: Int, batch: RecordBatch) -> Bool {
        var next = 0
        let inputs = shape.inputColumns
        for pair in mapping {
            let present = batch.cell(row: row, column: pair.input).kind != .absent
            let expected = next < inputs.count && inputs[next] == pair.input
            if present != expected { return false }
            if expected { next += 1 }
        }
        return next == inputs.count
    }

    // MARK: - Statements

    func statement(for shape: RowShape, rows: Int) throws -> OpaquePointer {
        try prepared(shape.statement, rows: rows, cachedIn: \.prepared, of: shape)
    }

    /// `upsert`'s statement for `rows` records, prepared once per shape and kept in `cache`.
    private func prepared(
        _ upsert: UpsertStatement, rows: Int, cachedIn cache: ReferenceWritableKeyPath<RowShape, [Int: OpaquePointer]>,
        of shape: RowShape
    ) throws -> OpaquePointer {
        if let prepared = shape[keyPath: cache][rows] { return prepared }
        let sql = upsert.sql(rowCount: rows)
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        shape[keyPath: cache][rows] = statement
        return statement
    }

    /// True once SQLite has rolled back the whole transaction on a failed statement (an
    /// I/O error, a full disk, a constraint or trigger that says ROLLBACK). Nothing may
    /// run after that: it would run outside the transaction and commit at once.
    private(set) var transactionRolledBack = false

    /// A statement failure, before it is tied to a record.
    struct StepFailure: Error {
        var code: Int32
        var message: String
        var refusedColumn: Int?
        /// Why `refusedColumn`'s value was not bound.
        var refusal: StatementBinder.Refusal?
        /// SQLite rolled back the transaction with the statement.
        var rolledBack = false
        /// Building the deferred unique indexes found a duplicate: the run's error.
        var deferredIndexFailure: Error?
        /// A plain insert of a first load failed a constraint (`insertsOnly`): its
        /// records may conflict, and go again through the upsert statements.
        var endsInsertsOnly = false

        /// The result codes that are about a record's values: such a record can be set
        /// aside (`--on-error skip`) and a multi-row chunk retried record by record.
        static let recordCodes = [SQLITE_CONSTRAINT, SQLITE_MISMATCH, SQLITE_TOOBIG, SQLITE_RANGE]

        /// Whether the failure is the record's, not the database's.
        var isAboutTheRecord: Bool {
            !rolledBack && deferredIndexFailure == nil && !endsInsertsOnly && (refusedColumn != nil || Self.recordCodes.contains(code & 0xFF))
        }
    }

    /// Binds `rows` (consecutive rows of one shape) into `statement` and steps it once.
    /// On failure SQLite has already undone the statement's changes, and the counters
    /// are restored, so the rows can be retried one by one. When the statement's guard
    /// refuses a row, the same rows go through the shape's fallback statement instead.
    func execute(
        _ statement: OpaquePointer, shape: RowShape, rows: Range<Int>, batch: RecordBatch, bytes: UnsafePointer<UInt8>
    ) throws(StepFailure) {
        let before = counters.snapshot
        do throws(StepFailure) {
            do throws(StepFailure) {
                try step(statement, rows: rows, of: batch, shape: shape, bytes: bytes, restoring: before)
            } catch {
                guard counters.needsIndexes else { throw error }
                counters.needsIndexes = false
                counters.conflictsNeedIndexes = false
                do {
                    try buildDeferredUniqueIndexes?()
                } catch let failure {
                    throw StepFailure(code: SQLITE_CONSTRAINT, message: "\(failure)", rolledBack: false, deferredIndexFailure: failure)
                }
                try step(statement, rows: rows, of: batch, shape: shape, bytes: bytes, restoring: before)
            }
            account(shape.statement, rows: rows, before: before)
            markSuppliedRowids(rows, of: batch, shape: shape, bytes: bytes)
        } catch {
            if insertsOnly && error.code & 0xFF == SQLITE_CONSTRAINT && !error.rolledBack {
                var failure = error
                failure.endsInsertsOnly = true
                throw failure
            }
            let needsFallback = counters.needsFallback
            counters.needsFallback = false
            guard needsFallback, !error.rolledBack, let fallback = shape.statement.fallback?.statement else { throw error }
            let statement: OpaquePointer
            do {
                statement = try prepared(fallback, rows: rows.count, cachedIn: \.preparedFallback, of: shape)
            } catch {
                throw StepFailure(code: SQLITE_ERROR, message: "\(error)")
            }
            try step(statement, rows: rows, of: batch, shape: shape, bytes: bytes, restoring: before)
            account(fallback, rows: rows, before: before)
            markSuppliedRowids(rows, of: batch, shape: shape, bytes: bytes)
        }
    }

    /// Binds and steps; on failure resets, restores the counters to `before` and throws.
    private func step(
        _ statement: OpaquePointer, rows: Range<Int>, of batch: RecordBatch, shape: RowShape, bytes: UnsafePointer<UInt8>,
        restoring before: OutcomeCounters.Snapshot
    ) throws(StepFailure) {
        var parameter: Int32 = 1
        for row in rows {
            try bind(row, of: batch, shape: shape, to: statement, startingAt: &parameter, bytes: bytes)
        }
        let code = sqlite3_step(statement)
        guard code == SQLITE_DONE else {
            let message = String(cString: sqlite3_errmsg(connection))
            let extended = sqlite3_extended_errcode(connection)
            sqlite3_reset(statement)
            counters.restore(before)
            // The run always writes inside a transaction (or the caller's): autocommit
            // mode now means SQLite rolled it back.
            if sqlite3_get_autocommit(connection) != 0 { transactionRolledBack = true }
            throw StepFailure(code: extended, message: message, rolledBack: transactionRolledBack)
        }
        sqlite3_reset(statement)
    }

    /// Marks the rowids that records supplying the `INTEGER PRIMARY KEY` may have inserted
    /// below `TouchedRows.startMax` (in a gap), so that a later conflict there counts as a
    /// repeated key. Marking one that was not inserted is harmless: only a record of this
    /// run can have put a row there since.
    private func markSuppliedRowids(_ rows: Range<Int>, of batch: RecordBatch, shape: RowShape, bytes: UnsafePointer<UInt8>) {
        guard let touched = counters.touched, let position = shape.rowidAliasPosition else { return }
        for row in rows {
            let cell = batch.cell(row: row, column: shape.inputColumns[position])
            // Every spelling SQLite turns into an integer key: `5`, `5.0`, `"+5"`, `" 5"`.
            switch cell.kind {
            case .integer:
                touched.mark(cell.payload)
            case .real:
                if let value = Int64(exactly: cell.doubleValue) { touched.mark(value) }
            case .untypedText, .text:
                switch NumberText.affinityNumber(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))) {
                case .integer(let value): touched.mark(value)
                case .real(let value): if let value = Int64(exactly: value) { touched.mark(value) }
                default: break
                }
            default:
                break
            }
        }
    }

    /// Counts inserted and ignored rows after `statement` ran on `rows`: every conflict
    /// calls `sqlimport_outcome` (updated, unchanged or skipped), `sqlite3_changes()` is
    /// inserted plus updated, and a record that is neither was dropped by SQLite.
    ///
    /// A trigger's `RAISE(IGNORE)` before an update drops it after `sqlimport_outcome`
    /// counted it: with one record per statement (`recordsPerStatementLimit`) the count is
    /// corrected to `ignored`. It still met its row, so it is a repeat of the record that
    /// met the row before (as `--duplicate-keys error` says, which refuses it then), and
    /// a later record meeting that row repeats it.
    private func account(_ statement: UpsertStatement, rows: Range<Int>, before: OutcomeCounters.Snapshot) {
        let changes = Int(sqlite3_changes(connection))
        var updated = counters.updated - before.updated
        if rows.count == 1 && updated == 1 && changes == 0 {
            counters.updated -= 1
            updated = 0
        }
        inserted += changes - updated
        ignored += rows.count - changes - (counters.unchanged - before.unchanged) - (counters.skipped - before.skipped)
    }

    // MARK: - Savepoints

    /// `execute` inside a savepoint when `atomic`: a failure rolls the statement's work
    /// back entirely (trigger effects included), even where SQLite's `FAIL` resolution
    /// would keep part of it.
    func execute(
        _ statement: OpaquePointer, shape: RowShape, rows: Range<Int>, batch: RecordBatch, bytes: UnsafePointer<UInt8>, atomic: Bool
    ) throws(StepFailure) {
        guard atomic else { return try execute(statement, shape: shape, rows: rows, batch: batch, bytes: bytes) }
        try savepoint(0)
        do {
            try execute(statement, shape: shape, rows: rows, batch: batch, bytes: bytes)
        } catch {
            if !transactionRolledBack {
                try savepoint(1)
                try savepoint(2)
            }
            throw error
        }
        try savepoint(2)
    }

    /// Runs `SAVEPOINT`, `ROLLBACK TO` or `RELEASE` (0, 1, 2) of `sqlimport_statement`.
    private func savepoint(_ which: Int) throws(StepFailure) {
        if savepointStatements.isEmpty {
            for sql in ["SAVEPOINT sqlimport_statement", "ROLLBACK TO sqlimport_statement", "RELEASE sqlimport_statement"] {
                var statement: OpaquePointer?
                guard sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
                    throw StepFailure(code: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)))
                }
                savepointStatements.append(statement)
            }
        }
        let statement = savepointStatements[which]
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            if sqlite3_get_autocommit(connection) != 0 { transactionRolledBack = true }
            throw StepFailure(code: sqlite3_extended_errcode(connection), message: String(cString: sqlite3_errmsg(connection)), rolledBack: true)
        }
    }

    /// Reports a failed record: sets it aside when the run allows it, else throws. Only
    /// data errors can be set aside; an I/O error, a full disk or a busy database ends
    /// the run whatever the policy.
    func fail(_ error: WriteError, row: Int, batch: RecordBatch) throws {
        guard let onRecordFailure, !transactionRolledBack else { throw error }
        // --duplicate-keys error stops the run, whatever --on-error says.
        if case .repeatedKey = error.reason { throw error }
        if case .deferredUniqueIndex = error.reason { throw error }
        if case .sqlite(let code, _) = error.reason, !StepFailure.recordCodes.contains(code & 0xFF) {
            throw error
        }
        try onRecordFailure(error, row, batch)
    }

    /// Binds the values of `row` to parameters `parameter`, `parameter + 1`, ...
    @inline(__always)
    func bind(
        _ row: Int, of batch: RecordBatch, shape: RowShape, to statement: OpaquePointer, startingAt parameter: inout Int32,
        bytes: UnsafePointer<UInt8>
    ) throws(StepFailure) {
        var sink = StatementParameter(statement: statement, index: parameter - 1)
        do {
            try values(of: row, in: batch, shape: shape, into: &sink, bytes: bytes)
        } catch {
            sqlite3_clear_bindings(statement)
            throw StepFailure(code: 0, message: "", refusedColumn: error.position, refusal: error.refusal)
        }
        parameter = sink.index + 1
    }

    /// A value of a row that `StatementBinder` refused, at `position` of its shape.
    struct ColumnRefusal: Error {
        var position: Int
        var refusal: StatementBinder.Refusal
    }

    /// The first position of `row` whose cell does not fit the INTEGER or REAL this run
    /// inferred for its column (`TypeTracker.fits`), or nil. Apart from the binding loop,
    /// which it would slow for every run.
    @inline(never)
    static func firstUnfitCell(
        of row: Int, in batch: RecordBatch, shape: RowShape, kinds: [TypeTracker.Inferred], bytes: UnsafePointer<UInt8>
    ) -> Int? {
        let start = batch.rowStarts[row]
        let end = batch.rowEnd(row)
        return batch.cells.withUnsafeBufferPointer { cells in
            shape.inputColumns.withUnsafeBufferPointer { inputs in
                kinds.withUnsafeBufferPointer { kinds in
                    for position in 0 ..< inputs.count where kinds[position] < .text {
                        let index = start + inputs[position]
                        if index < end, !TypeTracker.fits(cells[index], kinds[position], bytes: bytes) { return position }
                    }
                    return nil
                }
            }
        }
    }

    /// Gives `sink` the values `row` binds as, one per column of `shape`: to a statement,
    /// or to the content hash of `UnchangedRows`.
    @inline(__always)
    func values<Sink: BoundValueSink>(
        of row: Int, in batch: RecordBatch, shape: RowShape, into sink: inout Sink, bytes: UnsafePointer<UInt8>
    ) throws(ColumnRefusal) {
        let start = batch.rowStarts[row]
        let end = batch.rowEnd(row)
        if let inferredKinds = shape.inferredKinds, let position = Self.firstUnfitCell(of: row, in: batch, shape: shape, kinds: inferredKinds, bytes: bytes) {
            throw ColumnRefusal(position: position, refusal: .notTheInferredType)
        }
        for position in 0 ..< shape.inputColumns.count {
            let index = start + shape.inputColumns[position]
            let cell = index < end ? batch.cells[index] : .absent
            let affinity = shape.affinities[position]
            sink.next(affinity: affinity)
            do {
                try StatementBinder.bind(cell, affinity: affinity, into: &sink, bytes: bytes, anyColumnHoldsBlobs: !schema.isStrict)
            } catch {
                throw ColumnRefusal(position: position, refusal: error)
            }
        }
    }

    /// Binds one row from parameter 1.
    func bindRow(_ row: Int, of batch: RecordBatch, shape: RowShape, to statement: OpaquePointer, bytes: UnsafePointer<UInt8>) throws(StepFailure) {
        var parameter: Int32 = 1
        try bind(row, of: batch, shape: shape, to: statement, startingAt: &parameter, bytes: bytes)
    }

    /// `("libraryID", "remoteID") = (1, "r1")`: `row`'s values in key `columns`.
    func describeKey(row: Int, of batch: RecordBatch, shape: RowShape, columns: [KeyColumn]) -> String {
        let names = columns.map { shape.statement.columns[$0.position] }
        let values = columns.map { batch.describe(batch.cell(row: row, column: shape.inputColumns[$0.position])) }
        return "(\(SQLIdentifier.quoteList(names))) = (\(values.joined(separator: ", ")))"
    }

    /// Turns a failure of `row` into an error that names the record.
    func recordError(_ failure: StepFailure, row: Int, shape: RowShape, batch: RecordBatch, inputName: String) -> WriteError {
        let position = batch.position(row: row, inputName: inputName)
        if let refused = failure.refusedColumn {
            let column = shape.statement.columns[refused]
            let cell = batch.cell(row: row, column: shape.inputColumns[refused])
            let affinity = shape.affinities[refused].rawValue
            if let inferredFrom = inferredTypes[column.sqliteFolded] {
                return WriteError(
                    position: position,
                    reason: .notTheInferredType(column: column, type: schema.columns[shape.tableColumns[refused]].declaredType, value: batch.describe(cell), sampleRows: inferredFrom))
            }
            let why: String
            switch failure.refusal {
            case .leadingZeroNumber:
                why = "has a leading zero, and this \(affinity) column would store it as a number without it; declare the column TEXT to keep it as written"
            case .unrepresentableNumber:
                why = "is beyond the range of a double, and SQLite would store it as infinity or zero in this \(affinity) column; declare the column TEXT to keep it as written"
            case .exactDecimal:
                why = "is a number kept with its exact digits, which this \(affinity) column would round; declare the column TEXT to keep them"
            case .inexactReal:
                why = "has more digits than a double holds, and this REAL column would store a neighbouring value; declare the column INTEGER or TEXT to keep it exactly"
            case .bigIntegerInNumericColumn, .notTheInferredType, nil:
                why = "does not fit a 64-bit integer, and SQLite would store it as an inexact REAL in this \(affinity) column; declare the column TEXT to keep it exactly"
            }
            return WriteError(position: position, reason: .notRepresentable(column: column, value: plainText(cell, batch), why: why))
        }
        // A STRICT column refused the value's type: name the inference when this run chose it.
        if failure.code == 3091 /* SQLITE_CONSTRAINT_DATATYPE */ {
            for (index, column) in shape.statement.columns.enumerated() where failure.message.hasSuffix(".\(column)") {
                if let inferredFrom = inferredTypes[column.sqliteFolded] {
                    let cell = batch.cell(row: row, column: shape.inputColumns[index])
                    return WriteError(
                        position: position,
                        reason: .notTheInferredType(column: column, type: schema.columns[shape.tableColumns[index]].declaredType, value: batch.describe(cell), sampleRows: inferredFrom))
                }
            }
        }
        if let deferred = failure.deferredIndexFailure {
            return WriteError(position: position, reason: .deferredUniqueIndex("\(deferred)"))
        }
        if failure.message == OutcomeCounters.duplicateMessage {
            // The key the record's row was found by: the target's, else the primary key's.
            let columns = shape.keyColumns.map { $0.target.isEmpty ? $0.primaryKey : $0.target } ?? []
            let key = columns.isEmpty ? "" : describeKey(row: row, of: batch, shape: shape, columns: columns)
            return WriteError(position: position, reason: .repeatedKey(key: key))
        }
        if failure.message == OutcomeCounters.identityMessage, let target {
            func describe(_ columns: [String]) -> String {
                let values = columns.map { column -> String in
                    guard let position = shape.statement.columns.firstIndex(where: { $0.sqliteFolded == column.sqliteFolded }) else { return "?" }
                    return batch.describe(batch.cell(row: row, column: shape.inputColumns[position]))
                }
                return "(\(SQLIdentifier.quoteList(columns))) = (\(values.joined(separator: ", ")))"
            }
            return WriteError(
                position: position,
                reason: .identityConflict(target: describe(target.columns), primaryKey: describe(target.fallbackKey ?? [])))
        }
        // SQLite's "datatype mismatch" names nothing: it is the rowid alias refusing a
        // value that is no integer.
        if failure.code == SQLITE_MISMATCH, let alias = schema.rowidAlias,
            let index = shape.statement.columns.firstIndex(where: { $0.sqliteFolded == alias.sqliteFolded })
        {
            let value = batch.describe(batch.cell(row: row, column: shape.inputColumns[index]))
            return WriteError(
                position: position,
                reason: .sqlite(
                    code: failure.code,
                    message: "datatype mismatch: \(SQLIdentifier.quote(alias)) is the table's INTEGER PRIMARY KEY (its rowid), which holds only integers; give an integer, or declare the key another type"),
                values: [(alias, value)])
        }
        // Name the values of the columns SQLite's message mentions.
        var values: [(String, String)] = []
        for (position, column) in shape.statement.columns.enumerated()
        where failure.message.contains("\(schema.name).\(column)") {
            values.append((column, batch.describe(batch.cell(row: row, column: shape.inputColumns[position]))))
        }
        if abortsOtherConflicts, failure.code & 0xFF == SQLITE_CONSTRAINT,
            failure.message.hasPrefix("UNIQUE constraint failed") || failure.message.hasPrefix("NOT NULL constraint failed")
        {
            return WriteError(
                position: position, reason: .overriddenConflictClause(message: failure.message, declared: schema.overriddenConflictClauses), values: values)
        }
        return WriteError(position: position, reason: .sqlite(code: failure.code, message: failure.message), values: values)
    }

    /// A cell's value as written, without quotes (`batch.text` reads only textual cells:
    /// a number's payload is no offset into the batch).
    private func plainText(_ cell: Cell, _ batch: RecordBatch) -> String {
        switch cell.kind {
        case .integer, .real, .absent, .null: return batch.describe(cell)
        case .text, .untypedText, .json, .numberAsText: return batch.text(cell)
        }
    }


    /// Records that went through a statement and found their row or made one.
    var recordsThroughStatements: Int { inserted + counters.updated + counters.unchanged + counters.skipped }

    var counts: (inserted: Int, updated: Int, unchanged: Int, skipped: Int, ignored: Int, duplicates: Int) {
        (inserted, counters.updated, counters.unchanged, counters.skipped, ignored, counters.duplicates)
    }
}

/// Thrown by a write strategy when a plain insert of a first load failed a constraint
/// (`WriteSession.insertsOnly`): record `row` and the records after it in the strategy's
/// run were not written; the ones before it were.
struct InsertsOnlyConflict: Error {
    let row: Int
}
