/// A first load into an empty PostgreSQL table builds the conflict target's index, the
/// primary key's and the plain indexes once, after the load, instead of inserting every
/// record into each B-tree as it comes (as `DeferredIndexes` does on SQLite). PostgreSQL
/// builds an index by sorting: for the bench's 1M random-key rows, 1.7 s for both
/// unique indexes against 7 s of row-by-row inserts.
///
/// While they are gone nothing else enforces the two keys, so the run does:
/// - it takes the table's `ACCESS EXCLUSIVE` lock first (`NOWAIT`: with any other session
///   on the table, nothing is deferred), so no other session writes a row meanwhile, and
///   readers wait for the commit instead of seeing an empty table;
/// - a batch goes in with COPY only while the run's key hashes say that none of its
///   records meets an earlier one and every key value is stored as the bytes that were
///   hashed (key columns of text, unbounded varchar with a deterministic collation, or
///   integer types given integers). Any other batch builds the indexes first, and the
///   load goes on through the upserts;
/// - an index whose drop would lose something is kept, and the keys' indexes are then not
///   deferred at all: one another table's foreign key depends on, a replica identity,
///   a clustered one, one with a comment, per-column statistics targets, a tablespace of
///   its own, or `NULLS NOT DISTINCT`. Other unique and exclusion indexes always stay,
///   so that a record breaking one is refused with its line.
///
/// Everything happens in the run's transaction: a failed run leaves the indexes as they
/// were.
extension PostgresRun {
    struct DeferredIndexes {
        var names: [String]
        /// `ALTER TABLE ... ADD CONSTRAINT` or `CREATE INDEX`, the primary key first.
        var restore: [String]
    }

    /// Drops the indexes a first load builds at its end, when it may.
    func deferIndexes() throws {
        guard !indexDeferralDecided else { return }
        indexDeferralDecided = true
        guard options.postgresDefersIndexes, insertsOnly, let target, options.onError == .abort, options.commitEvery == nil, options.mirror.tombstone == nil,
            !options.mirror.deleteMissing, try copiesIntoTable()
        else { return }
        // Where DDL is not transactional, a failed run could not put the indexes back
        // (YugabyteDB runs each DDL statement as its own transaction; CockroachDB's
        // schema changes are not atomic with the transaction's writes).
        let version = try connection.query("SELECT version()").first?[0] ?? nil
        guard let version, !version.contains("-YB-"), !version.contains("Cockroach") else { return }
        let keyIndexes = Set([target.name] + (fallbackKey.map { [$0.name] } ?? []))
        for key in [target] + (fallbackKey.map { [$0] } ?? []) {
            guard try keyColumnTypes(of: key) != nil else { return }
        }
        let indexes = try connection.query(
            """
            SELECT ci.relname, (i.indisunique OR i.indisexclusion)::text, pg_get_indexdef(i.indexrelid), con.conname, pg_get_constraintdef(con.oid),
              (c.relkind <> 'r' OR i.indisclustered OR i.indisreplident OR NOT i.indisvalid OR NOT i.indisready OR ci.reltablespace <> 0
               OR COALESCE((to_jsonb(i) ->> 'indnullsnotdistinct')::boolean, false)
               OR EXISTS (SELECT FROM pg_description d WHERE (d.classoid = 'pg_class'::regclass AND d.objoid = i.indexrelid)
                          OR (d.classoid = 'pg_constraint'::regclass AND d.objoid = con.oid))
               OR EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = i.indexrelid AND a.attstattarget > 0)
               OR EXISTS (SELECT FROM pg_depend dep WHERE (dep.refclassid = 'pg_class'::regclass AND dep.refobjid = i.indexrelid)
                          OR (dep.refclassid = 'pg_constraint'::regclass AND dep.refobjid = con.oid
                              AND NOT (dep.classid = 'pg_class'::regclass AND dep.objid = i.indexrelid))))::text
            FROM pg_index i JOIN pg_class ci ON ci.oid = i.indexrelid JOIN pg_class c ON c.oid = i.indrelid
            LEFT JOIN pg_constraint con ON con.conindid = i.indexrelid AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u', 'x')
            WHERE i.indrelid = $1::regclass
            ORDER BY NOT i.indisprimary, ci.relname
            """,
            [schema.qualifiedName])
        var drops: [String] = []
        var deferred = DeferredIndexes(names: [], restore: [])
        for index in indexes {
            guard let name = index[0] ?? nil, let definition = index[2] ?? nil else { continue }
            let isKey = keyIndexes.contains(name)
            let keeps = index[5] == "true"
            if isKey && keeps { return }
            guard !keeps, isKey || index[1] == "false" else { continue }
            if let constraint = index[3] ?? nil, let body = index[4] ?? nil {
                drops.append("ALTER TABLE \(schema.qualifiedName) DROP CONSTRAINT \(SQLIdentifier.quote(constraint))")
                deferred.restore.append("ALTER TABLE \(schema.qualifiedName) ADD CONSTRAINT \(SQLIdentifier.quote(constraint)) \(body)")
            } else {
                drops.append("DROP INDEX \(SQLIdentifier.quote(schema.schema)).\(SQLIdentifier.quote(name))")
                deferred.restore.append(definition)
            }
            deferred.names.append(name)
        }
        guard deferred.names.count >= keyIndexes.count else { return }
        // The lock, and the table still empty under it; or nothing deferred: another
        // session holds a lock (55P03), or the engine has no such lock.
        try connection.execute("SAVEPOINT sqlimport_defer")
        do {
            try connection.execute("LOCK TABLE \(schema.qualifiedName) IN ACCESS EXCLUSIVE MODE NOWAIT")
        } catch {
            guard error.kind != .connection else { throw error }
            try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_defer")
            try connection.execute("RELEASE SAVEPOINT sqlimport_defer")
            return
        }
        guard try connection.query("SELECT NOT EXISTS (SELECT FROM \(schema.qualifiedName))").first?[0] == "t" else {
            try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_defer")
            try connection.execute("RELEASE SAVEPOINT sqlimport_defer")
            insertsOnly = false
            return
        }
        for statement in drops { try connection.execute(statement) }
        try connection.execute("RELEASE SAVEPOINT sqlimport_defer")
        deferredIndexes = deferred
        summary.deferredIndexes = deferred.names
    }

