import GRDB

/// The columns an upsert's `DO UPDATE SET` may leave out while their values stay the same.
///
/// SQLite decides from the `SET` list alone which indexes an update rewrites: assigning
/// a column deletes and re-inserts the row's entry in every index on that column, even
/// when the value is the same. A delta that changes a row's other fields but not its
/// identity (`libraryID`, `remoteID`) would pay two random B-tree writes per index per
/// row for nothing (`bench/README.md`, "Unchanged index keys": 12% of a delta).
///
/// Leaving such a column out of `SET` is exact only where nothing can tell the
/// difference, so the set is empty when the table has a trigger (`UPDATE OF col` fires
/// on assignment), and it never holds a column of a foreign key, on either side (an
/// assignment checks or cascades the key). The statement guards the rest: a row whose
/// indexed value would change is written by the statement that assigns every column
/// (`UpsertStatement.fallback`).
enum IndexedColumns {
    /// The names (folded) of the key columns of `table`'s indexes that may be left out.
    static func read(_ db: Database, table: String) throws -> Set<NameKey> {
        let hasTriggerOrParentKey = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE)
                OR EXISTS (SELECT 1 FROM sqlite_temp_schema WHERE type = 'trigger' AND tbl_name = ?1 COLLATE NOCASE)
                OR EXISTS (SELECT 1 FROM sqlite_schema AS s, pragma_foreign_key_list(s.name) AS f
                           WHERE s.type = 'table' AND f."table" = ?1 COLLATE NOCASE)
            """, arguments: [table]) ?? true
        guard !hasTriggerOrParentKey else { return [] }
        let indexed = try String.fetchAll(db, sql: """
            SELECT DISTINCT i.name FROM pragma_index_list(?1) AS l, pragma_index_info(l.name) AS i
            WHERE i.name IS NOT NULL
            """, arguments: [table])
        let foreignKeyColumns = try String.fetchAll(db, sql: """
            SELECT DISTINCT "from" FROM pragma_foreign_key_list(?1)
            """, arguments: [table])
        return Set(indexed.map(\.sqliteFolded)).subtracting(foreignKeyColumns.map(\.sqliteFolded))
    }
}
