/// The statements that apply one staging table's records to the target table (see
/// `PostgresImporter`), and the counts they give.
struct PostgresUpsert {
    let table: String
    let staging: String
    let columns: [String]
    let target: PostgresSchema.UniqueKey?
    let fallbackKey: PostgresSchema.UniqueKey?
    let policy: MergePolicy
    let schema: PostgresSchema
    /// `--delete-missing`: the primary key's columns, which the upserts return into
    /// `sqlimport_seen` for every row they insert or update (`noteSeenRows` finds the
    /// rows the others met by their keys).
    var seenKey: [String]? = nil
    /// The first pair (arriving, stored) `newerMixedForms` counted, kept across batches.
    var newerMixes: NewerMixes? = nil

    final class NewerMixes {
        var first: (arriving: String, stored: String)?
    }

    static let inside: Int = 1
    static let outside: Int = 2

    private func q(_ name: String) -> String { SQLIdentifier.quote(name) }
    private func list(_ names: [String], prefix: String = "") -> String { names.map { prefix + q($0) }.joined(separator: ", ") }
    private func row(_ names: [String], prefix: String) -> String { "(" + list(names, prefix: prefix) + ")" }

    /// The input's spelling of the key's columns (the staging table's).
    private func inputColumns(_ key: PostgresSchema.UniqueKey) -> [String]? {
        var names: [String] = []
        for column in key.columns {
            guard let match = columns.first(where: { $0 == column }) else { return nil }
            names.append(match)
        }
        return names
    }

