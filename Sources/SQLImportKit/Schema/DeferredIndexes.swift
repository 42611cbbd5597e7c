import GRDB

/// Secondary indexes dropped for a first load and built once at its end.
///
/// Inserting into an index row by row touches random B-tree pages; building it after
/// the load sorts once. This applies only where it cannot change the outcome:
/// - the table was empty at the start, and the run is all or nothing with
///   `--on-error abort` (never with `--commit-every`, so no commit ever lacks an index);
/// - the index was made by `CREATE INDEX` (not a PRIMARY KEY or UNIQUE constraint), it
///   is not the conflict target, and no foreign key refers to the table.
///
/// Rebuilding runs the index's own SQL from `sqlite_master`. Duplicates a unique index
/// refuses are then an error, and the run rolls back, as a record-by-record failure would.
struct DeferredIndexes {
    private(set) var indexes: [(name: String, sql: String, unique: Bool)] = []

    /// Drops the eligible indexes of `table`, keeping `keep` (the conflict target's).
    static func drop(_ db: Database, table: String, keep: String?) throws -> DeferredIndexes {
        var deferred = DeferredIndexes()
        let referenced = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM sqlite_schema AS s, pragma_foreign_key_list(s.name) AS f
                           WHERE s.type = 'table' AND f."table" = ? COLLATE NOCASE)
            """, arguments: [table]) ?? true
        guard !referenced else { return deferred }
        let rows = try Row.fetchAll(db, sql: """
            SELECT l.name, l."unique", s.sql FROM pragma_index_list(?) AS l JOIN sqlite_schema AS s ON s.name = l.name
            WHERE l.origin = 'c' AND s.sql IS NOT NULL
            """, arguments: [table])
        for row in rows {
            let name: String = row["name"]
            if name == keep { continue }
            deferred.indexes.append((name, row["sql"], row["unique"]))
            try db.execute(sql: "DROP INDEX \(SQLIdentifier.quote(name))")
        }
        return deferred
    }

    /// Builds the dropped indexes again. SQLite's sorter buffers up to `cache_size` bytes
    /// on top of the page cache, so both get a quarter of the run's cache meanwhile, and
    /// a large sort spills to temporary files: memory stays flat whatever the table size
    /// (`bench/memory.sh`: a sorter thread, or half the cache, let 10M rows reach 562 MiB).
    func rebuild(_ db: Database, table: String) throws {
        guard !indexes.isEmpty else { return }
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = \(cacheSize < 0 ? cacheSize / 4 : max(cacheSize / 4, 1))")
        defer { try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)") }
        for index in indexes {
            do {
                try db.execute(sql: index.sql)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw SchemaError.duplicatesForUniqueIndex(table: table, index: index.name, message: error.message ?? "\(error)")
            }
        }
    }
}
