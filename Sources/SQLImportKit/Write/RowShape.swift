import GRDBSQLite

/// The set of table columns a record supplies, and the statements that write such
/// records. Records that lack a field are written by a statement without that column,
/// so the column keeps its default on insert and its stored value on update.
final class RowShape {
    /// Input column numbers, in table-column order (from `WriteSession.clearedInputBase`
    /// on: an enum case column the record clears).
    let inputColumns: [Int]
    /// Positions in `TableSchema.columns`, parallel to `inputColumns`.
    let tableColumns: [Int]
    let affinities: [ColumnAffinity]
    let statement: UpsertStatement
    /// Prepared statements by rows per statement.
    var prepared: [Int: OpaquePointer] = [:]
    /// Prepared `statement.fallback` statements by rows per statement.
    var preparedFallback: [Int: OpaquePointer] = [:]
    /// Position of the table's `INTEGER PRIMARY KEY` among the statement's columns, when
    /// the records supply it: the rowids of the rows they insert.
    let rowidAliasPosition: Int?
    /// Position of the column a `col IS NOT NULL` partial predicate tests, once known.
    var notNullPosition: Int??
    /// The conflict target's and the primary-key clause's columns, once known
    /// (`ImportRun.keyColumns`).
    var keyColumns: KeyColumns?
    /// Per position, the widest kind of value the column takes when this run inferred it
    /// INTEGER or REAL for a table it created (`.text`: any); nil when there is none.
    var inferredKinds: [TypeTracker.Inferred]?

    struct KeyColumns {
        /// The target's columns; empty when the shape lacks one of them (the record's key
        /// then holds a NULL or a default, never a value to match).
        var target: [KeyColumn]
        /// The primary-key clause's columns; empty likewise.
        var primaryKey: [KeyColumn]
    }

    /// - Parameters:
    ///   - guardable: columns that may be left out of `SET` (`IndexedColumns`).
    ///   - mayReorderKeyClauses: whether the primary-key clause may come first.
    init(
        inputColumns: [Int], tableColumns: [Int], schema: TableSchema, target: ConflictTarget?, policy: MergePolicy,
        guardable: Set<NameKey>, mayReorderKeyClauses: Bool, rowidName: String?, replacedColumns: Set<NameKey> = [],
        abortsOtherConflicts: Bool = false
    ) {
        self.inputColumns = inputColumns
        self.tableColumns = tableColumns
        let affinities = tableColumns.map(schema.affinity(ofColumn:))
        self.affinities = affinities
        let names = tableColumns.map { schema.columns[$0].name }
        rowidAliasPosition = schema.rowidAlias.flatMap { alias in names.firstIndex(of: alias) }
        let typeless = zip(names, affinities).filter { $0.1 == .blob }.map { $0.0.sqliteFolded }
        statement = UpsertStatement(
            table: schema.name, columns: names, target: target, policy: policy, guardable: guardable,
            mayReorderKeyClauses: mayReorderKeyClauses, typelessColumns: Set(typeless), rowidName: rowidName,
            replacedColumns: replacedColumns, abortsOtherConflicts: abortsOtherConflicts)
    }

    func finalize() {
        for statement in prepared.values { sqlite3_finalize(statement) }
        for statement in preparedFallback.values { sqlite3_finalize(statement) }
        prepared.removeAll()
        preparedFallback.removeAll()
    }
}

extension ColumnAffinity {
    /// The affinity of a STRICT table's column type (INT, INTEGER, REAL, TEXT, BLOB, ANY).
    init(strictType: String) {
        switch strictType.uppercased() {
        case "INT", "INTEGER": self = .integer
        case "REAL": self = .real
        case "TEXT": self = .text
        default: self = .blob
        }
    }
}
