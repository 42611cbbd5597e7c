import Foundation
import GRDB
import GRDBSQLite

/// The sync mirror in a run (`MirrorOptions`): scope values and tombstones as records
/// are written, the deletion of rows the input no longer has after the last one.
extension ImportRun {
    /// A scope value, as the record gave it.
    enum ScopeValue: Hashable {
        case null
        case integer(Int64)
        case real(UInt64)
        case text(String)
        case blob([UInt8])
    }

    /// Checks the mirror's options against the table and the input, before any write.
    func prepareMirror(schema: TableSchema, session: WriteSession, fieldsAreFinal: Bool) throws {
        let mirror = options.mirror
        guard mirror.isActive else { return }
        guard target != nil else { throw MirrorError.needsUpsert }
        if mirror.deleteMissing && schema.isWithoutRowid { throw MirrorError.withoutRowid(table: table) }
        if mirror.deleteMissing && Self.rowidIsShadowed(in: schema) { throw MirrorError.rowidShadowed(table: table) }
        if mirror.deleteMissing, let touched = session.counters.touched, touched.startMax > 0 {
            try watchInsertsBelowStartMax(touched, schema: schema)
        }
        scopeInputs = try mirror.scope.map { name in
            guard let column = schema.columnIndex(named: name) else { throw MirrorError.scopeNotAColumn(column: name, table: table) }
            guard let input = tableColumnOfInput.firstIndex(of: column) else { throw MirrorError.scopeNotInInput(column: name, fieldsAreFinal: fieldsAreFinal) }
            return input
        }
        scopeAffinities = mirror.scope.map { schema.affinity(ofColumn: schema.columnIndex(named: $0)!) }
        if mirror.tombstone != nil {
            tombstoneInput = fieldNames.firstIndex(where: isTombstoneField)
        }
    }

    /// The name of the temporary trigger `watchInsertsBelowStartMax` creates.
    static let insertWatch = "sqlimport_mirror_inserted"

    // The temporary tables below are named apart from the table: a temporary table hides a
    // main one of its name from every name in the run's SQL that is not `main.`-qualified.
    /// The rows that trigger saw inserted (`r`, their rowids): this run's, not the
    /// table's before it, though their rowids are below `TouchedRows.startMax`.
    var insertedRowsTable: String { Self.alias("sqlimport_mirror_new", apartFrom: table) }
    /// The temporary trigger and table of the candidates the run deleted before the end
    /// (a tombstone, a trigger): the rows in scope before the run, `--max-delete`'s base,
    /// count them too.
    static let deleteWatch = "sqlimport_mirror_deleted"
    var deletedCandidatesTable: String { Self.alias("sqlimport_mirror_gone", apartFrom: table) }
    /// The `--scope` values of the input.
    var scopeTable: String { Self.alias("sqlimport_scope", apartFrom: table) }