    /// Applies the staging table's records. `insertsOnly` says that the target table
    /// started empty and no record of this run has met a row yet: a batch without a
    /// repeated key then goes in with one plain `INSERT` (see `insertAllNew`), and the
    /// first conflict turns it off for the rest of the run.
    func apply(
        _ connection: PostgresConnection, counts: inout OutcomeCounts, rounds: Int, nullKey: ImportOptions.NullKeyPolicy, insertsOnly: inout Bool,
        setAside: inout [(sequence: Int64, why: String)], position: (Int64) -> SourcePosition
    ) throws {
        guard let target, let key = inputColumns(target) else {
            try insertAll(connection, counts: &counts)
            return
        }
        // (Under NULLS NOT DISTINCT a NULL key column matches a NULL: no record is outside
        // for it.)
        let complete = target.nullsNotDistinct ? "TRUE" : key.map { "\(q($0)) IS NOT NULL" }.joined(separator: " AND ")
        let predicate = target.predicate.map { "(\($0)) IS TRUE AND " } ?? ""
        // 1. Route: inside the target, or outside it (a NULL key column, or a partial
        //    index's predicate not true). Counted in one pass; records arrive inside (the
        //    column's default), and only those outside are written.
        let outsideRoute = "NOT (\(predicate)\(complete))"
        let tally = try connection.query(
            """
            SELECT count(*) FILTER (WHERE \(outsideRoute)),
                   count(*) FILTER (WHERE (\(target.predicate ?? "TRUE")) IS NOT TRUE),
                   count(*)
            FROM \(staging)
            """
        ).first ?? []
        let number: (Int) -> Int = { index in index < tally.count ? Int(tally[index] ?? "0") ?? 0 : 0 }
        let outsideCount = number(0)
        // As SQLite counts them: records the partial index's predicate leaves out (not
        // those inside it with a NULL key column).
        counts.outsidePartialIndex += number(1)
        if outsideCount > 0 {
            try connection.execute("UPDATE \(staging) SET sqlimport_route = \(Self.outside) WHERE \(outsideRoute)")
        }
        let primary = fallbackKey.flatMap(inputColumns)
        if outsideCount > 0 && primary == nil {
            let first = try connection.query("SELECT min(sqlimport_seq) FROM \(staging) WHERE sqlimport_route = \(Self.outside)")
            let where_ = position(Int64(first.first?[0] ?? "0") ?? 0)
            if nullKey == .skip {
                // Set aside as on SQLite, which does so before it looks for repeated keys.
                let outside = try connection.query(
                    "SELECT sqlimport_seq, (\(target.predicate ?? "TRUE")) IS TRUE FROM \(staging) WHERE sqlimport_route = \(Self.outside) ORDER BY sqlimport_seq")
                for record in outside {
                    let why = record[1] == "t"
                        ? "has a NULL column, which a unique index never matches"
                        : "falls outside the partial index's predicate (WHERE \(target.predicate ?? ""))"
                    setAside.append((Int64(record[0] ?? "0") ?? 0, why))
                }
                counts.nullKey += outside.count
                try connection.execute("DELETE FROM \(staging) WHERE sqlimport_route = \(Self.outside)")
            } else if nullKey == .insert {
                counts.nullKey += outsideCount
                let inserted = try connection.query(
                    "INSERT INTO \(table) (\(list(columns))) SELECT \(list(columns)) FROM \(staging) WHERE sqlimport_route = \(Self.outside) ORDER BY sqlimport_seq RETURNING 1")
                counts.inserted += inserted.count
                try connection.execute("DELETE FROM \(staging) WHERE sqlimport_route = \(Self.outside)")
            } else {
                let why = target.predicate != nil ? "has a NULL column or falls outside the partial index (WHERE \(target.predicate!))" : "has a NULL column"
                throw UpsertError.nullKey(position: where_, key: "(\(key.joined(separator: ", ")))", why: why)
            }
        }
        if insertsOnly && rounds <= 1 {
            if try insertAllNew(connection, records: number(2) - (primary == nil ? outsideCount : 0), counts: &counts) { return }
            insertsOnly = false
        }
        // 2. Rounds (`PostgresBatchPlan`): a row is touched once per statement.
        func applyRounds(checked: Bool) throws {
            for round in 1 ... max(rounds, 1) {
                if let primary, checked {
                    try checkIdentities(connection, key: key, primary: primary, round: round, position: position)
                }
                // 3. Apply each route with its conflict clause.
                try upsert(
                    connection, route: Self.inside, round: round, conflict: key, predicate: target.predicate, keyColumns: key + (primary ?? []),
                    guardIdentity: checked || primary == nil ? nil : .primaryKey(table: fallbackKey!.columns, input: primary!),
                    counts: &counts)
                if let primary {
                    try upsert(
                        connection, route: Self.outside, round: round, conflict: primary, predicate: nil, keyColumns: key + primary,
                        guardIdentity: checked ? nil : .key(table: target.columns, input: key), counts: &counts)
                }
            }
        }
        // The identity rule costs two index probes per record when checked before the
        // statements (`checkIdentities`). Almost every batch keeps it, so the statements
        // run first with the rule as a guard in their DO UPDATE (a record meeting a row
        // of another identity raises `identityGuardState`), and a record whose key finds
        // no row while its primary key does fails its INSERT (23505). Either failure
        // rolls the statements back, and the batch runs again with the full check, which
        // routes such records or names them as before.
        guard let primary, policy != .ignore, columns.contains(where: { !Set(key + primary).contains($0) }) else {
            try applyRounds(checked: true)
            return
        }
        try Self.defineIdentityGuard(connection)
        let before = counts
        try connection.execute("SAVEPOINT sqlimport_guarded")
        do {
            try applyRounds(checked: false)
            try connection.execute("RELEASE SAVEPOINT sqlimport_guarded")
        } catch {
            guard let refusal = error as? PostgresError, refusal.sqlState == Self.identityGuardState || refusal.sqlState == "23505" else { throw error }
            try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_guarded")
            try connection.execute("RELEASE SAVEPOINT sqlimport_guarded")
            counts = before
            try applyRounds(checked: true)
        }
    }

    /// The SQLSTATE the identity guard raises (a code of sqlimport's own).
    static let identityGuardState = "SQ001"

    /// The guard's function, in the session's temporary schema (once per transaction).
    private static func defineIdentityGuard(_ connection: PostgresConnection) throws(PostgresError) {
        try connection.execute(
            """
            CREATE OR REPLACE FUNCTION pg_temp.sqlimport_identity_guard() RETURNS boolean LANGUAGE plpgsql VOLATILE AS
            $$ BEGIN RAISE EXCEPTION USING ERRCODE = '\(identityGuardState)', MESSAGE = 'sqlimport: a record meets a row of another identity'; END $$
            """)
    }

    /// What a guarded statement's DO UPDATE compares between the row it found and the
    /// record: the table's columns and the record's (input spelling).
    enum IdentityGuard {
        case primaryKey(table: [String], input: [String])
        case key(table: [String], input: [String])
    }

