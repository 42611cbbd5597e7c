import GRDB

/// Secondary indexes dropped for a first load and built once at its end.
///
/// Inserting into an index row by row touches random B-tree pages; building it after
/// the load sorts once. This applies only where it cannot change the outcome:
/// - the table was empty at the start, and the run is all or nothing with
///   `--on-error abort` (never with `--commit-every`, so no commit ever lacks an index);
/// - the index was made by `CREATE INDEX` (not a PRIMARY KEY or UNIQUE constraint), it
///   is not unique, it is not the conflict target, no trigger names it, and no foreign
///   key refers to the table.
///
/// Rebuilding runs the index's own SQL from `sqlite_master`.
struct DeferredIndexes {
    private(set) var indexes: [(name: String, sql: String)] = []

    /// Drops the eligible indexes of `table`, keeping `keep` (the conflict target's).
    static func drop(_ db: Database, table: String, keep: String?) throws -> DeferredIndexes {
        var deferred = DeferredIndexes()
        let referenced = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM sqlite_schema AS s, pragma_foreign_key_list(s.name) AS f
                           WHERE s.type = 'table' AND f."table" = ? COLLATE NOCASE)
            """, arguments: [table]) ?? true
        guard !referenced else { return deferred }
        // A unique index decides outcomes row by row (a later record may resolve a
        // duplicate an earlier one made), so it is never deferred; nor is an index that a
        // trigger names (`INDEXED BY`), since the trigger would fail without it.
        let rows = try Row.fetchAll(db, sql: """
            SELECT l.name, s.sql FROM pragma_index_list(?) AS l JOIN sqlite_schema AS s ON s.name = l.name
            WHERE l.origin = 'c' AND s.sql IS NOT NULL AND l."unique" = 0
            """, arguments: [table])
        let triggers = try String.fetchAll(db, sql: "SELECT lower(sql) FROM sqlite_schema WHERE type = 'trigger' AND sql IS NOT NULL")
        for row in rows {
            let name: String = row["name"]
            if name == keep { continue }
            if triggers.contains(where: { $0.contains(name.lowercased()) }) { continue }
            deferred.indexes.append((name, row["sql"]))
            try db.execute(sql: "DROP INDEX \(SQLIdentifier.quote(name))")
        }
        return deferred
    }

    /// Builds the dropped indexes again.
    ///
    /// SQLite's sorter cuts its input into runs of `cache_size` bytes, sorts each run in
    /// memory and merges them. Small runs sort in the CPU's caches: with 4 MiB runs and
    /// one helper thread (the reading thread is done by now, so its core is free) the
    /// 1M-row index of the bench builds in 0.72 s, against 1.79 s with 64 MiB runs and no
    /// helper (bench/README.md, "Index builds"). Memory stays flat whatever the table
    /// size: runs beyond the budget go to temporary files and are merged from there.
    static let sortRunKiB = 4096

    func rebuild(_ db: Database, table: String) throws {
        guard !indexes.isEmpty else { return }
        let cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        let threads = try Int.fetchOne(db, sql: "PRAGMA threads") ?? 0
        try db.execute(sql: "PRAGMA cache_size = -\(Self.sortRunKiB)")
        try db.execute(sql: "PRAGMA threads = 1")
        defer {
            try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)")
            try? db.execute(sql: "PRAGMA threads = \(threads)")
        }
        for index in indexes { try db.execute(sql: index.sql) }
    }
}
