import GRDB
import GRDBSQLite

/// A column of an existing table, from `PRAGMA table_xinfo`.
public struct ColumnInfo: Sendable, Hashable, Codable {
    public var name: String
    public var declaredType: String
    public var notNull: Bool
    /// The DEFAULT expression's SQL text, if any.
    public var defaultSQL: String?
    /// 1-based position in the primary key, 0 when not part of it.
    public var primaryKeyPosition: Int
    /// Generated and hidden columns cannot be written.
    public var isWritable: Bool
    /// A generated column's expression (`SQLText.generatedColumns`).
    package var generatedSQL: String? = nil
    /// `NOT NULL ON CONFLICT REPLACE`: a NULL given for the column stores its default.
    package var replacesNull = false

    public var affinity: ColumnAffinity { ColumnAffinity(declaredType: declaredType) }
}

/// A set of columns whose values are unique: the primary key, a UNIQUE constraint or a
/// unique index. These are the only valid `--upsert` targets.
public struct UniqueKey: Sendable, Hashable, Codable {
    public enum Origin: String, Sendable, Codable {
        case primaryKey = "primary key"
        case uniqueConstraint = "UNIQUE constraint"
        case uniqueIndex = "unique index"
    }

    /// The index name (nil for a rowid-alias primary key, which has no index).
    public var indexName: String?
    public var columns: [String]
    public var origin: Origin
    /// For a partial index, the text of its WHERE clause exactly as written in
    /// `sqlite_master`: SQLite matches `ON CONFLICT(...) WHERE` against it structurally.
    public var partialPredicate: String?
    /// The index's collation of each column (`BINARY` when nil), by which it compares keys.
    public var collations: [String]? = nil

    /// The key as `--upsert` takes it: `libraryID,remoteID`.
    public var upsertArgument: String { columns.joined(separator: ",") }
}

/// What sqlimport knows of a table: its columns, keys and table options.
public struct TableSchema: Sendable, Codable {
    public var name: String
    public var columns: [ColumnInfo]
    public var isStrict: Bool
    public var isWithoutRowid: Bool
    public var uniqueKeys: [UniqueKey]
    /// The `ON CONFLICT` clauses of the table's constraints (`SQLText.conflictClauses`).
    package var conflictClauses: [DeclaredConflictClause] = []

    /// Whether the run's inserts say `INSERT OR ABORT`, overriding a constraint's `ON
    /// CONFLICT REPLACE` on a key (it would delete the other row that holds the key) or
    /// `ON CONFLICT ROLLBACK` (it would end the run's transaction); see
    /// `DeclaredConflictClause.isOverridden`.
    package var overridesDeclaredConflictClauses: Bool { conflictClauses.contains(where: \.isOverridden) }

    /// The overridden clauses as messages name them: `UNIQUE ON CONFLICT REPLACE`.
    package var overriddenConflictClauses: [String] {
        Set(conflictClauses.filter(\.isOverridden).map { "\($0.constraint.rawValue) ON CONFLICT \($0.resolution.rawValue)" }).sorted()
    }

    public var primaryKey: [String] {
        columns.filter { $0.primaryKeyPosition > 0 }.sorted { $0.primaryKeyPosition < $1.primaryKeyPosition }.map(\.name)
    }

    /// The affinity a value bound to column `index` meets: its STRICT type's, or the
    /// one its declared type gives.
    func affinity(ofColumn index: Int) -> ColumnAffinity {
        isStrict ? ColumnAffinity(strictType: columns[index].declaredType) : columns[index].affinity
    }

    /// The collation `column` of `table` compares with (`BINARY` unless declared), as the
    /// connection reads the table's declaration.
    static func collation(of column: String, in table: String, connection: OpaquePointer?) -> String {
        var collation: UnsafePointer<CChar>?
        let status = sqlite3_table_column_metadata(connection, "main", table, column, nil, &collation, nil, nil, nil)
        guard status == SQLITE_OK, let collation else { return "BINARY" }
        return String(cString: collation)
    }

    /// The one-column `INTEGER PRIMARY KEY` of a rowid table, which aliases the rowid.
    public var rowidAlias: String? {
        let keyColumns = columns.filter { $0.primaryKeyPosition > 0 }
        guard !isWithoutRowid, keyColumns.count == 1, keyColumns[0].declaredType.uppercased() == "INTEGER" else { return nil }
        return keyColumns[0].name
    }

    /// The column named `name`, matched as SQLite does: ignoring ASCII case.
    public func columnIndex(named name: String) -> Int? {
        let folded = name.sqliteFolded
        return columns.firstIndex { $0.name.sqliteFolded == folded }
    }