    /// The SQLite target's identity rule: a record never merges into a row of another
    /// identity. A record inside the target whose key finds no row, but whose primary key
    /// finds a row with the same key (outside the predicate), updates that row through
    /// the primary key; with another key, it is an error. So is a record whose key finds
    /// a row while its primary key finds another.
    private func checkIdentities(_ connection: PostgresConnection, key: [String], primary: [String], round: Int, position: (Int64) -> SourcePosition) throws {
        let tableKey = target!.columns
        let tablePrimary = fallbackKey!.columns
        let predicate = target!.predicate.map { " WHERE (\($0)) IS TRUE" } ?? ""
        // One pass, two index probes per record: the row its key finds (`t`, inside the
        // predicate) and the row its primary key finds (`p`). Only records whose primary
        // key finds a row can break the rule, so only they come back:
        // - inside, no row by key: through the primary key when that row has the same
        //   key (outside the predicate), else an error;
        // - inside, a row by key with another primary key: an error;
        // - outside, the primary key's row with another key: an error.
        let keyAliases = tableKey.indices.map { "sqlimport_k\($0)" }
        let primaryAliases = tablePrimary.indices.map { "sqlimport_p\($0)" }
        let found = try connection.query(
            """
            SELECT s.sqlimport_seq, s.sqlimport_route, t.\(primaryAliases[0]) IS NOT NULL,
                   \(row(tableKey, prefix: "p.")) IS NOT DISTINCT FROM \(row(key, prefix: "s.")), \(list(primary, prefix: "s."))
            FROM \(staging) AS s
            JOIN \(schema.ownRows) AS p ON \(row(tablePrimary, prefix: "p.")) = \(row(primary, prefix: "s."))
            LEFT JOIN (SELECT \(zip(tableKey, keyAliases).map { "\(q($0)) AS \($1)" }.joined(separator: ", ")), \(zip(tablePrimary, primaryAliases).map { "\(q($0)) AS \($1)" }.joined(separator: ", ")) FROM \(schema.ownRows)\(predicate)) AS t
              ON s.sqlimport_route = \(Self.inside) AND \(zip(keyAliases, key).enumerated().map { target!.matches("t.\($1.0)", "s.\(q($1.1))", column: $0) }.joined(separator: " AND "))
            WHERE s.sqlimport_round = \(round) AND (
              (s.sqlimport_route = \(Self.inside) AND (t.\(primaryAliases[0]) IS NULL
                 OR (\(primaryAliases.map { "t.\($0)" }.joined(separator: ", ")), NULL) IS DISTINCT FROM (\(list(primary, prefix: "s.")), NULL)))
              OR (s.sqlimport_route = \(Self.outside) AND \(row(tableKey, prefix: "p.")) IS DISTINCT FROM \(row(key, prefix: "s."))))
            ORDER BY s.sqlimport_seq
            """)
        var throughPrimaryKey: [String] = []
        for record in found {
            let sequence = record[0] ?? "0"
            let inside = record[1] == "\(Self.inside)"
            let byKey = record[2] == "t"
            let sameKey = record[3] == "t"
            if inside && !byKey && sameKey {
                throughPrimaryKey.append(sequence)
                continue
            }
            throw PostgresError(
                kind: .data,
                message: "the record's key and its primary key (\(primary.joined(separator: ", "))) = (\(record.dropFirst(4).map { $0 ?? "NULL" }.joined(separator: ", "))) belong to different rows, so applying it would merge two rows into one; fix the record's keys in the input, or delete the stale row first",
                position: position(Int64(sequence) ?? 0))
        }
        if !throughPrimaryKey.isEmpty {
            try connection.execute(
                "UPDATE \(staging) SET sqlimport_route = \(Self.outside) WHERE sqlimport_seq IN (\(throughPrimaryKey.joined(separator: ", ")))")
        }
    }

