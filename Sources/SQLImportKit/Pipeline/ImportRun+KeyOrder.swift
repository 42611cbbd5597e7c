import Foundation
import GRDB

/// What the reader sorts each run by (`KeyOrder`), decided once the write session knows
/// which conflict clause each statement tries first.
extension ImportRun {
    /// Starts key-ordered reading when it cannot change what the run leaves behind, and
    /// tells the reader so either way (`KeyOrder.decide`).
    func startKeyOrder(_ session: WriteSession) throws {
        defer { source.keyOrder?.decide() }
        guard let keyOrder = source.keyOrder, let target, let schema else { return }
        guard let spec = try keyOrderSpec(session, target: target, schema: schema) else {
            summary.keyOrder = "input order: \(keyOrderRefusal ?? "")"
            return
        }
        keyOrder.spec = spec
    }

    /// The sort and guard columns, or nil (with `keyOrderRefusal` set) where the order of
    /// writes shows in the result.
    func keyOrderSpec(_ session: WriteSession, target: ConflictTarget, schema: TableSchema) throws -> KeyOrder.Spec? {
        func refuse(_ reason: String) -> KeyOrder.Spec? {
            keyOrderRefusal = reason
            return nil
        }
        if session.hasTriggers { return refuse("the database has triggers, which see each write") }
        if try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM pragma_foreign_key_list(?) WHERE \"table\" = ? COLLATE NOCASE)", arguments: [table, table]) ?? true
        {
            return refuse("a foreign key of the table refers to the table itself")
        }
        let tableSQL = try String.fetchOne(db, sql: "SELECT upper(sql) FROM sqlite_schema WHERE type = 'table' AND name = ?", arguments: [table]) ?? "REPLACE"
        if tableSQL.contains("REPLACE") || tableSQL.contains("IGNORE") {
            return refuse("an ON CONFLICT REPLACE or IGNORE constraint keeps the first or the last of two records in the order of writes")
        }
        let mapped = Set(tableColumnOfInput.compactMap { $0 })
        if let alias = schema.rowidAlias, let index = schema.columnIndex(named: alias), !mapped.contains(index) {
            return refuse("new rows get their \(alias) in the order they are written")
        }
        let primaryKey = target.fallbackKey ?? []
        if options.alter { return refuse("--alter types a new column from the records of the batch it first appears in") }
        // Any unique index but the two clauses' (expression indexes included, which the
        // schema reader does not list): an update may free a value that a record sorted
        // before it takes.
        // (A first load's deferred unique indexes count too: a conflict builds them.)
        let uniqueIndexes = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1", arguments: [table])
            + deferredIndexes.indexes.filter(\.unique).map(\.name)
        if let other = uniqueIndexes.first(where: { isOtherUnique($0, schema: schema, target: target) }) {
            return refuse("unique index \(SQLIdentifier.quote(other)) is neither the conflict target nor the primary key: an update may free a value that a record sorted before it would take")
        }
        // The clause SQLite tries first (`UpsertStatement.reordersKeyClauses`).
        let primaryKeyFirst = mayReorderKeyClauses && options.merge != .ignore && target.fallbackKey != nil
        let sortNames = primaryKeyFirst ? primaryKey : target.columns
        let guardNames = primaryKeyFirst ? target.columns : primaryKey
        guard let sortColumns = keyOrderColumns(sortNames, schema: schema), let guardColumns = keyOrderColumns(guardNames, schema: schema) else {
            return refuse("a key column is neither INTEGER nor TEXT with a built-in collation, or the input fills it twice")
        }
        return KeyOrder.Spec(sortColumns: sortColumns, guardColumns: guardColumns, description: sortNames.joined(separator: ", "))
    }

    /// Whether unique index `name` is neither the target's nor the primary key's.
    private func isOtherUnique(_ name: String, schema: TableSchema, target: ConflictTarget) -> Bool {
        if name == target.key.indexName { return false }
        guard let key = schema.uniqueKeys.first(where: { $0.indexName == name }) else { return true }  // an expression index
        return key.origin != .primaryKey
    }

    private func keyOrderColumns(_ names: [String], schema: TableSchema) -> [KeyOrder.Column]? {
        // The index the clause names, for its collations: the target's own key, or the
        // primary key's (another index on the same columns may collate otherwise).
        let wanted = Set(names.map { $0.sqliteFolded })
        let key = target.flatMap { Set($0.columns.map { $0.sqliteFolded }) == wanted ? $0.key : nil }
            ?? schema.uniqueKeys.first { $0.origin == .primaryKey && Set($0.columns.map { $0.sqliteFolded }) == wanted }
        var columns: [KeyOrder.Column] = []
        for name in names {
            guard let index = schema.columnIndex(named: name) else { return nil }
            let inputs = tableColumnOfInput.indices.filter { tableColumnOfInput[$0] == index }
            guard inputs.count == 1 else { return nil }
            let column = schema.columns[index]
            let affinity = schema.affinity(ofColumn: index)
            let position = key?.columns.firstIndex { $0.sqliteFolded == name.sqliteFolded }
            let collation = (position.flatMap { key?.collations?[$0] } ?? "BINARY").uppercased()
            let comparison: KeyOrder.Comparison
            switch (affinity, collation) {
            case (.integer, _): comparison = .integer
            case (.text, "BINARY"): comparison = .binary
            case (.text, "NOCASE"): comparison = .noCase
            case (.text, "RTRIM"): comparison = .rightTrim
            default: return nil
            }
            columns.append(KeyOrder.Column(
                input: inputs[0], comparison: comparison, isRowidAlias: schema.rowidAlias == column.name,
                hasDefault: column.defaultSQL.map { $0.uppercased() != "NULL" } ?? false))
        }
        return columns
    }

    /// The report's line on key order, once the run is over.
    func describeKeyOrder() {
        if let line = source.keyOrder?.reportLine { summary.keyOrder = line }
    }
}
