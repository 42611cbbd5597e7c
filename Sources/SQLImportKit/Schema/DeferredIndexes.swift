import GRDB

/// Secondary indexes dropped for a first load and built once at its end.
///
/// Inserting into an index row by row touches random B-tree pages; building it after
/// the load sorts once. This applies only where it cannot change the outcome:
/// - the table was empty at the start, and the run is all or nothing with
///   `--on-error abort` (never with `--commit-every`, so no commit ever lacks an index);
/// - the index was made by `CREATE INDEX` (not a PRIMARY KEY or UNIQUE constraint), it
///   is not the conflict target, no trigger names it, and no foreign key refers to the
///   table.
///
/// A unique index decides outcomes row by row: a duplicate two inserts make fails the
/// run, unless a later record changed one of the rows first. Rows change only when a
/// record conflicts (an update), so a unique index is deferred only while no record has
/// conflicted: the first conflict makes the writer build the deferred unique indexes at
/// once (`rebuildUnique`), before the conflicting statement runs again. Then a duplicate
/// among the rows inserted so far fails the run exactly as it would have failed without
/// deferring, and from then on the index is maintained. A unique index is not deferred
/// at all when the database has a trigger or the table an `ON CONFLICT REPLACE` column,
/// which could change rows without a conflict.
///
/// The conflict target's own index is deferred too when it was made by `CREATE UNIQUE
/// INDEX` (an upsert names it in `ON CONFLICT`, so its statements cannot run without it).
/// The writer then inserts with plain `INSERT` statements (`WriteSession.insertsOnly`)
/// while no record can conflict: the table was empty, so only a record repeating an
/// earlier record's key can. Such a record is found before it is written, by its target
/// key's fingerprint (`FingerprintSet`), or by SQLite, as a constraint failure of the
/// primary key, which undoes the statement. Either way the unique indexes are built at
/// once and the record and all after it go through the upsert statements.
///
/// Rebuilding runs the index's own SQL from `sqlite_master`.
struct DeferredIndexes {
    private(set) var indexes: [(name: String, sql: String, unique: Bool)] = []

    var hasUnique: Bool { indexes.contains { $0.unique } }

    /// Whether index `name` is waiting to be built.
    func defers(_ name: String?) -> Bool { indexes.contains { $0.name == name } }

    /// Drops the eligible indexes of `table`; the conflict target's, `target`, only when
    /// `deferTarget`.
    static func drop(_ db: Database, table: String, target: String?, deferTarget: Bool) throws -> DeferredIndexes {
        var deferred = DeferredIndexes()
        let referenced = try Bool.fetchOne(db, sql: """
            SELECT EXISTS (SELECT 1 FROM sqlite_schema AS s, pragma_foreign_key_list(s.name) AS f
                           WHERE s.type = 'table' AND f."table" = ? COLLATE NOCASE)
            """, arguments: [table]) ?? true
        guard !referenced else { return deferred }
        // An index a trigger names (`INDEXED BY`) is kept: the trigger would fail.
        let rows = try Row.fetchAll(db, sql: """
            SELECT l.name, l."unique", s.sql FROM pragma_index_list(?) AS l JOIN sqlite_schema AS s ON s.name = l.name
            WHERE l.origin = 'c' AND s.sql IS NOT NULL
            """, arguments: [table])
        let triggers = try String.fetchAll(db, sql: """
            SELECT lower(sql) FROM sqlite_schema WHERE type = 'trigger' AND sql IS NOT NULL
            UNION ALL SELECT lower(sql) FROM sqlite_temp_schema WHERE type = 'trigger' AND sql IS NOT NULL
            """)
        let replaces = try String.fetchOne(db, sql: "SELECT upper(sql) FROM sqlite_schema WHERE type = 'table' AND name = ?", arguments: [table])?
            .contains("REPLACE") ?? true
        for row in rows {
            let name: String = row["name"]
            let unique: Bool = row["unique"]
            if name == target && !deferTarget { continue }
            if triggers.contains(where: { $0.contains(name.sqliteFolded.text) }) { continue }
            if unique && (!triggers.isEmpty || replaces) { continue }
            deferred.indexes.append((name, row["sql"], unique))
            try db.execute(sql: "DROP INDEX \(SQLIdentifier.quote(name))")
        }
        return deferred
    }

    /// Builds the deferred unique indexes now (the first conflict of the load), and keeps
    /// the others for the end.
    mutating func rebuildUnique(_ db: Database, table: String) throws {
        let unique = DeferredIndexes(indexes: indexes.filter(\.unique))
        indexes.removeAll { $0.unique }
        try unique.rebuild(db, table: table)
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
        for index in indexes {
            do {
                try db.execute(sql: index.sql)
            } catch let error as DatabaseError where index.unique && error.resultCode == .SQLITE_CONSTRAINT {
                throw SchemaError.duplicatesForUniqueIndex(table: table, index: index.name, message: error.message ?? "\(error)")
            }
        }
    }
}
