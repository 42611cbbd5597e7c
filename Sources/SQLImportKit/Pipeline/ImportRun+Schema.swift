import Foundation
import GRDB
import GRDBSQLite

/// The table side of a run: creating it, matching the conflict target, mapping input
/// columns to table columns, and starting the write session.
extension ImportRun {
    // MARK: - Schema

    func createTable(from sample: [RecordBatch]) throws {
        // Fields that are no column of their own: an empty nested object's presence
        // marker, and a nested field's second spelling (`kind.note._0` after `kind.note`).
        // (By exact bytes: `K` and the Kelvin sign are two fields, and two columns.)
        var paths = Set<[NameKey]>()
        let excluded = Set(fieldNames.indices.filter { index in
            FieldPath.isPresenceMarker(fieldNames[index]) || !paths.insert(FieldPath.meaningful(FieldPath.components(fieldNames[index])).map { NameKey($0) }).inserted
        })
        let fields = columnNames.indices.filter { !excluded.contains($0) }
        let names = fields.map { columnNames[$0] }
        try checkFieldNames(fields, in: sample)
        let format = summary.inputs.first?.format
        let numeric = names.filter(SchemaError.isNumber)
        if options.reader.hasHeader && (format == .csv || format == .tsv) && !numeric.isEmpty {
            summary.warnings.append(
                "\(inputNames[0]):1: the header line names column(s) \(numeric.map(SQLIdentifier.quote).joined(separator: ", ")), a number: if the file has no header line, its first record became the new table's column names and is not in the table; drop the table and pass --no-header (columns c1…cN), or give the file a header line")
        }
        let padded = names.filter(SchemaError.isPadded)
        if !padded.isEmpty {
            summary.warnings.append(
                "the new table's column(s) \(padded.map(SQLIdentifier.quote).joined(separator: ", ")) begin or end with a space, as the input's header spells them (\"a, b\"); rename them, or remove the spaces from the header and import again")
        }
        let limit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_COLUMN, -1))
        if names.count > limit {
            throw SchemaError.tooManyColumns(table: table, count: names.count, limit: limit, at: whereField(fields[limit], firstAppearsIn: sample))
        }
        var fieldOfColumn: [NameKey: Int] = [:]
        for index in columnNames.indices where !excluded.contains(index) {
            if let other = fieldOfColumn[columnNames[index].sqliteFolded], FieldPath.components(fieldNames[index]).count > 1
                || FieldPath.components(fieldNames[other]).count > 1
            {
                throw NestedFieldError.sameColumn(
                    fields: [fieldNames[other], fieldNames[index]].map(FieldPath.dotted), column: columnNames[other], table: table, prefixHelps: false,
                    at: whereField(index, firstAppearsIn: sample))
            }
            fieldOfColumn[columnNames[index].sqliteFolded] = index
        }
        try checkCaseCollisions(fields, in: sample)
        let (primaryKey, indexed) = try newTableKeys(sample: sample)
        let creation = try TableCreation.infer(
            table: table, columnNames: columnNames, excluded: excluded, sample: sample, sampleRows: options.inferRows,
            primaryKey: primaryKey, primaryKeyOption: options.primaryKey.isEmpty ? "--upsert" : "--pk",
            typeOverrides: options.typeOverrides)
        summary.createdTable = creation.sql
        let sampled = min(sample.reduce(0) { $0 + $1.rowCount }, options.inferRows)
        summary.warnings += TableCreation.warnings(textBecauseOf: creation.textBecauseOf, sampled: sampled)
        let overridden = Set(options.typeOverrides.keys.map { $0.sqliteFolded })
        for column in creation.schema.columns where !overridden.contains(column.name.sqliteFolded) {
            inferredTypes[column.name.sqliteFolded] = sampled
            if column.declaredType == "ANY" {
                summary.warnings.append(
                    "column \(SQLIdentifier.quote(column.name)) had no value in the first \(sampled) records, so it was created as ANY, which stores each value as the type it looks like; pass --type \(column.name)=TYPE to give it a type")
            }
        }
        try db.execute(sql: creation.sql)
        schema = try TableSchema.read(db, table: table)
        tableIsReal = true
        if let indexed, var created = schema {
            _ = try createIndex(on: indexed.columns, nullable: indexed.nullable, in: &created)
            schema = created
        }
        tableWasEmpty = true
        try resolveTarget()
    }

    /// The keys of a table this run creates, from `--pk` and `--upsert`:
    /// - `--upsert` alone, never null in the sample: the primary key;
    /// - `--upsert` columns that are null in the sample: the primary key is `--pk`, else
    ///   the input's `id` field, and the `--upsert` columns get a unique index `WHERE col
    ///   IS NOT NULL` for each such column (the seeds' shape), so that records outside it
    ///   are matched by their primary key and a re-run is idempotent;
    /// - `--pk` and another `--upsert`: the primary key, and a unique index on the
    ///   `--upsert` columns (partial as above where they are null in the sample).
    ///
    /// - Throws: `UpsertError.nullKeyNeedsPrimaryKey` when a key column is null and no
    ///   primary key can be had, before anything is written.
    func newTableKeys(sample: [RecordBatch]) throws -> (primaryKey: [String], indexed: (columns: [String], nullable: [String])?) {
        guard let upsert = options.upsert else { return (options.primaryKey, nil) }
        func column(_ name: String) -> Int? { columnNames.firstIndex { $0.sqliteFolded == name.sqliteFolded } }
        /// The first sampled record where one of `names` is null or missing, with those columns.
        func firstNull(_ names: [String]) -> (SourcePosition, [String])? {
            var remaining = options.inferRows
            var found: (SourcePosition, Set<String>)?
            for batch in sample where remaining > 0 {
                for row in 0 ..< min(batch.rowCount, remaining) {
                    for name in names {
                        guard let index = column(name) else { continue }
                        let kind = batch.cell(row: row, column: index).kind
                        guard kind == .null || kind == .absent else { continue }
                        if found == nil { found = (batch.position(row: row, inputName: inputNames[batch.inputIndex]), []) }
                        found!.1.insert(name)
                    }
                }
                remaining -= batch.rowCount
            }
            return found.map { position, columns in (position, names.filter { columns.contains($0) }) }
        }
        let nullable = firstNull(upsert)
        let sameAsKey = Set(options.primaryKey.map { $0.sqliteFolded }) == Set(upsert.map { $0.sqliteFolded })
        if !options.primaryKey.isEmpty {
            return (options.primaryKey, sameAsKey ? nil : (upsert, nullable?.1 ?? []))
        }
        guard let (position, nullColumns) = nullable else { return (upsert, nil) }
        guard let id = column("id").map({ columnNames[$0] }), !upsert.contains(where: { $0.sqliteFolded == "id" }), firstNull([id]) == nil else {
            throw UpsertError.nullKeyNeedsPrimaryKey(table: table, columns: nullColumns, position: position)
        }
        return ([id], (upsert, nullColumns))
    }

    /// Refuses a column name SQLite cannot take among `fields` (column numbers), naming
    /// where in `batches` the field first appears.
    func checkFieldNames(_ fields: [Int], in batches: [RecordBatch]) throws {
        for field in fields {
            let name = columnNames[field]
            if name.isEmpty {
                throw ImportError.invalidFieldName(name: name, reason: "is empty, and a column needs a name", at: whereField(field, firstAppearsIn: batches))
            }
            if name.utf8.contains(0) {
                throw ImportError.invalidFieldName(
                    name: name, reason: "contains a NUL byte, which SQLite identifiers cannot hold", at: whereField(field, firstAppearsIn: batches))
            }
        }
    }

    /// Refuses two of `fields` (column numbers) whose names SQLite takes for one column.
    func checkCaseCollisions(_ fields: [Int], in batches: [RecordBatch]) throws {
        var seen: [NameKey: Int] = [:]
        for field in fields {
            let name = columnNames[field]
            if let other = seen[name.sqliteFolded] {
                throw SchemaError.fieldsCollide(table: table, fields: [columnNames[other], name], column: columnNames[other], at: whereField(field, firstAppearsIn: batches))
            }
            seen[name.sqliteFolded] = field
        }
    }

    /// Where field `input` first appears in `batches`: the CSV header, or the first
    /// record holding it (nil without a batch).
    func whereField(_ input: Int, firstAppearsIn batches: [RecordBatch]) -> String? {
        let holding = batches.first { batch in (0 ..< batch.rowCount).contains { batch.cell(row: $0, column: input).kind != .absent } }
        guard let batch = holding ?? batches.first else { return nil }
        return Self.fieldPosition(
            input, in: batch, inputName: inputNames[batch.inputIndex], format: summary.inputs[safe: batch.inputIndex]?.format, hasHeader: options.reader.hasHeader)
    }

    /// Matches `--upsert` against the table's keys, before any row is written, and
    /// prepares a probe statement so that a bad conflict clause fails fast.
    func resolveTarget() throws {
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
            // A key column that may hold NULL makes the index partial (see createIndex).
            let nullable = requested.filter { name in
                let column = schema.columns[schema.columnIndex(named: name)!]
                return !column.notNull && column.primaryKeyPosition == 0
            }
            key = try createIndex(on: requested, nullable: nullable, in: &schema)
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
            // The conflict clause alone, before the session registers its SQL functions.
            let probe = "INSERT INTO \(SQLIdentifier.quote(table)) (\(SQLIdentifier.quoteList(key.columns))) VALUES ("
                + key.columns.map { _ in "?" }.joined(separator: ", ") + ") ON CONFLICT (\(SQLIdentifier.quoteList(key.columns)))"
                + (key.partialPredicate.map { " WHERE \($0)" } ?? "") + " DO NOTHING"
            do {
                _ = try db.makeStatement(sql: probe)
            } catch let error as DatabaseError {
                throw UpsertError.conflictClauseRejected(sql: probe, message: error.message ?? "\(error)")
            }
        }
    }

    /// Creates a unique index on `columns` (`--create-index`, or the `--upsert` key of a
    /// table this run creates). Columns in `nullable` get `WHERE col IS NOT NULL`, so that
    /// the index is partial and records with a NULL there go to the primary-key clause.
    func createIndex(on columns: [String], nullable: [String], in schema: inout TableSchema) throws -> UniqueKey {
        let names = columns.map { name in schema.columns[schema.columnIndex(named: name)!].name }
        let nullableNames = Set(nullable.map { $0.sqliteFolded })
        let predicate = names.filter { nullableNames.contains($0.sqliteFolded) }.map { "\(SQLIdentifier.quote($0)) IS NOT NULL" }
            .joined(separator: " AND ")
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
            + (predicate.isEmpty ? "" : " WHERE \(predicate)")
        summary.createdIndex = sql
        var key = UniqueKey(indexName: indexName, columns: names, origin: .uniqueIndex, partialPredicate: predicate.isEmpty ? nil : predicate)
        if !tableIsReal {
            schema.uniqueKeys.append(key)
        } else {
            try db.execute(sql: sql)
            schema = try TableSchema.read(db, table: table)!
            key = schema.uniqueKeys.first { $0.indexName == indexName } ?? key
        }
        return key
    }

    // MARK: - Columns

    /// Maps the input columns first seen in `batch` to table columns: by name, ignoring
    /// case, a nested field by leaf or prefix (`NestedFields`); unknown fields are added
    /// (--alter), dropped (--ignore-unknown) or an error.
    func mapNewColumns(of batch: RecordBatch) throws {
        guard var schema else { return }
        let first = tableColumnOfInput.count
        guard first < columnNames.count else { return }
        try checkFieldNames(Array(first ..< columnNames.count), in: [batch])
        if first == 0 { try resolveDeclaredEnums(schema: schema) }
        // A tombstone field first seen in a later batch (`prepareMirror` saw the first).
        if options.mirror.tombstone != nil, tombstoneInput == nil, session != nil {
            tombstoneInput = (first ..< fieldNames.count).first { isTombstoneField(fieldNames[$0]) }
        }
        var unknown: [Int] = []
        // A table this run created has its nested fields' prefixed names.
        let nested = NestedFields(schema: schema, naming: createdTable ? .prefix : options.flattenNaming)
        for input in first ..< columnNames.count {
            if let index = try nested.column(for: fieldNames[input]) {
                tableColumnOfInput.append(index)
            } else {
                tableColumnOfInput.append(nil)
                if !FieldPath.isPresenceMarker(fieldNames[input]) && !isTombstoneField(fieldNames[input]) { unknown.append(input) }
                try refuseEmptyObjectForColumn(fieldNames[input], schema: schema)
            }
        }
        // A field of a known enum that fills no column is a case the enum lacks.
        for input in unknown {
            if let index = enumGroups.firstIndex(where: { NestedFields.caseName(of: fieldNames[input], in: $0.field) != nil }) {
                guard options.onError == .skip else {
                    throw NestedFieldError.unknownCase(
                        firstPosition(of: input, in: batch), path: FieldPath.dotted(fieldNames[input]), group: enumGroups[index].description,
                        lacking: NestedFields.isWholeCase(fieldNames[input], in: enumGroups[index].field) ? schema.name : nil)
                }
                enumUnknownCaseOfInput[input] = index
            }
        }
        unknown.removeAll { enumUnknownCaseOfInput[$0] != nil }
        // A generated column is no unknown one: it exists, and cannot be written.
        let generated = unknown.map { columnNames[$0] }.filter { name in
            schema.columns.contains { !$0.isWritable && $0.name.sqliteFolded == name.sqliteFolded }
        }
        if !generated.isEmpty && !options.ignoreUnknown {
            throw SchemaError.generatedColumnsInInput(table: table, fields: generated)
        }
        if !options.ignoreUnknown {
            // A declared enum or group given as null (or a plain value): --alter would add
            // a column of its name and clear nothing. Under --on-error skip the records
            // holding it are set aside (`checkEnumCases`).
            for input in unknown {
                let name = columnNames[input].sqliteFolded
                let isEnum = options.enumGroups.contains { $0.field.sqliteFolded == name }
                if isEnum || options.columnGroups.contains(where: { $0.sqliteFolded == name }) {
                    guard options.onError == .skip else {
                        throw NestedFieldError.groupNotAnObject(firstPosition(of: input, in: batch), field: columnNames[input], isEnum: isEnum)
                    }
                    plainGroupOfInput[input] = isEnum
                }
            }
            unknown.removeAll { plainGroupOfInput[$0] != nil }
        }
        if !unknown.isEmpty && !options.ignoreUnknown {
            guard options.alter else {
                let format = summary.inputs[safe: batch.inputIndex]?.format
                throw SchemaError.unknownFields(
                    table: table, fields: unknown.map { columnNames[$0] },
                    at: Self.fieldPosition(unknown[0], in: batch, inputName: inputNames[batch.inputIndex], format: format, hasHeader: options.reader.hasHeader))
            }
            let limit = Int(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_COLUMN, -1))
            if schema.columns.count + unknown.count > limit {
                throw SchemaError.tooManyColumns(
                    table: table, count: schema.columns.count + unknown.count, limit: limit,
                    at: whereField(unknown[limit - schema.columns.count], firstAppearsIn: [batch]))
            }
            // (An unknown field matches no column: two of them may still be one name.)
            try checkCaseCollisions(unknown, in: [batch])
            for input in unknown {
                var tracker = TypeTracker()
                batch.bytes.withUnsafeBufferPointer { bytes in
                    for row in 0 ..< batch.rowCount { tracker.observe(batch.cell(row: row, column: input), bytes: bytes) }
                }
                let name = columnNames[input]
                let sql = "ALTER TABLE \(SQLIdentifier.quote(table)) ADD COLUMN \(SQLIdentifier.quote(name)) \(tracker.declaredType)"
                summary.addedColumns.append(name)
                try db.execute(sql: sql)
            }
            schema = try TableSchema.read(db, table: table)!
            for input in unknown { tableColumnOfInput[input] = schema.columnIndex(named: columnNames[input]) }
            self.schema = schema
            session?.updateSchema(schema)
        }
        if let session {
            for input in first ..< columnNames.count {
                if let column = tableColumnOfInput[input] { session.map(input: input, toTableColumn: column) }
            }
        }
        try mapEnumCases(from: first, of: batch, schema: schema)
        // Two fields may not land in one column, but a field in Swift Codable's spelling
        // (`kind.note._0`) and in the plain one (`kind.note`) are one field, and an enum's
        // case and its column given directly (`kind.link` and `link`) are refused per
        // record, where one record holds both (`checkEnumCases`).
        var owner: [Int: Int] = [:]
        for (input, column) in tableColumnOfInput.enumerated() {
            guard let column else { continue }
            if let other = owner[column], other != input {
                let fields = [fieldNames[other], fieldNames[input]]
                let paths = fields.map { FieldPath.meaningful(FieldPath.components($0)) }
                if paths[0].map({ NameKey($0) }) == paths[1].map({ NameKey($0) }) && paths[0].count > 1 { continue }
                if let group = enumCaseOfInput[other]?.group ?? enumCaseOfInput[input]?.group,
                    enumColumnOfDirectInput[input] == group || enumColumnOfDirectInput[other] == group
                {
                    continue
                }
                if fields.contains(where: { FieldPath.components($0).count > 1 }) {
                    throw NestedFieldError.sameColumn(
                        fields: fields.map(FieldPath.dotted), column: schema.columns[column].name, table: table,
                        prefixHelps: !createdTable && options.flattenNaming != .prefix && Set(fields.map { FieldPath.prefixName($0).sqliteFolded }).count == 2,
                        at: whereField(input, firstAppearsIn: [batch]))
                }
                throw SchemaError.fieldsCollide(
                    table: table, fields: [columnNames[other], columnNames[input]], column: schema.columns[column].name, at: whereField(input, firstAppearsIn: [batch]))
            }
            owner[column] = input
        }
    }

    /// True when this run created the table.
    var createdTable: Bool { summary.createdTable != nil }

    /// Where `input` first has a value in `batch`.
    /// Where field `input` first appears, for an error: a CSV or TSV header's line, or
    /// the first record of `batch` that holds it.
    static func fieldPosition(_ input: Int, in batch: RecordBatch, inputName: String, format: InputFormat?, hasHeader: Bool) -> String {
        if hasHeader && (format == .csv || format == .tsv) { return "\(inputName):1 (the header)" }
        return batch.rowCount == 0 ? inputName : batch.position(row: firstRow(holding: input, in: batch), inputName: inputName).description
    }

    /// The first record of `batch` that holds field `input` (0 when none does).
    static func firstRow(holding input: Int, in batch: RecordBatch) -> Int {
        (0 ..< batch.rowCount).first { batch.cell(row: $0, column: input).kind != .absent } ?? 0
    }

    func firstPosition(of input: Int, in batch: RecordBatch) -> SourcePosition {
        batch.position(row: Self.firstRow(holding: input, in: batch), inputName: inputNames[batch.inputIndex])
    }

    /// Whether the primary-key clause may go first (`UpsertStatement.reordersKeyClauses`).
    /// Not when that key is a STRICT table's `INTEGER PRIMARY KEY`: SQLite resolves a
    /// rowid conflict before it checks the record's types, so a value the table refuses
    /// went unseen whenever the `DO UPDATE ... WHERE` was false (a stored row newer under
    /// `--merge newer`), where the plain upsert on the target refuses it.
    var mayReorderKeyClauses: Bool {
        guard tableIsReal && options.usesGuardedStatements, let schema else { return false }
        if schema.isStrict, let alias = schema.rowidAlias, target?.fallbackKey?.map(\.sqliteFolded) == [alias.sqliteFolded] { return false }
        return true
    }

    /// True when the table keeps a secondary index (not the primary key's) that the load
    /// updates row by row: one that could not be deferred (see `DeferredIndexes`).
    func maintainsSecondaryIndexes() throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM pragma_index_list(?) WHERE origin <> 'pk')", arguments: [table]) ?? false
    }

    /// Creates the write session once the first batch's columns are known.
    /// `{"meta":{}}` under `--flatten` fills no column; when the table has a column `meta`
    /// (JSON text), the record meant it, and would be applied without it.
    private func refuseEmptyObjectForColumn(_ name: String, schema: TableSchema) throws {
        let parts = FieldPath.components(name)
        guard parts.count == 2, parts[1].isEmpty, let column = schema.columnIndex(named: parts[0]), schema.columns[column].isWritable,
            !enumGroups.contains(where: { $0.field.sqliteFolded == parts[0].sqliteFolded }),
            !options.columnGroups.contains(where: { $0.sqliteFolded == parts[0].sqliteFolded })
        else { return }
        throw NestedFieldError.emptyObjectForColumn(field: parts[0], column: schema.columns[column].name, table: table)
    }

    /// Whether the fields the run has met by `batch` are all the input's: a CSV or TSV
    /// input's header names them, and JSON's records may bring a field first in any
    /// batch, unless `batch` ends the last input.
    func fieldsAreFinal(after batch: RecordBatch) -> Bool {
        Self.fieldsAreFinal(after: batch, inputs: options.inputs.count, format: summary.inputs.first?.format)
    }

    /// (`format`: the first input's; the PostgreSQL target asks too.)
    static func fieldsAreFinal(after batch: RecordBatch, inputs: Int, format: InputFormat?) -> Bool {
        if batch.endsInput && batch.inputIndex == inputs - 1 { return true }
        return inputs == 1 && [.csv, .tsv].contains(format)
    }

    /// - Parameters:
    ///   - input: the name of the input whose batch starts it, for the errors.
    ///   - fieldsAreFinal: the input's fields are all known (`fieldsAreFinal(after:)`):
    ///     a NOT NULL column or the `newer` column that none of them fills is an error
    ///     now. Otherwise a later record may bring the field: each record without a NOT
    ///     NULL column's is refused by SQLite, and one without the `newer` column arrives
    ///     with its default, as in a file that has it in other records.
    func startSession(input: String, fieldsAreFinal: Bool) throws -> WriteSession {
        guard let schema else { preconditionFailure("the table exists before writing") }
        let mapped = Set(tableColumnOfInput.compactMap { $0 })
        // (Tombstones need no column but their key: SQLite refuses an insert without one.)
        for (index, column) in schema.columns.enumerated()
        where fieldsAreFinal && column.notNull && column.defaultSQL == nil && column.isWritable && !mapped.contains(index)
            && column.name != schema.rowidAlias && options.mirror.tombstone == nil
        {
            throw SchemaError.missingRequiredColumn(table: table, column: column.name, input: input)
        }
        if var target {
            for column in target.columns where !mapped.contains(schema.columnIndex(named: column)!) {
                throw UpsertError.keyNotInInput(column: column)
            }
            if case .newer(let column) = options.merge, fieldsAreFinal, !mapped.contains(schema.columnIndex(named: column)!) {
                throw UpsertError.newerColumnMissing(column: column, table: table)
            }
            let primaryKey = schema.primaryKey
            // The primary-key clause: rows the target cannot match (outside a partial
            // index, or with a NULL key column, which a UNIQUE index never matches) are
            // matched by their primary key instead, so that a re-run finds them.
            if !primaryKey.isEmpty,
                Set(primaryKey.map { $0.sqliteFolded }) != Set(target.columns.map { $0.sqliteFolded }),
                primaryKey.allSatisfy({ mapped.contains(schema.columnIndex(named: $0)!) })
            {
                target.fallbackKey = primaryKey
                summary.fallbackKey = primaryKey
            }
            self.target = target
        }
        let guarded = tableIsReal && options.usesGuardedStatements
        let session = WriteSession(
            db: db, schema: schema, target: target, policy: options.merge,
            guardable: guarded ? try guardableColumns ?? IndexedColumns.read(db, table: table) : [], mayReorderKeyClauses: mayReorderKeyClauses)
        session.inferredTypes = inferredTypes
        if session.keepsDeclaredConflictClauses {
            summary.warnings.append(
                "table \(SQLIdentifier.quote(table)) declares \(schema.overriddenConflictClauses.joined(separator: " and ")), which sqlimport overrides with INSERT OR ABORT, but a trigger has a conflict clause of its own (INSERT OR REPLACE, ...), which that override would change; the table's clauses apply as declared: a REPLACE deletes another row that holds a record's value, a ROLLBACK ends the run")
        }
        if firstLoadKeys != nil { session.beginInsertsOnly() }
        if deferredIndexes.hasUnique {
            session.counters.conflictsNeedIndexes = true
            session.buildDeferredUniqueIndexes = { [unowned self] in try deferredIndexes.rebuildUnique(db, table: table) }
        }
        // Repeated keys are counted inside SQLite, by the rows they land on, when the
        // table has rowids and the run writes; otherwise by fingerprint (`KeyLedger`).
        if target != nil, tableIsReal {
            if let rowid = session.rowidName {
                let startMax = tableWasEmpty ? 0 : try Int64.fetchOne(db, sql: "SELECT max(\(rowid)) FROM \(SQLIdentifier.quote(table))") ?? 0
                session.trackRowids(startMax: startMax)
            }
            session.counters.duplicatesAreErrors = options.duplicateKeys == .error
        }
        if options.onError == .skip {
            session.onRecordFailure = { [unowned self] error, row, batch in
                rowsRejectedWhileWriting.insert(row)
                try reject(RejectedRecord(row: row, of: batch, at: error.position, reason: error.description))
            }
        }
        for (input, column) in tableColumnOfInput.enumerated() {
            if let column { session.map(input: input, toTableColumn: column) }
        }
        configureEnumGroups(session, schema: schema)
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
        try startKeyOrder(session)
        try prepareMirror(schema: schema, session: session, fieldsAreFinal: fieldsAreFinal)
        return session
    }

}
