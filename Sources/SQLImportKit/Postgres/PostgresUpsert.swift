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

    private static let inside: Int = 1
    private static let outside: Int = 2

    private func q(_ name: String) -> String { SQLIdentifier.quote(name) }
    private func list(_ names: [String], prefix: String = "") -> String { names.map { prefix + q($0) }.joined(separator: ", ") }
    private func row(_ names: [String], prefix: String) -> String { "(" + list(names, prefix: prefix) + ")" }

    /// The input's spelling of the key's columns (the staging table's).
    private func inputColumns(_ key: PostgresSchema.UniqueKey) -> [String]? {
        var names: [String] = []
        for column in key.columns {
            guard let match = columns.first(where: { $0.lowercased() == column.lowercased() }) else { return nil }
            names.append(match)
        }
        return names
    }

    func apply(
        _ connection: PostgresConnection, counts: inout OutcomeCounts, rounds: Int, nullKeyInserts: Bool,
        position: (Int64) -> SourcePosition
    ) throws {
        guard let target, let key = inputColumns(target) else {
            try insertAll(connection, counts: &counts)
            return
        }
        let complete = key.map { "\(q($0)) IS NOT NULL" }.joined(separator: " AND ")
        let predicate = target.predicate.map { "(\($0)) IS TRUE AND " } ?? ""
        // 1. Route: inside the target, or outside it (a NULL key column, or a partial
        //    index's predicate not true).
        // Records arrive inside (the column's default); only those outside are written.
        try connection.execute(
            "UPDATE \(staging) SET sqlimport_route = \(Self.outside) WHERE NOT (\(predicate)\(complete))")
        let primary = fallbackKey.flatMap(inputColumns)
        let outsideCount = try count(connection, "SELECT count(*) FROM \(staging) WHERE sqlimport_route = \(Self.outside) AND sqlimport_round > 0")
        // As SQLite counts them: records the partial index's predicate leaves out (not
        // those inside it with a NULL key column).
        if let filter = target.predicate {
            counts.outsidePartialIndex += try count(connection, "SELECT count(*) FROM \(staging) WHERE (\(filter)) IS NOT TRUE")
        }
        if outsideCount > 0 && primary == nil {
            let first = try connection.query("SELECT min(sqlimport_seq) FROM \(staging) WHERE sqlimport_route = \(Self.outside) AND sqlimport_round > 0")
            let where_ = position(Int64(first.first?[0] ?? "0") ?? 0)
            if nullKeyInserts {
                counts.nullKey += outsideCount
                let inserted = try connection.query(
                    "INSERT INTO \(table) (\(list(columns))) SELECT \(list(columns)) FROM \(staging) WHERE sqlimport_route = \(Self.outside) AND sqlimport_round > 0 ORDER BY sqlimport_seq RETURNING 1")
                counts.inserted += inserted.count
                try connection.execute("DELETE FROM \(staging) WHERE sqlimport_route = \(Self.outside)")
            } else {
                let why = target.predicate != nil ? "has a NULL column or falls outside the partial index (WHERE \(target.predicate!))" : "has a NULL column"
                throw UpsertError.nullKey(position: where_, key: "(\(key.joined(separator: ", ")))", why: why)
            }
        }
        // 2. Rounds (`PostgresBatchPlan`): a row is touched once per statement.
        for round in 1 ... max(rounds, 1) {
            if let primary {
                try checkIdentities(connection, key: key, primary: primary, round: round, position: position)
            }
            // 3. Apply each route with its conflict clause.
            try upsert(connection, route: Self.inside, round: round, conflict: key, predicate: target.predicate, keyColumns: key + (primary ?? []), counts: &counts)
            if let primary {
                try upsert(connection, route: Self.outside, round: round, conflict: primary, predicate: nil, keyColumns: key + primary, counts: &counts)
            }
        }
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
            JOIN \(table) AS p ON \(row(tablePrimary, prefix: "p.")) = \(row(primary, prefix: "s."))
            LEFT JOIN (SELECT \(zip(tableKey, keyAliases).map { "\(q($0)) AS \($1)" }.joined(separator: ", ")), \(zip(tablePrimary, primaryAliases).map { "\(q($0)) AS \($1)" }.joined(separator: ", ")) FROM \(table)\(predicate)) AS t
              ON s.sqlimport_route = \(Self.inside) AND \(zip(keyAliases, key).map { "t.\($0) = s.\(q($1))" }.joined(separator: " AND "))
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
        _ connection: PostgresConnection, route: Int, round: Int, conflict: [String], predicate: String?, keyColumns: [String], counts: inout OutcomeCounts
    ) throws {
        let selected = "sqlimport_route = \(route) AND sqlimport_round = \(round)"
        let records = try count(connection, "SELECT count(*) FROM \(staging) WHERE \(selected)")
        guard records > 0 else { return }
        let row = "sqlimport_row"
        let keys = Set(keyColumns.map { $0.lowercased() })
        let assigned = columns.filter { !keys.contains($0.lowercased()) }
        let newValue: (String) -> String = { column in
            policy == .coalesce ? "coalesce(EXCLUDED.\(q(column)), \(row).\(q(column)))" : "EXCLUDED.\(q(column))"
        }
        var newer = "TRUE"
        var skipped = 0
        if case .newer(let column) = policy {
            // A record without the column is older than any stored value, as on SQLite
            // (its value would be NULL).
            let storedName = schema.column(named: column)?.name ?? column
            let stored = "\(row).\(q(storedName))"
            let input = columns.first(where: { $0.lowercased() == column.lowercased() })
            let arriving = input.map { "EXCLUDED.\(q($0))" } ?? "NULL"
            newer = "(\(stored) IS NULL OR \(arriving) >= \(stored))"
            let rows = predicate.map { "(SELECT * FROM \(table) WHERE (\($0)) IS TRUE)" } ?? table
            skipped = try count(
                connection,
                """
                SELECT count(*) FROM \(staging) AS s JOIN \(rows) AS \(row) ON \(zip(conflict, conflict).map { "\(row).\(q($0)) = s.\(q($1))" }.joined(separator: " AND "))
                WHERE s.\(selected.replacingOccurrences(of: " AND ", with: " AND s.")) AND (\(stored) IS NULL OR \(input.map { "s.\(q($0))" } ?? "NULL") >= \(stored)) IS NOT TRUE
                """)
        }
        let conflictClause = "ON CONFLICT (\(list(conflict)))" + (predicate.map { " WHERE \($0)" } ?? "")
        let action: String
        if policy == .ignore || assigned.isEmpty {
            action = "DO NOTHING"
        } else {
            let set = assigned.map { "\(q($0)) = \(newValue($0))" }.joined(separator: ", ")
            // `json` has no equality: compared as its text (as SQLite compares it).
            let comparable: (String, String) -> String = { column, value in
                schema.column(named: column)?.type == "json" ? "(\(value))::text" : value
            }
            let changed = "(\(assigned.map { comparable($0, "\(row).\(q($0))") }.joined(separator: ", ")), NULL) IS DISTINCT FROM (\(assigned.map { comparable($0, newValue($0)) }.joined(separator: ", ")), NULL)"
            action = "DO UPDATE SET \(set) WHERE \(newer) AND \(changed)"
        }
        let returned = try connection.query(
            """
            INSERT INTO \(table) AS \(row) (\(list(columns))) SELECT \(list(columns)) FROM \(staging)
            WHERE \(selected) ORDER BY sqlimport_seq \(conflictClause) \(action) RETURNING (xmax = 0)
            """)
        let inserted = returned.filter { $0[0] == "t" }.count
        counts.inserted += inserted
        counts.updated += returned.count - inserted
        if policy == .ignore {
            counts.skipped += records - returned.count
        } else {
            counts.skipped += skipped
            counts.unchanged += records - returned.count - skipped
        }
    }

    /// No conflict target: every record is inserted.
    private func insertAll(_ connection: PostgresConnection, counts: inout OutcomeCounts) throws {
        let inserted = try count(
            connection,
            "WITH added AS (INSERT INTO \(table) (\(list(columns))) SELECT \(list(columns)) FROM \(staging) WHERE sqlimport_round > 0 ORDER BY sqlimport_seq RETURNING 1) SELECT count(*) FROM added")
        counts.inserted += inserted
    }

    private func count(_ connection: PostgresConnection, _ sql: String) throws -> Int {
        Int(try connection.query(sql).first?[0] ?? "0") ?? 0
    }
}
