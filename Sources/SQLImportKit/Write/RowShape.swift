import GRDBSQLite

/// The set of table columns a record supplies, and the statements that write such
/// records. Records that lack a field are written by a statement without that column,
/// so the column keeps its default on insert and its stored value on update.
final class RowShape {
    /// Input column numbers, in table-column order.
    let inputColumns: [Int]
    /// Positions in `TableSchema.columns`, parallel to `inputColumns`.
    let tableColumns: [Int]
    let affinities: [ColumnAffinity]
    let statement: UpsertStatement
    /// Prepared statements by rows per statement.
    var prepared: [Int: OpaquePointer] = [:]
    /// Position of the column a `col IS NOT NULL` partial predicate tests, once known.
    var notNullPosition: Int??

    init(inputColumns: [Int], tableColumns: [Int], schema: TableSchema, target: ConflictTarget?, policy: MergePolicy) {
        self.inputColumns = inputColumns
        self.tableColumns = tableColumns
        affinities = tableColumns.map { schema.isStrict ? ColumnAffinity(strictType: schema.columns[$0].declaredType) : schema.columns[$0].affinity }
        statement = UpsertStatement(
            table: schema.name, columns: tableColumns.map { schema.columns[$0].name }, target: target, policy: policy)
    }

    func finalize() {
        for statement in prepared.values { sqlite3_finalize(statement) }
        prepared.removeAll()
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