    /// `INSERT ... SELECT ... ON CONFLICT (conflict) [WHERE predicate] DO UPDATE SET ...
    /// WHERE newer AND changed RETURNING (xmax = 0)`.
    private func upsert(
        _ connection: PostgresConnection, route: Int, round: Int, conflict: [String], predicate: String?, keyColumns: [String],
        guardIdentity: IdentityGuard? = nil, counts: inout OutcomeCounts
    ) throws {
        let selected = "sqlimport_route = \(route) AND sqlimport_round = \(round)"
        // How the conflict's index compares a key column (`UniqueKey.matches`).
        let conflictIndex = route == Self.inside ? target : fallbackKey
        let same: (String, String, Int) -> String = { conflictIndex?.matches($0, $1, column: $2) ?? "\($0) = \($1)" }
        let records = try count(connection, "SELECT count(*) FROM \(staging) WHERE \(selected)")
        guard records > 0 else { return }
        let row = "sqlimport_row"
        let keys = Set(keyColumns)
        let assigned = columns.filter { !keys.contains($0) }
        let newValue: (String) -> String = { column in
            policy == .coalesce ? "coalesce(EXCLUDED.\(q(column)), \(row).\(q(column)))" : "EXCLUDED.\(q(column))"
        }
        var newer = "TRUE"
        var skipped = 0
        var sequencesBefore: (met: Int, passed: Int, skipped: Int)?
        // Whether the WHERE counts the outcomes (see below): a DO UPDATE on a table with
        // BEFORE row triggers.
        let countsInWhere = schema.hasBeforeRowTriggers && policy != .ignore && !assigned.isEmpty
        // The staged records of this round that meet a row (`s`, and the row as `row`).
        let metRows = predicate.map { "(SELECT * FROM \(schema.ownRows) WHERE (\($0)) IS TRUE)" } ?? schema.ownRows
        let meetingRows = """
            FROM \(staging) AS s JOIN \(metRows) AS \(row) ON \(conflict.enumerated().map { same("\(row).\(q($1))", "s.\(q($1))", $0) }.joined(separator: " AND "))
            WHERE s.\(selected.replacingOccurrences(of: " AND ", with: " AND s."))
            """
        if case .newer(let column) = policy {
            // A record without the column arrives with the column's default, as on
            // SQLite (EXCLUDED holds the row the insert proposed, defaults included).
            let storedName = schema.column(named: column)?.name ?? column
            let stored = "\(row).\(q(storedName))"
            let input = columns.first(where: { NameKey($0) == NameKey(column) }) ?? columns.first(where: { $0.sqliteFolded == column.sqliteFolded })
            let arriving = "EXCLUDED.\(q(input ?? storedName))"
            // (A default that takes a sequence's value is left out of the count, as NULL: it
            // would take one per record.)
            let arrivingInStaging = try input.map { "s.\(q($0))" }
                ?? schema.defaultExpression(of: storedName, connection).flatMap { $0.contains("nextval(") ? nil : "(\($0))" } ?? "NULL"
            newer = "(\(stored) IS NULL OR \(arriving) >= \(stored))"
            let newerInStaging = "(\(stored) IS NULL OR \(arrivingInStaging) >= \(stored))"
            // (With BEFORE triggers the DO UPDATE's WHERE counts them: `countsInWhere`.)
            if !countsInWhere {
                skipped = try count(connection, "SELECT count(*) \(meetingRows) AND \(newerInStaging) IS NOT TRUE")
            }
            // A text column orders its values byte by byte (by collation), not by time: the
            // comparisons of values of other forms are counted, as on SQLite
            // (`OutcomeCounts.newerMixedForms`).
            if let type = schema.column(named: storedName)?.baseType, PostgresValueCheck.isText(type), arrivingInStaging != "NULL" {
                let form = { (value: String) in "regexp_replace(\(value)::text, '[0-9A-Za-z]', '0', 'g')" }
                let found = try connection.query(
                    "SELECT count(*), (array_agg(\(arrivingInStaging)::text))[1], (array_agg(\(stored)::text))[1] \(meetingRows) AND \(form(arrivingInStaging)) <> \(form(stored))"
                ).first ?? []
                let mixed = found.first.flatMap { $0.flatMap { Int($0) } } ?? 0
                counts.newerMixedForms += mixed
                if mixed > 0, let newerMixes, newerMixes.first == nil, found.count == 3 {
                    newerMixes.first = ("'\(found[1] ?? "")'", "'\(found[2] ?? "")'")
                }
            }
        }
        let conflictClause = "ON CONFLICT (\(list(conflict)))" + (predicate.map { " WHERE \($0)" } ?? "")
        let action: String
        if policy == .ignore || assigned.isEmpty {
            action = "DO NOTHING"
        } else {
            let set = assigned.map { "\(q($0)) = \(newValue($0))" }.joined(separator: ", ")
            // Compared as text where the type's equality is looser than the record's text
            // (as SQLite compares values exactly): `json` has no equality; `jsonb`
            // {"a": 1.0} = {"a": 1} and `citext` Bob = bob, where the record's text is kept
            // as written. (Not `numeric` or floats: a JSON number is read as a double, so
            // the record has no spelling of its own, and its value decides.)
            // And as text under "C" where the column's collation is non-deterministic:
            // `ALICE` met `alice` as unchanged, and the row kept the old spelling (text,
            // for citext's equality ignores case under any collation).
            let comparable: (String, String) -> String = { column, value in
                let stored = schema.column(named: column)
                if stored?.collationIgnoresBytes == true { return "((\(value))::text COLLATE \"C\")" }
                return Self.comparesAsText(stored?.baseType ?? "") ? "(\(value))::text" : value
            }
            let changed = "(\(assigned.map { comparable($0, "\(row).\(q($0))") }.joined(separator: ", ")), NULL) IS DISTINCT FROM (\(assigned.map { comparable($0, newValue($0)) }.joined(separator: ", ")), NULL)"
            var condition = "\(newer) AND \(changed)"
            if countsInWhere {
                // A BEFORE trigger that returns NULL leaves a record out of RETURNING, as
                // the WHERE leaves out an unchanged one. So the WHERE counts, in three
                // temporary sequences (CASE fixes the order), the records that met a row,
                // those `newer` skipped, and those it let through to the update: those
                // let through but not returned, and those that met no row and were not
                // inserted, were left out by a trigger. (Comparing the staged values
                // instead took a record a trigger normalizes, upper(v) say, for one left
                // out; and a trigger may set the column `newer` compares.)
                for name in ["sqlimport_met", "sqlimport_passed", "sqlimport_skipped"] {
                    try connection.execute("CREATE TEMP SEQUENCE IF NOT EXISTS \(name)")
                }
                condition = "CASE WHEN nextval('pg_temp.sqlimport_met') > 0 THEN (CASE WHEN (\(newer)) IS NOT TRUE THEN nextval('pg_temp.sqlimport_skipped') < 0 "
                    + "WHEN \(changed) THEN nextval('pg_temp.sqlimport_passed') > 0 ELSE false END) END"
                sequencesBefore = try sequenceValues(connection)
            }
            switch guardIdentity {
            case .primaryKey(let table, let input), .key(let table, let input):
                condition = "CASE WHEN \(self.row(table, prefix: "\(row).")) IS DISTINCT FROM \(self.row(input, prefix: "EXCLUDED.")) THEN pg_temp.sqlimport_identity_guard() ELSE \(condition) END"
            case nil: break
            }
            action = "DO UPDATE SET \(set) WHERE \(condition)"
        }
        // Inserted or updated: `xmax = 0`, but a partitioned table has no system column to
        // return (every upsert that met a row stopped, exit 70). There, whether a row the
        // key finds was there before: a subquery of the statement sees the table as it was
        // when the statement began (not the rows it inserts, and an updated row's old
        // version).
        // A BEFORE UPDATE trigger may change the key the record met the row by: the row
        // was there before by its primary key too (an inserted row's primary key was
        // no row's, or the insert failed), as long as the trigger left that alone.
        var wasThere = ["EXISTS (SELECT FROM \(metRows) AS sqlimport_before WHERE \(conflict.enumerated().map { same("sqlimport_before.\(q($1))", "\(row).\(q($1))", $0) }.joined(separator: " AND ")))"]
        if let primary = schema.primaryKey?.columns, Set(primary) != Set(conflict) {
            wasThere.append("EXISTS (SELECT FROM \(schema.ownRows) AS sqlimport_before WHERE \(primary.map { "sqlimport_before.\(q($0)) = \(row).\(q($0))" }.joined(separator: " AND ")))")
        }
        let wasInserted = schema.isPartitioned ? "NOT (\(wasThere.joined(separator: " OR ")))" : "(xmax = 0)"
        var upsert = """
            INSERT INTO \(table) AS \(row) (\(list(columns))) SELECT \(list(columns)) FROM \(staging)
            WHERE \(selected) ORDER BY sqlimport_seq \(conflictClause) \(action) RETURNING \(wasInserted)
            """
        if let seenKey {
            // The row as the statement left it: a BEFORE UPDATE trigger that changed its
            // key left it where the record's key no longer finds it, and
            // `--delete-missing` deleted the row the record had just updated.
            // (The CTE names its columns: a key column named sqlimport_inserted was
            // ambiguous.)
            let keys = seenKey.indices.map { "sqlimport_k\($0)" }
            upsert = """
                WITH sqlimport_upserted (sqlimport_inserted, \(keys.joined(separator: ", "))) AS (\(upsert), \(list(seenKey, prefix: "\(row).")))
                , sqlimport_noted AS (INSERT INTO sqlimport_seen SELECT \(keys.joined(separator: ", ")) FROM sqlimport_upserted)
                SELECT sqlimport_inserted FROM sqlimport_upserted
                """
        }
        let returned = try connection.query(upsert)
        let inserted = returned.filter { $0[0] == "t" }.count
        counts.inserted += inserted
        counts.updated += returned.count - inserted
        if policy == .ignore {
            counts.skipped += records - returned.count
        } else {
            if let before = sequencesBefore {
                let after = try sequenceValues(connection)
                let met = after.met - before.met - 1
                let passed = after.passed - before.passed - 1
                let skippedThere = after.skipped - before.skipped - 1
                counts.skipped += skippedThere
                counts.unchanged += met - passed - skippedThere
                counts.ignored += (passed - (returned.count - inserted)) + (records - met - inserted)
            } else {
                counts.skipped += skipped
                counts.unchanged += records - returned.count - skipped
            }
        }
    }