    /// Marks every row the run inserts at or below `TouchedRows.startMax`, which
    /// `TouchedRows` would otherwise take for a row that was there before, and delete:
    /// a row whose `INTEGER PRIMARY KEY` the record spells `5.0` or `"+5"` and fills a
    /// gap with, or one SQLite numbers `max(rowid) + 1` after the run deleted the last
    /// rows (a tombstone, a trigger). SQLite decides the rowid, so a trigger asks it: a
    /// `TEMP` trigger belongs to this connection alone, and is dropped at the end
    /// (`stopWatchingInserts`). Its function marks through the statement's undo log.
    private func watchInsertsBelowStartMax(_ touched: TouchedRows, schema: TableSchema) throws {
        let marks = SeenRows(touched: touched)
        db.add(function: DatabaseFunction(Self.insertWatch, argumentCount: 1, pure: false) { values in
            if let rowid = Int64.fromDatabaseValue(values[0]) { marks.touched?.mark(rowid) }
            return nil
        })
        let rowidName = Self.rowidName(of: schema)
        let rowid = "new.\(rowidName)"
        let quotedTable = SQLIdentifier.quote(table)
        try dropMirrorWatches()
        try db.execute(sql: "CREATE TEMP TABLE \(insertedRowsTable) (r INTEGER PRIMARY KEY)")
        try db.execute(
            sql: "CREATE TEMP TRIGGER \(Self.insertWatch) AFTER INSERT ON \(quotedTable) WHEN \(rowid) <= \(touched.startMax) "
                + "BEGIN SELECT \(Self.insertWatch)(\(rowid)); INSERT OR IGNORE INTO \(insertedRowsTable) VALUES (\(rowid)); END")
        // A candidate deleted before the end is noted as it goes, by its rowid, once:
        // BEFORE the deletion, so that the table's own affinities and collations decide
        // whether it was one. (The app's own BEFORE DELETE trigger, which runs after this
        // one, may still keep the row: `deleteMissingRows` counts only rows gone.)
        let scope = mirrorScopeColumns(schema)
        let kept = (["\(quotedTable).\(rowidName)"] + scope.map { "\(quotedTable).\(SQLIdentifier.quote($0))" }).joined(separator: ", ")
        // Each scope column with its affinity (BLOB: none), so that values keep their types.
        let scopeDefinitions = scope.map { name -> String in
            let affinity = schema.affinity(ofColumn: schema.columnIndex(named: name)!)
            return ", \(SQLIdentifier.quote(name)) \(affinity == .blob ? "" : affinity.rawValue)"
        }.joined()
        try db.execute(sql: "CREATE TEMP TABLE \(deletedCandidatesTable) (\(Self.deletedRowidColumn(apartFrom: scope)) INTEGER PRIMARY KEY\(scopeDefinitions))")
        let conditions = candidateConditions(schema)
        try db.execute(
            sql: "CREATE TEMP TRIGGER \(Self.deleteWatch) BEFORE DELETE ON \(quotedTable) "
                + "WHEN old.\(rowidName) <= \(touched.startMax) AND old.\(rowidName) NOT IN (SELECT r FROM temp.\(insertedRowsTable)) "
                + "BEGIN INSERT OR IGNORE INTO \(deletedCandidatesTable) SELECT \(kept) FROM \(quotedTable) WHERE \(quotedTable).\(rowidName) = old.\(rowidName)"
                + (conditions.isEmpty ? "" : " AND " + conditions.joined(separator: " AND ")) + "; END")
        watchesInserts = true
    }

    /// The rowid column of the table of deleted candidates: named apart from the scope
    /// columns it holds beside it.
    static func deletedRowidColumn(apartFrom scope: [String]) -> String {
        var name = "sqlimport_r"
        while scope.contains(where: { $0.sqliteFolded == name.sqliteFolded }) { name += "_" }
        return name
    }

    private func dropMirrorWatches() throws {
        try db.execute(sql: "DROP TRIGGER IF EXISTS temp.\(Self.insertWatch)")
        try db.execute(sql: "DROP TRIGGER IF EXISTS temp.\(Self.deleteWatch)")
        try db.execute(sql: "DROP TABLE IF EXISTS temp.\(insertedRowsTable)")
        try db.execute(sql: "DROP TABLE IF EXISTS temp.\(deletedCandidatesTable)")
    }

    /// The table's names of the `--scope` columns.
    func mirrorScopeColumns(_ schema: TableSchema) -> [String] {
        options.mirror.scope.compactMap { schema.columnIndex(named: $0).map { schema.columns[$0].name } }
    }

    /// What makes a row a candidate of `--delete-missing`, besides its scope: without the
    /// primary key in the input, rows the target cannot match (outside a partial target,
    /// or with a NULL key column) never are.
    func candidateConditions(_ schema: TableSchema) -> [String] {
        guard let target, target.fallbackKey == nil else { return [] }
        let quotedTable = SQLIdentifier.quote(table)
        return (target.predicate.map { ["(\($0))"] } ?? []) + target.columns.map { "\(quotedTable).\(SQLIdentifier.quote($0)) IS NOT NULL" }
    }

    /// Drops the trigger of `watchInsertsBelowStartMax`: at the end of the run, inside its
    /// transaction, and again once the transaction ended (a rollback undoes the first
    /// drop of a trigger that a `--commit-every` checkpoint had committed). Then the
    /// function goes too, unless the trigger is still there to call it.
    func stopWatchingInserts(afterTransaction: Bool) {
        guard watchesInserts else { return }
        do {
            try dropMirrorWatches()
        } catch {
            return
        }
        guard afterTransaction, db.isInsideTransaction == false else { return }
        watchesInserts = false
        db.remove(function: DatabaseFunction(Self.insertWatch, argumentCount: 1, pure: false) { _ in nil })
    }

