extension PostgresRun {
    /// Writes a first load's batch with one `COPY` straight into the table, skipping the
    /// staging table and the upsert statements, and returns true; or returns false,
    /// having written nothing, for the staging route to write the batch.
    ///
    /// While the table holds only this run's rows (`insertsOnly`), a batch whose records
    /// each have a key of their own (one round) inserts every record,
    /// exactly when none of them meets a row: then the upserts would have inserted them
    /// all. A record that meets a row (another session's, or an earlier record's primary
    /// key) makes the COPY fail with a unique violation; it is rolled back to a savepoint
    /// and the run goes back to the staging route for good. Records are routed as the
    /// staging route would: a record outside the target (a NULL key column, or outside a
    /// partial index) needs the primary key, and a partial index's predicate must be one
    /// that the record's cells decide (`NullTestPredicate`), since the count of records
    /// outside it is reported.
    func copyIntoTable(rows: [Int], fields: [Int], rounds: [Int32], of batch: RecordBatch) throws -> Bool {
        guard let target, try copiesIntoTable(), rows.allSatisfy({ rounds[$0] == 1 }) else { return false }
        func field(_ column: String) -> Int? {
            fields.first { columnOfField[$0].map { NameKey($0) } == NameKey(column) } ?? fields.first { columnOfField[$0]?.sqliteFolded == column.sqliteFolded }
        }
        var tests: [(field: Int, isNull: Bool)] = []
        if let text = target.predicate {
            guard let predicate = NullTestPredicate(text) else { return false }
            for test in predicate.tests {
                guard !compositeColumns.contains(test.column), let found = fields.first(where: { columnOfField[$0] == test.column }) else { return false }
                tests.append((found, test.isNull))
            }
        }
        var keyFields: [Int] = []
        for column in target.columns {
            guard let found = field(column) else { return false }
            keyFields.append(found)
        }
        let primaryInInput = fallbackKey.map { $0.columns.allSatisfy { field($0) != nil } } ?? false
        var outsidePredicate = 0
        var outsideTarget = 0
        for row in rows {
            let width = batch.rowEnd(row) - batch.rowStarts[row]
            func isNull(_ field: Int) -> Bool {
                guard field < width else { return true }
                let kind = batch.cell(row: row, column: field).kind
                return kind == .null || kind == .absent
            }
            let inPredicate = tests.allSatisfy { isNull($0.field) == $0.isNull }
            if !inPredicate { outsidePredicate += 1 }
            if !inPredicate || keyFields.contains(where: isNull) { outsideTarget += 1 }
        }
        if outsideTarget > 0 && !primaryInInput { return false }
        let columns = fields.map { columnOfField[$0]! }
        var first: Int64 = 0
        try connection.execute("SAVEPOINT sqlimport_inserts")
        let copied: Int
        do {
            copied = try copy(
                into: "\(schema.qualifiedName) (\(SQLIdentifier.quoteList(columns)))", rows: rows, fields: fields, rounds: nil, of: batch,
                firstSequence: &first)
        } catch {
            guard let failure = error as? PostgresError, failure.sqlState == "23505" else { throw error }
            try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_inserts")
            try connection.execute("RELEASE SAVEPOINT sqlimport_inserts")
            insertsOnly = false
            return false
        }
        try connection.execute("RELEASE SAVEPOINT sqlimport_inserts")
        summary.counts.inserted += copied
        // A BEFORE trigger that returns NULL leaves a record out: ignored, as on SQLite.
        summary.counts.ignored += rows.count - copied
        summary.counts.outsidePartialIndex += outsidePredicate
        return true
    }

    /// Whether the table takes a COPY as it takes an INSERT: a plain or partitioned table
    /// without rewrite rules on INSERT (COPY applies none), without row-level security
    /// (COPY FROM refuses it), and without a `GENERATED ALWAYS AS IDENTITY` column (COPY
    /// writes the given value where INSERT refuses it).
    func copiesIntoTable() throws -> Bool {
        if let known = tableTakesCopy { return known }
        let found = try connection.query(
            """
            SELECT c.relkind IN ('r', 'p') AND NOT c.relrowsecurity
              AND NOT EXISTS (SELECT FROM pg_rewrite r WHERE r.ev_class = c.oid AND r.ev_type = '3')
              AND NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attidentity = 'a'),
              (SELECT string_agg(a.attname, E'\\x1f') FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
               WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND t.typtype IN ('c', 'd'))
            FROM pg_class c WHERE c.oid = $1::regclass
            """,
            [schema.qualifiedName])
        let takes = found.first?[0] == "t"
        tableTakesCopy = takes
        // A row type's IS NULL tests its fields, not the value: such a column (or a
        // domain, which may be one) is decided by the server, not from the cell.
        compositeColumns = Set((found.first?[1] ?? nil)?.split(separator: "\u{1F}").map(String.init) ?? [])
        return takes
    }
}
