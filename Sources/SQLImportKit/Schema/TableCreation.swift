/// The STRICT table a run creates when the target table does not exist.
struct TableCreation {
    var schema: TableSchema
    var sql: String
    /// Columns made TEXT by one missing-value word beside numbers, and that word
    /// (`TypeTracker.nullSpellingMadeText`), in column order.
    var textBecauseOf: [(column: String, word: String)] = []

    /// One warning per missing-value word that made number columns TEXT: it names them
    /// and `--null WORD`.
    static func warnings(textBecauseOf: [(column: String, word: String)], sampled: Int) -> [String] {
        Set(textBecauseOf.map(\.word)).sorted().map { word in
            let columns = textBecauseOf.filter { $0.word == word }.map(\.column)
            let named = columns.count == 1 ? "column \(SQLIdentifier.quote(columns[0])) was" : "columns \(SQLIdentifier.quoteList(columns)) were"
            let (their, them) = columns.count == 1 ? ("its", "it") : ("their", "them")
            return "\(named) created as TEXT: \(their) values in the first \(sampled) records are numbers and \(word); if \(word) means a missing value, pass \(WriteError.nullOption(word)) to store NULL and type \(them) from \(their) numbers"
        }
    }

    static let allowedTypes: Set<String> = ["INT", "INTEGER", "REAL", "TEXT", "BLOB", "ANY"]

    /// Infers column types from the sampled records and builds the `CREATE TABLE`.
    ///
    /// ```sql
    /// CREATE TABLE "items" ("id" TEXT NOT NULL, "qty" INTEGER, PRIMARY KEY ("id")) STRICT
    /// ```
    static func infer(
        table: String, columnNames: [String], excluded: Set<Int> = [], sample: [RecordBatch], sampleRows: Int,
        primaryKey: [String], primaryKeyOption: String = "--pk", typeOverrides: TypeOverrides
    ) throws(SchemaError) -> TableCreation {
        var trackers = [TypeTracker](repeating: TypeTracker(), count: columnNames.count)
        var remaining = sampleRows
        for batch in sample where remaining > 0 {
            batch.bytes.withUnsafeBufferPointer { bytes in
                for row in 0 ..< min(batch.rowCount, remaining) {
                    for column in 0 ..< min(batch.rowEnd(row) - batch.rowStarts[row], columnNames.count) {
                        trackers[column].observe(batch.cell(row: row, column: column), bytes: bytes)
                    }
                }
            }
            remaining -= batch.rowCount
        }
        let lowered = columnNames.map { $0.sqliteFolded }
        for name in primaryKey where !lowered.contains(name.sqliteFolded) {
            throw .unknownColumnInOption(option: primaryKeyOption, column: name, table: table)
        }
        var types = trackers.map(\.declaredType)
        for (name, type) in typeOverrides {
            guard let index = lowered.firstIndex(of: name.sqliteFolded) else {
                throw .unknownColumnInOption(option: "--type", column: name, table: table)
            }
            guard allowedTypes.contains(type.uppercased()) else { throw .invalidTypeOverride("\(name)=\(type)") }
            types[index] = type.uppercased()
        }
        let keySet = Set(primaryKey.map { $0.sqliteFolded })
        var definitions: [String] = []
        var columns: [ColumnInfo] = []
        for (index, name) in columnNames.enumerated() where !excluded.contains(index) {
            let isKey = keySet.contains(name.sqliteFolded)
            definitions.append("\(SQLIdentifier.quote(name)) \(types[index])\(isKey ? " NOT NULL" : "")")
            let keyPosition = primaryKey.firstIndex { $0.sqliteFolded == name.sqliteFolded }.map { $0 + 1 } ?? 0
            columns.append(ColumnInfo(name: name, declaredType: types[index], notNull: isKey, defaultSQL: nil, primaryKeyPosition: keyPosition, isWritable: true))
        }
        if !primaryKey.isEmpty {
            let keyNames = primaryKey.map { key in columnNames.first { $0.sqliteFolded == key.sqliteFolded }! }
            definitions.append("PRIMARY KEY (\(SQLIdentifier.quoteList(keyNames)))")
        }
        let sql = "CREATE TABLE \(SQLIdentifier.quote(table)) (\(definitions.joined(separator: ", "))) STRICT"
        var schema = TableSchema(name: table, columns: columns, isStrict: true, isWithoutRowid: false, uniqueKeys: [])
        if !primaryKey.isEmpty {
            let keyNames = schema.primaryKey
            schema.uniqueKeys = [UniqueKey(indexName: nil, columns: keyNames, origin: .primaryKey, partialPredicate: nil)]
        }
        let textBecauseOf = columnNames.indices.compactMap { index -> (column: String, word: String)? in
            guard !excluded.contains(index), types[index] == "TEXT", let word = trackers[index].nullSpellingMadeText else { return nil }
            return (columnNames[index], word)
        }
        return TableCreation(schema: schema, sql: sql, textBecauseOf: textBecauseOf)
    }
}