    /// `name`, or `name` with underscores after it, as a table alias that is not the
    /// table's own name: a subquery's alias `s` hid a table named `s`, whose `"s"."lib"`
    /// then named the alias's column, and `--scope` held for every row (rows of every
    /// scope were deleted).
    static func alias(_ name: String, apartFrom table: String) -> String {
        var alias = name
        while alias.sqliteFolded == table.sqliteFolded { alias += "_" }
        return alias
    }

    /// Whether columns take all three of the rowid's names.
    static func rowidIsShadowed(in schema: TableSchema) -> Bool {
        let names = Set(schema.columns.map { $0.name.sqliteFolded })
        return ["_rowid_", "rowid", "oid"].allSatisfy(names.contains)
    }

    /// How statements name the rowid of `schema`'s table (a column may shadow `_rowid_`).
    static func rowidName(of schema: TableSchema) -> String {
        let names = Set(schema.columns.map { $0.name.sqliteFolded })
        return ["_rowid_", "rowid", "oid"].first { !names.contains(NameKey($0)) } ?? "_rowid_"
    }

    /// Whether `name` is the tombstone field, which needs no column of its own.
    /// After the run: `--tombstone` naming a field no record had.
    func warnAboutUnusedTombstone() {
        guard let tombstone = options.mirror.tombstone, tombstoneInput == nil, summary.counts.read > 0 else { return }
        summary.warnings.append(
            "--tombstone \(tombstone.field): no record has a field \(tombstone.field), so no record deleted its row; name a nested field by its path (sync.isDeleted)")
    }

    /// A nested field (`--flatten`) is named by its dotted path: `--tombstone sync.isDeleted`.
    func isTombstoneField(_ name: String) -> Bool {
        guard let field = options.mirror.tombstone?.field else { return false }
        return name.sqliteFolded == field.sqliteFolded || FieldPath.dotted(name).sqliteFolded == field.sqliteFolded
    }

    /// Notes the scope values of `row`.
    func collectScope(row: Int, of batch: RecordBatch) {
        var key: [ScopeValue] = []
        key.reserveCapacity(scopeInputs.count)
        for (position, input) in scopeInputs.enumerated() {
            let cell = batch.cell(row: row, column: input)
            switch cell.kind {
            case .absent, .null: key.append(.null)
            case .integer: key.append(.integer(cell.payload))
            case .real:
                // As `StatementBinder` binds it into a TEXT column.
                if scopeAffinities[position] == .text, let text = NumberText.textWhereSQLiteWouldRound(cell.doubleValue) {
                    key.append(.text(text))
                } else {
                    key.append(.real(UInt64(bitPattern: cell.payload)))
                }
            // A BLOB marker is the bytes where `StatementBinder` binds them: a JSON one
            // into a column without affinity or a table that is not STRICT, a CSV one
            // into a column without affinity. (Its text matched no row, and the rows of
            // the scope the records lacked were never deleted.)
            case .json where scopeAffinities[position] == .blob || schema?.isStrict == false:
                key.append(batch.withText(cell, BlobMarker.decodeJSON).map(ScopeValue.blob) ?? .text(batch.text(cell)))
            case .untypedText where scopeAffinities[position] == .blob:
                // CSV text into a column without affinity is stored as the type it looks
                // like (`StatementBinder`); the scope value must be the same value.
                key.append(batch.withText(cell, BlobMarker.decodeText).map(ScopeValue.blob) ?? Self.typelessScopeValue(batch.text(cell)))
            default: key.append(.text(batch.text(cell)))
            }
        }
        scopeValues.insert(key)
    }

    /// CSV text as `StatementBinder` stores it in a column without affinity.
    static func typelessScopeValue(_ text: String) -> ScopeValue {
        var text = text
        return text.withUTF8 { bytes in
            switch NumberText.typelessNumber(UnsafeRawBufferPointer(bytes)) {
            case .integer(let value): return .integer(value)
            case .real(let value): return .real(value.bitPattern)
            default: return .text(String(decoding: bytes, as: UTF8.self))
            }
        }
    }