    /// The next values of the two sequences the WHERE of `upsert` counts with.
    private func sequenceValues(_ connection: PostgresConnection) throws -> (met: Int, passed: Int, skipped: Int) {
        let row = try connection.query("SELECT nextval('pg_temp.sqlimport_met'), nextval('pg_temp.sqlimport_passed'), nextval('pg_temp.sqlimport_skipped')").first ?? []
        let values = row.map { Int($0 ?? "0") ?? 0 } + [0, 0, 0]
        return (values[0], values[1], values[2])
    }

    /// Types whose equality calls two different spellings equal (or, `json`, that have
    /// none), and arrays of them: `json[]` stopped every upsert ("could not identify an
    /// equality operator"), and `jsonb[]` and `citext[]` kept the old spelling.
    /// (`format_type` qualifies a type outside the search path: `public.citext`.)
    static func comparesAsText(_ type: String) -> Bool {
        let element = PostgresArrayText.elementType(of: type) ?? type
        return ["json", "jsonb", "citext"].contains(element.split(separator: ".").last.map(String.init) ?? element)
    }

    /// Inserts every record with a plain `INSERT` (no conflict clause: no speculative
    /// insertion, one statement for both routes), inside a savepoint. It succeeds exactly
    /// when no record meets a row, when the upserts would have inserted every record; a
    /// unique violation rolls it back and returns false, for the upserts to run.
    private func insertAllNew(_ connection: PostgresConnection, records: Int, counts: inout OutcomeCounts) throws -> Bool {
        try connection.execute("SAVEPOINT sqlimport_inserts")
        let inserted: Int
        do {
            inserted = try connection.executeCounting(
                "INSERT INTO \(table) (\(list(columns))) SELECT \(list(columns)) FROM \(staging) ORDER BY sqlimport_seq")
        } catch {
            guard error.sqlState == "23505" else { throw error }
            try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_inserts")
            try connection.execute("RELEASE SAVEPOINT sqlimport_inserts")
            return false
        }
        try connection.execute("RELEASE SAVEPOINT sqlimport_inserts")
        counts.inserted += inserted
        // No record met a row: one left out was left out by a BEFORE trigger that
        // returned NULL, ignored, as SQLite counts a trigger's RAISE(IGNORE).
        counts.ignored += records - inserted
        return true
    }

    /// No conflict target: every record is inserted.
    private func insertAll(_ connection: PostgresConnection, counts: inout OutcomeCounts) throws {
        let records = try count(connection, "SELECT count(*) FROM \(staging)")
        let inserted = try count(
            connection,
            "WITH added AS (INSERT INTO \(table) (\(list(columns))) SELECT \(list(columns)) FROM \(staging) ORDER BY sqlimport_seq RETURNING 1) SELECT count(*) FROM added")
        counts.inserted += inserted
        // Left out by a BEFORE trigger that returned NULL.
        counts.ignored += records - inserted
    }

    private func count(_ connection: PostgresConnection, _ sql: String) throws -> Int {
        Int(try connection.query(sql).first?[0] ?? "0") ?? 0
    }
}
