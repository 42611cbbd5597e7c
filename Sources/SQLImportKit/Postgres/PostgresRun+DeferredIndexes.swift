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
///   integer types given integers, `keyColumnTypes`; no triggers, which could rewrite a
///   key). Any other batch builds the indexes first, and the load goes on through the
///   upserts;
/// - nothing is deferred where a drop would lose something or could not be undone
///   (`deferIndexes` lists each case), and other unique and exclusion indexes always
///   stay, so that a record breaking one is refused with its line.
///
/// Everything happens in the run's transaction: a failed run leaves the indexes as they
/// were.
extension PostgresRun {
    struct DeferredIndexes {
        var names: [String]
        /// `ALTER TABLE ... ADD CONSTRAINT` or `CREATE INDEX`, the primary key first.
        var restore: [String]
    }

    /// Drops the indexes a first load builds at its end, when it may (`batch` is the
    /// first one, whose key cells must already allow it).
    func deferIndexes(before batch: RecordBatch) throws {
        guard !indexDeferralDecided else { return }
        indexDeferralDecided = true
        guard options.postgresDefersIndexes, !options.dryRun, insertsOnly, let target, options.onError == .abort, options.commitEvery == nil,
            options.mirror.tombstone == nil, !options.mirror.deleteMissing, try copiesIntoTable(),
            try deferralHolds(rows: Array(0 ..< batch.rowCount), of: batch, meetsEarlierKeys: false)
        else { return }
        // The server and the table as a whole. DDL must be transactional, or a failed run
        // could not put the indexes back (YugabyteDB runs each DDL statement as its own
        // transaction; CockroachDB's schema changes are not atomic with the writes).
        // Not with: a statement timeout (one index build is one long statement), an
        // encoding other than UTF8 (text keys compared as the bytes sent), event triggers
        // (they would see DDL the user never asked for), a table this role does not own
        // (the drops need it), a partition (its indexes belong to its parent's), or
        // triggers (one may rewrite a key, so that two inputs' different bytes meet).
        let checks = try connection.query(
            """
            SELECT version(), (current_setting('server_version_num')::int >= 120000
              AND current_setting('statement_timeout') = '0' AND current_setting('server_encoding') IN ('UTF8', 'SQL_ASCII')
              AND NOT EXISTS (SELECT FROM pg_event_trigger WHERE evtenabled <> 'D')
              AND pg_has_role(c.relowner, 'USAGE') AND NOT c.relispartition
              AND NOT EXISTS (SELECT FROM pg_trigger WHERE tgrelid = c.oid AND NOT tgisinternal))::text
            FROM pg_class c WHERE c.oid = $1::regclass
            """,
            [schema.qualifiedName]
        ).first
        guard let version = checks?[0] ?? nil, !version.contains("-YB-"), !version.contains("Cockroach"), checks?[1] == "true" else { return }
        let keyIndexes = Set([target.name] + (fallbackKey.map { [$0.name] } ?? []))
        for key in [target] + (fallbackKey.map { [$0] } ?? []) {
            guard try keyColumnTypes(of: key) != nil else { return }
        }
        // Per index: what a drop would lose keeps it (with a key's index, nothing is
        // deferred): an index another object depends on (a foreign key), one that is an
        // extension's, the replica identity, the clustered one, one in a tablespace of
        // its own, NULLS NOT DISTINCT, a comment, a security label, statistics targets,
        // and a constraint's storage parameters (`pg_get_constraintdef` leaves out its
        // index's `WITH (...)`).
        let indexes = try connection.query(
            """
            SELECT ci.relname, (i.indisunique OR i.indisexclusion)::text, pg_get_indexdef(i.indexrelid), con.conname, pg_get_constraintdef(con.oid),
              (c.relkind <> 'r' OR i.indisclustered OR i.indisreplident OR NOT i.indisvalid OR NOT i.indisready OR ci.reltablespace <> 0
               OR (con.oid IS NOT NULL AND ci.reloptions IS NOT NULL)
               OR COALESCE((to_jsonb(i) ->> 'indnullsnotdistinct')::boolean, false)
               OR EXISTS (SELECT FROM pg_description d WHERE (d.classoid = 'pg_class'::regclass AND d.objoid = i.indexrelid)
                          OR (d.classoid = 'pg_constraint'::regclass AND d.objoid = con.oid))
               OR EXISTS (SELECT FROM pg_seclabel l WHERE (l.classoid = 'pg_class'::regclass AND l.objoid = i.indexrelid)
                          OR (l.classoid = 'pg_constraint'::regclass AND l.objoid = con.oid))
               OR EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = i.indexrelid AND COALESCE(a.attstattarget, -1) >= 0)
               OR EXISTS (SELECT FROM pg_depend dep WHERE dep.classid = 'pg_class'::regclass AND dep.objid = i.indexrelid AND dep.deptype IN ('e', 'x'))
               OR EXISTS (SELECT FROM pg_inherits h WHERE h.inhrelid = i.indexrelid OR h.inhparent = i.indexrelid)
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
                drops.append("ALTER TABLE ONLY \(schema.qualifiedName) DROP CONSTRAINT \(SQLIdentifier.quote(constraint))")
                deferred.restore.append("ALTER TABLE ONLY \(schema.qualifiedName) ADD CONSTRAINT \(SQLIdentifier.quote(constraint)) \(body)")
            } else {
                drops.append("DROP INDEX \(SQLIdentifier.quote(schema.schema)).\(SQLIdentifier.quote(name))")
                deferred.restore.append(definition)
            }
            deferred.names.append(name)
        }
        guard deferred.names.count >= keyIndexes.count else { return }
        // The lock, the table still empty under it, and the drops; or, when any of them
        // fails (another session holds a lock: 55P03; an engine without the lock; a
        // privilege), nothing deferred and the load goes on with its indexes.
        try connection.execute("SAVEPOINT sqlimport_defer")
        do {
            try connection.execute("LOCK TABLE ONLY \(schema.qualifiedName) IN ACCESS EXCLUSIVE MODE NOWAIT")
            guard try connection.query("SELECT NOT EXISTS (SELECT FROM \(schema.ownRows))").first?[0] == "t" else {
                try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_defer")
                try connection.execute("RELEASE SAVEPOINT sqlimport_defer")
                insertsOnly = false
                return
            }
            for statement in drops { try connection.execute(statement) }
        } catch {
            guard error.kind != .connection else { throw error }
            try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_defer")
            try connection.execute("RELEASE SAVEPOINT sqlimport_defer")
            return
        }
        try connection.execute("RELEASE SAVEPOINT sqlimport_defer")
        deferredIndexes = deferred
        summary.deferredIndexes = deferred.names
    }

    /// Whether `rows` may go in while the indexes are deferred: no record meets a key
    /// the run met before (`meetsEarlierKeys`, from the batch plan), and each integer key
    /// column holds integers, or text that spells one as its digits do (a CSV's `42`;
    /// not `" 1"`, `+1` or `01`, the same integer with other bytes).
    func deferralHolds(rows: [Int], of batch: RecordBatch, meetsEarlierKeys: Bool) throws -> Bool {
        guard !meetsEarlierKeys, let target else { return false }
        for key in [target] + (fallbackKey.map { [$0] } ?? []) {
            guard let columns = try keyColumnTypes(of: key) else { return false }
            for (column, isInteger) in columns where isInteger {
                guard let field = columnOfField.firstIndex(where: { $0 == column }) else { continue }
                for row in rows {
                    let width = batch.rowEnd(row) - batch.rowStarts[row]
                    guard field < width else { continue }
                    let cell = batch.cell(row: row, column: field)
                    switch cell.kind {
                    case .integer, .null, .absent: continue
                    case .text, .untypedText, .numberAsText:
                        guard cell.length > 0, Self.spellsAnInteger(UnsafeRawBufferPointer(start: batch.bytes.base + Int(cell.payload), count: Int(cell.length)))
                        else { return false }
                    case .real, .json: return false
                    }
                }
            }
        }
        return true
    }

    /// `0` or `-?[1-9][0-9]*`: the one way PostgreSQL prints the integer it reads.
    static func spellsAnInteger(_ text: UnsafeRawBufferPointer) -> Bool {
        var digits = text[...]
        if digits.first == 0x2D { digits = digits.dropFirst() }
        guard let first = digits.first, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        return first != 0x30 || (digits.count == 1 && text.count == 1)
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
    /// (a length trims the spaces beyond it) under a deterministic collation, each with its
    /// type's default operator class. nil otherwise (uuid, citext, numeric, char(n), and
    /// others accept one value spelled several ways).
    func keyColumnTypes(of key: PostgresSchema.UniqueKey) throws -> [(column: String, isInteger: Bool)]? {
        if let known = keyTypesOfIndex[key.name] { return known }
        let found = try connection.query(
            """
            SELECT a.attname, CASE WHEN op.opcdefault THEN t.typname END,
              (COALESCE((to_jsonb(co) ->> 'collisdeterministic')::boolean, true) AND a.atttypmod = -1)::text
            FROM pg_index i JOIN pg_class ci ON ci.oid = i.indexrelid
            CROSS JOIN LATERAL unnest(i.indkey::int2[], i.indcollation::oid[], i.indclass::oid[]) WITH ORDINALITY AS k(attnum, coll, class, ord)
            JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
            JOIN pg_type t ON t.oid = a.atttypid
            JOIN pg_opclass op ON op.oid = k.class
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