    /// The name of the table `requested` designates, resolved as SQLite resolves an
    /// unquoted name: `main.items` is `items`, and case is ignored (`Items` is the existing
    /// table `items`). A name that matches no table comes back as given (without `main.`).
    ///
    /// - Throws: `SchemaError.unknownSchema` for `temp.x` (a temporary table vanishes
    ///   with the run's connection) and for any other `schema.x` prefix that does not name
    ///   a table literally: the run's connection attaches no other database.
    /// - Parameters:
    ///   - db: The connection whose schema names the tables.
    ///   - requested: The name as the user gave it.
    ///   - parsesSchema: false for a name made from a file name, whose dots are part of
    ///     the name.
    public static func resolveName(_ db: Database, requested: String, parsesSchema: Bool = true) throws -> String {
        var name = requested
        if parsesSchema, try existingName(db, folded: requested) == nil, let dot = requested.firstIndex(of: ".") {
            let prefix = requested[..<dot].sqliteFolded
            let rest = String(requested[requested.index(after: dot)...])
            switch prefix {
            case "main": name = rest
            default: throw SchemaError.unknownSchema(name: requested, schema: String(requested[..<dot]))
            }
        }
        return try existingName(db, folded: name) ?? name
    }

    /// The spelling of the main schema's table or view whose name equals `folded`
    /// ignoring ASCII case, as SQLite matches names.
    private static func existingName(_ db: Database, folded: String) throws -> String? {
        try String.fetchOne(
            db, sql: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND name = ? COLLATE NOCASE", arguments: [folded])
    }

    /// Reads a table's schema, or returns nil when there is no such table. `table` is
    /// matched ignoring case; the schema carries the table's own spelling.
    public static func read(_ db: Database, table requested: String) throws -> TableSchema? {
        let listing = try Row.fetchOne(
            db, sql: "SELECT name, type, strict, wr FROM pragma_table_list WHERE schema = 'main' AND name = ? COLLATE NOCASE",
            arguments: [requested])
        guard let listing else { return nil }
        let table: String = listing["name"]
        guard (listing["type"] as String?) == "table" else {
            throw SchemaError.notATable(name: table, kind: listing["type"] ?? "object")
        }
        let rows = try Row.fetchAll(db, sql: "SELECT name, type, \"notnull\", dflt_value, pk, hidden FROM pragma_table_xinfo(?)", arguments: [table])
        let columns = rows.map { row in
            ColumnInfo(
                name: row["name"], declaredType: row["type"] ?? "", notNull: row["notnull"], defaultSQL: row["dflt_value"],
                primaryKeyPosition: row["pk"], isWritable: (row["hidden"] as Int) == 0)
        }
        var schema = TableSchema(
            name: table, columns: columns, isStrict: listing["strict"], isWithoutRowid: listing["wr"], uniqueKeys: [])
        schema.uniqueKeys = try readUniqueKeys(db, schema: schema)
        let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", arguments: [table])
        schema.conflictClauses = sql.map(SQLText.conflictClauses(ofCreateTable:)) ?? []
        for column in sql.map(SQLText.generatedColumns(ofCreateTable:)) ?? [] {
            if let index = schema.columnIndex(named: column.name), !schema.columns[index].isWritable {
                schema.columns[index].generatedSQL = column.expression
            }
        }
        for name in sql.map(SQLText.nullReplacingColumns(ofCreateTable:)) ?? [] {
            if let index = schema.columnIndex(named: name) { schema.columns[index].replacesNull = true }
        }
        return schema
    }

    private static func readUniqueKeys(_ db: Database, schema: TableSchema) throws -> [UniqueKey] {
        var keys: [UniqueKey] = []
        if let alias = schema.rowidAlias {
            keys.append(UniqueKey(indexName: nil, columns: [alias], origin: .primaryKey, partialPredicate: nil))
        }
        let indexes = try Row.fetchAll(db, sql: "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?) ORDER BY seq DESC", arguments: [schema.name])
        for index in indexes where (index["unique"] as Int) == 1 {
            let name: String = index["name"]
            let keyColumns = try Row.fetchAll(
                db, sql: "SELECT cid, name, coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", arguments: [name])
            // An index on an expression (cid -2) cannot be an ON CONFLICT target by column names.
            guard keyColumns.allSatisfy({ ($0["cid"] as Int) >= 0 }) else { continue }
            let origin: UniqueKey.Origin
            switch index["origin"] as String {
            case "pk": origin = .primaryKey
            case "u": origin = .uniqueConstraint
            default: origin = .uniqueIndex
            }
            var predicate: String?
            if (index["partial"] as Int) == 1 {
                let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?", arguments: [name])
                predicate = sql.flatMap(SQLText.whereClause(ofCreateIndex:))
            }
            keys.append(UniqueKey(
                indexName: name, columns: keyColumns.map { $0["name"] }, origin: origin, partialPredicate: predicate,
                collations: keyColumns.map { $0["coll"] ?? "BINARY" }))
        }
        return keys
    }
}