    /// Whether `rows` may go in while the indexes are deferred: no record meets a key
    /// the run met before (`meetsEarlierKeys`, from the batch plan), and each integer key
    /// column holds integers (text such as " 1" is the same integer with other bytes).
    func deferralHolds(rows: [Int], of batch: RecordBatch, meetsEarlierKeys: Bool) throws -> Bool {
        guard !meetsEarlierKeys, let target else { return false }
        for key in [target] + (fallbackKey.map { [$0] } ?? []) {
            guard let columns = try keyColumnTypes(of: key) else { return false }
            for (column, isInteger) in columns where isInteger {
                guard let field = columnOfField.firstIndex(where: { $0 == column }) else { continue }
                for row in rows {
                    let width = batch.rowEnd(row) - batch.rowStarts[row]
                    guard field < width else { continue }
                    let kind = batch.cell(row: row, column: field).kind
                    guard kind == .integer || kind == .null || kind == .absent else { return false }
                }
            }
        }
        return true
    }

    /// Builds the deferred indexes (at the end of the load, or before a batch that needs
    /// them: `reason` says which record, for the report).
    func buildDeferredIndexes(reason: String? = nil) throws {
        guard let deferred = deferredIndexes else { return }
        deferredIndexes = nil
        if let reason { summary.indexesBuiltEarly = reason }
        report(.buildingIndexes)
        for statement in deferred.restore { try connection.execute(statement) }
    }

    /// A key's columns and whether each is an integer, when two values PostgreSQL finds
    /// equal are always the same bytes: integer types, text, and varchar without a length
    /// (a length trims the spaces beyond it) under a deterministic collation. nil otherwise
    /// (uuid, citext, numeric, char(n), and others accept one value spelled several ways).
    func keyColumnTypes(of key: PostgresSchema.UniqueKey) throws -> [(column: String, isInteger: Bool)]? {
        if let known = keyTypesOfIndex[key.name] { return known }
        let found = try connection.query(
            """
            SELECT a.attname, t.typname, (COALESCE(co.collisdeterministic, true) AND a.atttypmod = -1)::text
            FROM pg_index i JOIN pg_class ci ON ci.oid = i.indexrelid
            CROSS JOIN LATERAL unnest(i.indkey::int2[], i.indcollation::oid[]) WITH ORDINALITY AS k(attnum, coll, ord)
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            JOIN pg_type t ON t.oid = a.atttypid
            LEFT JOIN pg_collation co ON co.oid = k.coll
            WHERE i.indrelid = $1::regclass AND ci.relname::text = $2::text
            ORDER BY k.ord
            """,
            [schema.qualifiedName, key.name])
        var columns: [(column: String, isInteger: Bool)]? = []
        if found.count != key.columns.count { columns = nil }
        for row in found {
            guard let name = row[0] ?? nil else {
                columns = nil
                break
            }
            switch row[1] ?? nil {
            case "int2", "int4", "int8": columns?.append((name, true))
            case "text" where row[2] == "true", "varchar" where row[2] == "true": columns?.append((name, false))
            default: columns = nil
            }
        }
        keyTypesOfIndex[key.name] = .some(columns)
        return columns
    }
}
