/// A table the PostgreSQL target creates when the input's table does not exist: the
/// columns typed from the first batch's values, keyed as the SQLite target keys a new
/// table (see `ImportRun.newTableKeys`).
extension PostgresRun {
    /// - `bigint` for integers, `double precision` for other numbers, `jsonb` for nested
    ///   objects and arrays, `text` for the rest (and for a column with no value yet);
    /// - the primary key: `--pk`, else the `--upsert` columns when the sample has no null
    ///   in them, else `id` with a unique index on the `--upsert` columns `WHERE` the
    ///   columns found null are `NOT NULL` (the seeds' shape).
    func createTable(from batch: RecordBatch) throws {
        let names = batch.newColumns
        guard !names.isEmpty else { throw SchemaError.noColumns(input: inputNames.first ?? "-") }
        var sample = ColumnSample(count: names.count)
        sample.observe(batch)
        inferredFrom = sampled == nil ? batch.rowCount : options.inferRows
        // --infer-rows: the types come from the records a first pass read.
        if let sampled {
            for (column, name) in names.enumerated() {
                guard let index = sampled.names.firstIndex(where: { NameKey($0) == NameKey(name) }) else { continue }
                sample.trackers[column] = sampled.trackers[index]
                sample.allJSON[column] = sampled.allJSON[index]
            }
        }
        let (trackers, allJSON, nullable) = (sample.trackers, sample.allJSON, sample.nullable)
        func index(_ name: String) -> Int? { names.firstIndex { $0.sqliteFolded == name.sqliteFolded } }
        var primaryKey = options.primaryKey
        var uniqueIndex: (columns: [String], nullColumns: [String])?
        if let upsert = options.upsert {
            let nullColumns = upsert.filter { index($0).map { nullable.contains($0) } ?? true }
            let sameAsKey = Set(primaryKey.map { $0.sqliteFolded }) == Set(upsert.map { $0.sqliteFolded })
            if !primaryKey.isEmpty {
                if !sameAsKey { uniqueIndex = (upsert, nullColumns) }
            } else if nullColumns.isEmpty {
                primaryKey = upsert
            } else if let id = index("id"), !nullable.contains(id), !upsert.contains(where: { $0.sqliteFolded == "id" }) {
                primaryKey = [names[id]]
                uniqueIndex = (upsert, nullColumns)
            } else {
                let row = (0 ..< batch.rowCount).first { row in
                    nullColumns.contains { name in index(name).map { batch.cell(row: row, column: $0).kind == .null || $0 >= batch.rowEnd(row) - batch.rowStarts[row] } ?? true }
                } ?? 0
                throw UpsertError.nullKeyNeedsPrimaryKey(
                    table: requestedTable, columns: nullColumns, position: batch.position(row: row, inputName: inputNames[batch.inputIndex]))
            }
        }
        let spelled = { (name: String) in index(name).map { names[$0] } ?? name }
        primaryKey = primaryKey.map(spelled)
        var definitions: [String] = []
        var textBecauseOf: [(column: String, word: String)] = []
        for (column, name) in names.enumerated() {
            var type = Self.postgresType(inferred: trackers[column], allJSON: allJSON[column])
            if let override = options.typeOverrides.first(where: { $0.key.sqliteFolded == name.sqliteFolded })?.value {
                type = try Self.postgresType(override, column: name)
            } else if type == "bigint" || type == "double precision" {
                inferredKinds[name.sqliteFolded] = type == "bigint" ? .integer : .real
            } else if type == "bytea" {
                inferredBytea.insert(name.sqliteFolded)
            } else if type == "text", let word = trackers[column].nullSpellingMadeText {
                textBecauseOf.append((name, word))
            }
            let notNull = primaryKey.contains { NameKey($0) == NameKey(name) } ? " NOT NULL" : ""
            definitions.append("\(SQLIdentifier.quote(name)) \(type)\(notNull)")
        }
        for column in options.typeOverrides.keys where index(column) == nil {
            throw SchemaError.unknownColumnInOption(option: "--type", column: column, table: requestedTable)
        }
        if !primaryKey.isEmpty { definitions.append("PRIMARY KEY (\(SQLIdentifier.quoteList(primaryKey)))") }
        let newTable = (requestedSchema.map { SQLIdentifier.quote($0) + "." } ?? "") + SQLIdentifier.quote(requestedTable)
        let create = "CREATE TABLE \(newTable) (\(definitions.joined(separator: ", ")))"
        try connection.execute(create)
        summary.createdTable = create
        summary.warnings += TableCreation.warnings(textBecauseOf: textBecauseOf, sampled: inferredFrom)
        if let uniqueIndex {
            let columns = uniqueIndex.columns.map(spelled)
            let indexName = "sqlimport_\(requestedTable)_\(columns.joined(separator: "_"))"
            let predicate = uniqueIndex.nullColumns.isEmpty
                ? "" : " WHERE " + uniqueIndex.nullColumns.map(spelled).map { "\(SQLIdentifier.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
            let statement = "CREATE UNIQUE INDEX \(SQLIdentifier.quote(indexName)) ON \(newTable) (\(SQLIdentifier.quoteList(columns)))\(predicate)"
            try connection.execute(statement)
            summary.createdIndex = statement
        }
        guard let created = try PostgresSchema.read(connection, table: requestedTable, in: requestedSchema) else {
            throw PostgresError(kind: .server, message: "the table \(SQLIdentifier.quote(requestedTable)) just created is not in the search path's first schema")
        }
        tableSchema = created
        summary.table = created.table
    }

    /// What a new table's columns are typed from: per field, its values' types, whether
    /// every value is nested JSON, and whether one is NULL or missing.
    struct ColumnSample {
        var names: [String] = []
        var trackers: [TypeTracker]
        var allJSON: [Bool]
        var nullable = Set<Int>()

        init(count: Int) {
            trackers = Array(repeating: TypeTracker(), count: count)
            allJSON = Array(repeating: true, count: count)
        }

        /// Adds the fields `batch` sees first and observes its records.
        mutating func observe(_ batch: RecordBatch, rows limit: Int = .max) {
            names += batch.newColumns
            if trackers.count < names.count {
                trackers += repeatElement(TypeTracker(), count: names.count - trackers.count)
                allJSON += repeatElement(true, count: names.count - allJSON.count)
            }
            batch.bytes.withUnsafeBufferPointer { bytes in
                for row in 0 ..< min(batch.rowCount, limit) {
                    let width = batch.rowEnd(row) - batch.rowStarts[row]
                    for column in 0 ..< trackers.count {
                        let cell = column < width ? batch.cell(row: row, column: column) : .absent
                        trackers[column].observe(cell, bytes: bytes)
                        if cell.kind == .null || cell.kind == .absent { nullable.insert(column) } else if cell.kind != .json { allJSON[column] = false }
                    }
                }
            }
        }

        /// `--infer-rows N` (or all) on PostgreSQL: a first pass over the first N records
        /// of the inputs (which must be files: standard input cannot be read twice).
        static func firstRecords(_ limit: Int, options: ImportOptions) throws -> ColumnSample {
            if options.inputs.contains("-") {
                throw ImportError.conflictingOptions(
                    "--infer-rows reads the first records twice on PostgreSQL, and standard input cannot be read twice; save it to a file first, or drop --infer-rows (the first batch types the table)")
            }
            struct Enough: Error {}
            var sample = ColumnSample(count: 0)
            var seen = 0
            do {
                try Importer(options: options).readAll { batch in
                    sample.observe(batch, rows: limit - seen)
                    seen += batch.rowCount
                    if seen >= limit { throw Enough() }
                }
            } catch is Enough {}
            return sample
        }
    }

    /// The type a new column gets from the values a batch has for it: `bigint` for
    /// integers, `double precision` for other numbers, `jsonb` when every value is nested
    /// JSON, `text` for the rest (and for a column with no value yet).
    static func postgresType(inferred tracker: TypeTracker, allJSON: Bool) -> String {
        switch tracker.declaredType {
        case "INTEGER": return "bigint"
        case "REAL": return "double precision"
        case "BLOB": return "bytea"
        default: return allJSON && tracker.declaredType != "ANY" ? "jsonb" : "text"
        }
    }

    /// `--alter`: adds a column for each field of `batch` the table lacks (`fields`, the
    /// batch's field numbers), typed from the batch's values as a new table's are (or by
    /// `--type`), in the run's transaction; the table is read again.
    func addColumns(_ fields: [(field: Int, name: String)], from batch: RecordBatch) throws {
        for (field, name) in fields {
            var tracker = TypeTracker()
            var allJSON = true
            batch.bytes.withUnsafeBufferPointer { bytes in
                for row in 0 ..< batch.rowCount {
                    let cell = field < batch.rowEnd(row) - batch.rowStarts[row] ? batch.cell(row: row, column: field) : .absent
                    tracker.observe(cell, bytes: bytes)
                    if cell.kind != .null && cell.kind != .absent && cell.kind != .json { allJSON = false }
                }
            }
            var type = Self.postgresType(inferred: tracker, allJSON: allJSON)
            if let override = options.typeOverrides.first(where: { $0.key.sqliteFolded == name.sqliteFolded })?.value {
                type = try Self.postgresType(override, column: name)
            } else if type == "bytea" {
                inferredBytea.insert(name.sqliteFolded)
            }
            try connection.execute("ALTER TABLE \(schema.qualifiedName) ADD COLUMN \(SQLIdentifier.quote(name)) \(type)")
            summary.addedColumns.append(name)
        }
        guard let reread = try PostgresSchema.read(connection, table: schema.table, in: schema.schema) else { return }
        tableSchema = reread
    }

    /// `--type col=TYPE` for a new PostgreSQL table: SQLite's STRICT types by their
    /// PostgreSQL equivalents (INTEGER is 64-bit, as SQLite's is), any other name as a
    /// PostgreSQL type. The text is data, so only a type name's characters are let
    /// through (letters, digits, `_`, spaces, a parenthesised list of numbers, `[]`);
    /// PostgreSQL then checks that the type exists when the table is created.
    static func postgresType(_ requested: String, column: String) throws -> String {
        let trimmed = requested.trimmingCharacters(in: .whitespaces)
        switch trimmed.uppercased() {
        case "INTEGER", "INT": return "bigint"
        case "REAL": return "double precision"
        case "TEXT": return "text"
        case "BLOB": return "bytea"
        case "ANY": return "text"
        default:
            // A name, the words of PostgreSQL's multi-word type names, a typmod, `[]`: no
            // room for a clause (`int REFERENCES t`, `text DEFAULT 'x'`).
            let words = #"( +(precision|varying|with|without|time|zone))*"#
            guard trimmed.range(of: #"^[A-Za-z_][A-Za-z0-9_]*"# + words + #"( *\([0-9]+( *, *[0-9]+)?\))?"# + words + #"( *\[\])?$"#, options: [.regularExpression, .caseInsensitive]) != nil else {
                throw ImportError.conflictingOptions(
                    "--type \(column)=\(requested): not a type name; use INTEGER, REAL, TEXT, BLOB or a PostgreSQL type such as numeric(12,2), timestamptz or text[]")
            }
            return trimmed
        }
    }
}