    /// Whether `row` is a tombstone (`--tombstone`).
    func isTombstone(row: Int, of batch: RecordBatch) -> Bool {
        guard let input = tombstoneInput, let tombstone = options.mirror.tombstone else { return false }
        return tombstone.matches(batch.cell(row: row, column: input)) { batch.text($0) }
    }

    /// Deletes the row a tombstone names: by the primary key when the record supplies
    /// it, else by the conflict target (within a partial target's predicate). Returns
    /// whether it deleted a row.
    @discardableResult
    func deleteTombstone(row: Int, of batch: RecordBatch, inputName: String, bytes: UnsafePointer<UInt8>) throws -> Bool {
        guard let schema, let target else { return false }
        summary.counts.tombstones += 1
        func inputs(_ names: [String]) -> [(input: Int, column: Int)]? {
            var found: [(Int, Int)] = []
            for name in names {
                guard let column = schema.columnIndex(named: name), let input = tableColumnOfInput.firstIndex(of: column) else { return nil }
                let kind = batch.cell(row: row, column: input).kind
                guard kind != .absent && kind != .null else { return nil }
                found.append((input, column))
            }
            return found
        }
        let byPrimaryKey = schema.primaryKey.isEmpty ? nil : inputs(schema.primaryKey)
        guard let key = byPrimaryKey ?? inputs(target.columns) else {
            summary.counts.tombstonesWithoutRow += 1
            return false
        }
        let names = key.map { schema.columns[$0.column].name }
        var sql = "DELETE FROM \(SQLIdentifier.quote(table)) WHERE (\(SQLIdentifier.quoteList(names))) = (" + names.map { _ in "?" }.joined(separator: ", ") + ")"
        if byPrimaryKey == nil, let predicate = target.predicate { sql += " AND (\(predicate))" }
        let statement = try db.cachedStatement(sql: sql)
        for (index, pair) in key.enumerated() {
            let column = schema.columns[pair.column]
            let affinity = schema.affinity(ofColumn: pair.column)
            do {
                try StatementBinder.bind(
                    batch.cell(row: row, column: pair.input), affinity: affinity, to: statement.sqliteStatement, at: Int32(index + 1), bytes: bytes)
            } catch {
                throw WriteError(
                    position: batch.position(row: row, inputName: inputName),
                    reason: .sqlite(code: SQLITE_MISMATCH, message: "the tombstone's key \(column.name) is not a value the column stores exactly"))
            }
        }
        let position = batch.position(row: row, inputName: inputName)
        do {
            // Bound in place (`StatementBinder`), so stepped here rather than by GRDB,
            // which would check its own (empty) arguments.
            let code = sqlite3_step(statement.sqliteStatement)
            sqlite3_reset(statement.sqliteStatement)
            if code != SQLITE_DONE {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: sql)
            }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            guard options.onError == .skip else {
                let values = key.map { batch.describe(batch.cell(row: row, column: $0.input)) }
                throw MirrorError.restricted(
                    row: "(\(SQLIdentifier.quoteList(names))) = (\(values.joined(separator: ", "))) of the tombstone at \(position)", message: error.message ?? "\(error)")
            }
            summary.counts.tombstones -= 1
            try reject(RejectedRecord(
                row: row, of: batch, at: position, reason: "\(position): the tombstone's row cannot be deleted: \(error.message ?? "\(error)")"))
            return false
        }
        if db.changesCount > 0 {
            summary.counts.deleted += db.changesCount
            return true
        }
        summary.counts.tombstonesWithoutRow += 1
        return false
    }

    /// After the input: deletes the rows in scope that no record of the run inserted or
    /// landed on, in one statement, under `--max-delete`.
    func deleteMissingRows() throws {
        guard options.mirror.deleteMissing, target != nil, let schema, tableIsReal else { return }
        // With --scope, an input with no record has no scope: nothing is a candidate.
        if !options.mirror.scope.isEmpty && scopeValues.isEmpty {
            summary.deleteCandidates = 0
            return
        }
        let quotedTable = SQLIdentifier.quote(table)
        var conditions: [String] = []
        var scopeMatch: ((String) -> String)?
        if !scopeInputs.isEmpty {
            let columns = mirrorScopeColumns(schema)
            try db.execute(sql: "DROP TABLE IF EXISTS temp.\(scopeTable)")
            try db.execute(
                sql: "CREATE TEMP TABLE \(scopeTable) AS SELECT \(columns.map { "\(quotedTable).\(SQLIdentifier.quote($0))" }.joined(separator: ", ")) FROM \(quotedTable) WHERE 0")
            let insert = try db.makeStatement(
                sql: "INSERT INTO temp.\(scopeTable) VALUES (" + columns.map { _ in "?" }.joined(separator: ", ") + ")")
            for key in scopeValues {
                try insert.execute(arguments: StatementArguments(key.map { value -> DatabaseValueConvertible? in
                    switch value {
                    case .null: return nil
                    case .integer(let value): return value
                    case .real(let bits): return Double(bitPattern: bits)
                    case .text(let value): return value
                    case .blob(let bytes): return Data(bytes)
                    }
                }))
            }
            // The table's column on the left: its collation decides, as its indexes do.
            let collations = columns.map { TableSchema.collation(of: $0, in: table, connection: db.sqliteConnection) }
            let scope = Self.alias("s", apartFrom: table)
            let scopeTable = scopeTable
            scopeMatch = { rows in
                "EXISTS (SELECT 1 FROM temp.\(scopeTable) AS \(scope) WHERE "
                    + zip(columns, collations).map { "\(rows).\(SQLIdentifier.quote($0)) IS \(scope).\(SQLIdentifier.quote($0)) COLLATE \(SQLIdentifier.quote($1))" }
                    .joined(separator: " AND ") + ")"
            }
            conditions.append(scopeMatch!(quotedTable))
        }
        conditions += candidateConditions(schema)
        let eligible = conditions.isEmpty ? "1" : conditions.joined(separator: " AND ")
        // SQLite calls the function on this (the writing) thread only.
        let touched = session?.counters.touched
        let seen = SeenRows(touched: touched)
        // A resumed run keeps what the interrupted run would have: the rows inserted since
        // it began (`carriedStartMax`).
        let insertedSince = carriedStartMax ?? Int64.max
        db.add(function: DatabaseFunction("sqlimport_seen", argumentCount: 1, pure: false) { values in
            guard let touched = seen.touched, let rowid = Int64.fromDatabaseValue(values[0]) else { return false }
            return rowid > insertedSince || touched.protects(rowid)
        })
        defer { db.remove(function: DatabaseFunction("sqlimport_seen", argumentCount: 1, pure: false) { _ in nil }) }
        let rowid = "\(quotedTable).\(Self.rowidName(of: schema))"
        let missing = "\(eligible) AND NOT sqlimport_seen(\(rowid))"
        let plan = "DELETE FROM \(quotedTable) WHERE \(missing)"
        summary.statementSQL = (summary.statementSQL.map { $0 + "\n" } ?? "") + "-- after the input (--delete-missing):\n" + plan
        // The candidates are the rows in scope that were there before the run: those
        // still there, but for the ones this run inserted into gaps below the largest
        // rowid, and those it deleted as it went (`watchInsertsBelowStartMax`).
        // (A resumed run's are the interrupted run's: not the rows it, or others between
        // its checkpoints, inserted.)
        var before = touched.map { "\(rowid) <= \(min($0.startMax, carriedStartMax ?? $0.startMax))" } ?? "1"
        var deletedCandidates = 0
        if watchesInserts {
            before += " AND \(rowid) NOT IN (SELECT r FROM temp.\(insertedRowsTable))"
            let gone = "temp.\(deletedCandidatesTable)"
            // Gone: not there now, or there as a row this run inserted with its rowid.
            let rowidName = Self.rowidName(of: schema)
            let g = Self.alias("g", apartFrom: table)
            let r = "\(g).\(Self.deletedRowidColumn(apartFrom: mirrorScopeColumns(schema)))"
            let reallyGone = "(NOT EXISTS (SELECT 1 FROM \(quotedTable) WHERE \(quotedTable).\(rowidName) = \(r)) OR \(r) IN (SELECT r FROM temp.\(insertedRowsTable)))"
            deletedCandidates = try Int.fetchOne(db, sql: "SELECT count(*) FROM \(gone) AS \(g) WHERE \(reallyGone)" + (scopeMatch.map { " AND " + $0(g) } ?? "")) ?? 0
            // The deletion below is not the run's before the end.
            try db.execute(sql: "DROP TRIGGER IF EXISTS temp.\(Self.deleteWatch)")
        }
        let counts = try Row.fetchOne(
            db, sql: "SELECT coalesce(sum(\(before)), 0) AS candidates, coalesce(sum(NOT sqlimport_seen(\(rowid))), 0) AS missing FROM \(quotedTable) WHERE \(eligible)")!
        let candidates: Int = counts["candidates"] + deletedCandidates
        let deletions: Int = counts["missing"]
        summary.deleteCandidates = candidates
        guard deletions > 0 else { return }
        guard try options.mirror.mayDelete(deletions, of: candidates, ignored: carriedIgnored + (session?.counts.ignored ?? 0), in: &summary) else { return }
        // A table that refers to itself with ON DELETE CASCADE loses more rows than the
        // statement deletes, which `changes()` does not count: the table is counted before
        // and after, and the guard holds for all of them.
        let cascades = try Bool.fetchOne(db, sql: """
            SELECT (SELECT foreign_keys FROM pragma_foreign_keys)
              AND EXISTS (SELECT 1 FROM pragma_foreign_key_list(?1) WHERE "table" = ?1 COLLATE NOCASE AND upper(on_delete) = 'CASCADE')
            """, arguments: [table]) ?? false
        let countRows = "SELECT count(*) FROM \(quotedTable)"
        let rowsBefore = cascades ? try Int.fetchOne(db, sql: countRows) ?? 0 : 0
        let deletedBefore = summary.counts.deleted
        do {
            try db.execute(sql: plan)
            summary.counts.deleted += db.changesCount
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            _ = error
            try deleteOneByOne(missing: missing, schema: schema)
        }
        guard cascades else { return }
        let direct = summary.counts.deleted - deletedBefore
        let cascaded = rowsBefore - (try Int.fetchOne(db, sql: countRows) ?? 0) - direct
        guard cascaded > 0 else { return }
        if !options.mirror.maxDelete.allows(direct + cascaded, of: candidates) {
            throw MirrorError.cascadeExceedsLimit(deletions: direct, cascaded: cascaded, candidates: candidates, limit: options.mirror.maxDelete)
        }
        summary.counts.deleted += cascaded
        summary.warnings.append(
            "--delete-missing: deleting \(direct) rows of \(table) deleted \(cascaded) more through its own ON DELETE CASCADE foreign key (rows the input holds may be among them); all are counted in deleted")
    }

    /// After a foreign key refused the set-based deletion: each row on its own, to name
    /// the one refused (or, under `--on-error skip`, to keep the refused ones).
    private func deleteOneByOne(missing: String, schema: TableSchema) throws {
        let quotedTable = SQLIdentifier.quote(table)
        let rowidName = Self.rowidName(of: schema)
        let key = schema.primaryKey.isEmpty ? (target?.columns ?? []) : schema.primaryKey
        let rows = try Row.fetchAll(
            db, sql: "SELECT \(quotedTable).\(rowidName) AS sqlimport_rowid, \(SQLIdentifier.quoteList(key)) FROM \(quotedTable) WHERE \(missing)")
        for row in rows {
            let rowid: Int64 = row["sqlimport_rowid"]
            let description = "(\(SQLIdentifier.quoteList(key))) = (" + key.map { (row[$0] as DatabaseValue).description }.joined(separator: ", ") + ")"
            do {
                try db.execute(sql: "SAVEPOINT sqlimport_delete")
                try db.execute(sql: "DELETE FROM \(quotedTable) WHERE \(rowidName) = ?", arguments: [rowid])
                try db.execute(sql: "RELEASE sqlimport_delete")
                summary.counts.deleted += 1
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                try db.execute(sql: "ROLLBACK TO sqlimport_delete")
                try db.execute(sql: "RELEASE sqlimport_delete")
                guard options.onError == .skip else { throw MirrorError.restricted(row: description, message: error.message ?? "\(error)") }
                try reject(RejectedRecord(
                    input: table, line: 0, byteOffset: 0,
                    reason: "--delete-missing kept row \(description): \(error.message ?? "\(error)")", record: nil))
            }
        }
    }
}

/// The run's touched rows, for the `sqlimport_seen` function, which SQLite calls on the
/// writing thread that owns them.
private final class SeenRows: @unchecked Sendable {
    let touched: TouchedRows?
    init(touched: TouchedRows?) { self.touched = touched }
}
