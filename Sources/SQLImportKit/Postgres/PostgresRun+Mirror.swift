/// The sync mirror on PostgreSQL (`MirrorOptions`, docs/mirror.md), with the SQLite
/// target's rules: tombstones delete their rows in order with the other records, and
/// after the last record `--delete-missing` deletes the rows in scope that no record
/// inserted or landed on, under `--max-delete`, in the run's transaction.
///
/// Seen rows are told by their primary keys, gathered in a temporary table as batches are
/// applied (a batch rolled back to its savepoint takes its keys with it). The candidates
/// are the primary keys the table held when the run began, copied at its start, so that a
/// row another session inserts during the run is never deleted.
extension PostgresRun {
    /// Checks the mirror's options against the table and the input, and copies the
    /// candidates, before the first batch is written.
    func prepareMirror(fieldsAreFinal: Bool) throws {
        let mirror = options.mirror
        guard mirror.isActive, !mirrorPrepared else { return }
        mirrorPrepared = true
        guard target != nil else { throw MirrorError.needsUpsert }
        scopeColumns = try mirror.scope.map { name in
            guard let column = schema.column(named: name) else { throw MirrorError.scopeNotAColumn(column: name, table: schema.table) }
            guard let field = columnOfField.firstIndex(where: { $0.map { NameKey($0) } == NameKey(column.name) }) else { throw MirrorError.scopeNotInInput(column: name, fieldsAreFinal: fieldsAreFinal) }
            return (field, column.name)
        }
        if let tombstone = mirror.tombstone {
            tombstoneField = fieldNames.firstIndex { $0.sqliteFolded == tombstone.field.sqliteFolded }
        }
        guard mirror.deleteMissing else { return }
        guard let primary = schema.primaryKey else {
            throw ImportError.conflictingOptions(
                "--delete-missing tells seen rows by their primary key on PostgreSQL, and \(SQLIdentifier.quote(schema.table)) has none; add one, or mirror it with a separate DELETE")
        }
        // With --commit-every the candidates and the rows seen outlive each checkpoint's
        // commit (they go with the session); a resumed run finds the rows its passed-over
        // records landed on (`noteCommittedRowsSeen`).
        let lifetime = options.commitEvery == nil ? "ON COMMIT DROP" : "ON COMMIT PRESERVE ROWS"
        let keys = SQLIdentifier.quoteList(primary.columns)
        let copied: Int
        if let runLog, options.commitEvery != nil {
            // Kept in the log's schema, committed with the first checkpoint, so that a
            // resumed run goes on with the interrupted run's candidates: copied anew, they
            // took in the rows other sessions committed during that run, which it then
            // deleted (helper-70). Dropped when the run ends.
            candidatesTable = runLog.candidatesTable(target: requestedTable)
            let kept = try connection.query("SELECT to_regclass($1) IS NOT NULL", [candidatesTable]).first?[0] == "t"
            // Only when this run goes on with the interrupted one: its first input is
            // resumed (a first input read afresh makes every input read afresh).
            if kept && resumeOffsetOfInput[0] != nil {
                copied = Int(try connection.query("SELECT count(*) FROM \(candidatesTable)").first?[0].flatMap { $0 } ?? "0") ?? 0
            } else {
                try connection.execute("DROP TABLE IF EXISTS \(candidatesTable)")
                copied = try connection.executeCounting("CREATE TABLE \(candidatesTable) AS SELECT \(keys) FROM \(schema.ownRows)")
            }
        } else {
            copied = try connection.executeCounting("CREATE TEMP TABLE sqlimport_candidates \(lifetime) AS SELECT \(keys) FROM \(schema.ownRows)")
        }
        try connection.execute("CREATE TEMP TABLE sqlimport_seen \(lifetime) AS SELECT \(keys) FROM \(schema.ownRows) WITH NO DATA")
        // The rows tombstones delete, as they were: `--max-delete`'s base is the rows in
        // scope before the run, those too (`deleteMissingRows`).
        try connection.execute("CREATE TEMP TABLE sqlimport_gone (LIKE \(schema.qualifiedName)) \(lifetime)")
        if copied > 0 {
            try connection.execute("CREATE INDEX ON sqlimport_seen (\(keys))")
        }
        tracksSeenRows = copied > 0
    }

    /// Notes the scope values of `row` as its upsert writes them (`keyText`; nil for NULL):
    /// a BLOB marker into a `bytea` column is its bytes, `1.0` into an integer column 1.
    /// (The record's own text was read by the column's type: a marker matched no row, and
    /// the rows its scope lacked were never deleted; `1.0` stopped the run after the input
    /// with no line.) A record whose scope value the column refuses lands nowhere, and
    /// adds no scope (here, or in `copyScopeValues` for what only the server refuses).
    /// Each distinct text is judged once (`scopeTexts`).
    func collectScope(row: Int, of batch: RecordBatch) {
        guard !scopeColumns.isEmpty else { return }
        let width = batch.rowEnd(row) - batch.rowStarts[row]
        batch.bytes.withUnsafeBufferPointer { buffer in
            let cells = scopeColumns.map { field, _ in field < width ? batch.cell(row: row, column: field) : .absent }
            let texts: [[UInt8]?] = cells.enumerated().map { index, cell in
                guard cell.kind != .null && cell.kind != .absent else { return nil }
                var text: [UInt8] = [cell.kind.rawValue | (cell.isBoolean ? 0x80 : 0)]
                let field = scopeColumns[index].field
                Self.appendText(of: cell, exact: batch.exactNumber(row: row, column: field, cell: cell), bytes: buffer.baseAddress!) { text.append(contentsOf: $0) }
                return text
            }
            guard scopeTexts.insert(texts).inserted else { return }
            var values: [[UInt8]?] = []
            for (cell, (field, _)) in zip(cells, scopeColumns) {
                guard cell.kind != .null && cell.kind != .absent else {
                    values.append(nil)
                    continue
                }
                guard let text = try? keyText(cell, field: field, row: row, of: batch, bytes: buffer.baseAddress!) else { return }
                values.append(Array(text.utf8))
            }
            scopeValues.insert(values)
        }
    }

    /// A tombstone's key value as its record's upsert would write it (`copyText`): a value
    /// the column would store otherwise than written (a zone a `timestamp` drops, a
    /// number past a double's precision) refuses the record, a BLOB marker into `bytea`
    /// is its bytes, `±1e999` an infinity, `3.0` into an integer column 3. (The raw text
    /// let PostgreSQL's cast drop the zone or the time of day, and the tombstone deleted
    /// another row; a marker never found its row.)
    private func keyText(_ cell: Cell, field: Int, row: Int, of batch: RecordBatch, bytes: UnsafePointer<UInt8>) throws -> String {
        let column = columnOfField[field]!
        let type = schema.column(named: column)?.baseType ?? ""
        let family = PostgresValueCheck.Family(type: type)
        let limit = PostgresValueCheck.Limit(type: type)
        let judged = PostgresValueCheck.serverJudges(cell, limit: limit, type: type, bytes: bytes)
        let droppedByServer = try judged.map { try !serverDrops([(batch.text(cell), $0)]).isEmpty } ?? false
        if let why = PostgresValueCheck.refusal(cell, family: family, bytes: bytes)
            ?? (limit == .none ? nil : PostgresValueCheck.refusal(cell, limit: limit, type: type, bytes: bytes, droppedByServer: droppedByServer))
        {
            let value = cell.kind == .integer ? String(cell.payload) : cell.kind == .real ? NumberText.shortest(cell.doubleValue) : batch.text(cell)
            throw PostgresError(kind: .data, message: "field \(SQLIdentifier.quote(fieldNames[field])) = \(value) \(why)", position: batch.position(row: row, inputName: inputNames[batch.inputIndex]))
        }
        let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
        if family == .bytea, let value = BlobMarker.decode(cell, bytes: bytes) ?? PostgresValueCheck.byteaText(cell, bytes: bytes).map(Array.init) {
            var hex: [UInt8] = []
            Self.appendByteaHex(value, to: &hex)
            // (COPY's text doubles the backslash; a parameter has one.)
            return String(decoding: hex.dropFirst(), as: UTF8.self)
        }
        if family == .double || family == .float || family == .numeric,
            cell.kind == .real ? cell.doubleValue.isInfinite : (cell.kind == .text || cell.kind == .untypedText) && NumberText.isInfinitySpelling(text)
        {
            let negative = cell.kind == .real ? cell.doubleValue < 0 : text.first == UInt8(ascii: "-")
            return negative ? "-Infinity" : "Infinity"
        }
        if family == .integer, let whole = PostgresValueCheck.wholeNumber(cell, bytes: bytes) { return String(whole) }
        // (A parameter is a C string: a NUL ended the key there, and the tombstone deleted
        // the row of the key's first part.)
        if cell.kind != .integer && cell.kind != .real && text.contains(0) { throw nulRefused(field: field, row: row, of: batch) }
        var out: [UInt8] = []
        Self.appendText(of: cell, exact: batch.exactNumber(row: row, column: field, cell: cell), bytes: bytes) { out.append(contentsOf: $0) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `row` is a tombstone (`--tombstone`).
    func isTombstone(row: Int, of batch: RecordBatch) -> Bool {
        guard let field = tombstoneField, let tombstone = options.mirror.tombstone, field < batch.rowEnd(row) - batch.rowStarts[row] else { return false }
        return tombstone.matches(batch.cell(row: row, column: field)) { batch.text($0) }
    }

    /// Deletes the rows `rows`' tombstones name, in order: by the primary key when the
    /// record supplies it, else by the conflict target (within a partial target's
    /// predicate). A foreign key that refuses the deletion refuses the record.
    func writeTombstones(rows: [Int], of batch: RecordBatch) throws {
        guard let target else { return }
        let byPrimaryKey = schema.primaryKey.flatMap { key in fields(of: key.columns).map { (key, $0) } }
        let byTarget = fields(of: target.columns).map { (target, $0) }
        for row in rows {
            summary.counts.tombstones += 1
            var found: (key: PostgresSchema.UniqueKey, values: [String?], predicate: String?)?
            if let (key, fields) = byPrimaryKey, let values = try keyValues(row: row, of: batch, key: key, fields: fields) {
                found = (key, values, nil)
            } else if let (key, fields) = byTarget, let values = try keyValues(row: row, of: batch, key: key, fields: fields) {
                found = (key, values, target.predicate)
            }
            guard let found else {
                summary.counts.tombstonesWithoutRow += 1
                continue
            }
            let matches = zip(found.key.columns, found.values.indices).map { found.key.matches(SQLIdentifier.quote($0), "$\($1 + 1)", column: $1) }
            var sql = "DELETE FROM \(schema.ownRows) WHERE \(matches.joined(separator: " AND "))"
                + (found.predicate.map { " AND (\($0))" } ?? "")
            sql = tracksSeenRows ? "WITH gone AS (\(sql) RETURNING *) INSERT INTO sqlimport_gone SELECT * FROM gone RETURNING 1" : sql + " RETURNING 1"
            let deleted: Int
            do {
                deleted = try connection.query(sql, found.values).count
            } catch {
                var refusal = error
                refusal.position = batch.position(row: row, inputName: inputNames[batch.inputIndex])
                refusal.message = "the tombstone's row cannot be deleted: \(refusal.message)"
                throw refusal
            }
            if deleted > 0 { summary.counts.deleted += deleted } else { summary.counts.tombstonesWithoutRow += 1 }
        }
    }

    /// At the end of a run that finished: drops the candidates a checkpointed
    /// `--delete-missing` run kept (`prepareMirror`), this run's or an earlier interrupted
    /// one's, which no later run would go on with. In a savepoint: a table another role
    /// owns stays, and the run commits.
    func dropKeptCandidates() throws {
        guard !options.dryRun, let schema = tableSchema else { return }
        let kept = runLog?.candidatesTable(target: requestedTable) ?? PostgresRunLog(schema: schema.schema).candidatesTable(target: schema.table)
        guard try connection.query("SELECT to_regclass($1) IS NOT NULL", [kept]).first?[0] == "t" else { return }
        try connection.execute("SAVEPOINT sqlimport_candidates")
        do {
            try connection.execute("DROP TABLE \(kept)")
            try connection.execute("RELEASE SAVEPOINT sqlimport_candidates")
        } catch {
            if (error as Error as? PostgresError)?.kind == .connection { throw error }
            try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_candidates")
        }
    }

    /// The input's fields of `columns`, or nil when it lacks one.
    private func fields(of columns: [String]) -> [Int]? {
        var found: [Int] = []
        for column in columns {
            guard let field = columnOfField.firstIndex(where: { $0 == column }) else { return nil }
            found.append(field)
        }
        return found
    }

    /// The values of `key`'s `fields` in `row` as the record's upsert would write them
    /// (`keyText`); nil when one is NULL, but in a NULLS NOT DISTINCT key.
    private func keyValues(row: Int, of batch: RecordBatch, key: PostgresSchema.UniqueKey, fields: [Int]) throws -> [String?]? {
        let width = batch.rowEnd(row) - batch.rowStarts[row]
        return try batch.bytes.withUnsafeBufferPointer { buffer in
            var texts: [String?] = []
            for field in fields {
                let cell = field < width ? batch.cell(row: row, column: field) : .absent
                guard cell.kind != .null && cell.kind != .absent else {
                    guard key.nullsNotDistinct else { return nil }
                    texts.append(nil)
                    continue
                }
                texts.append(try keyText(cell, field: field, row: row, of: batch, bytes: buffer.baseAddress!))
            }
            return texts
        }
    }

    /// `--resume` with `--delete-missing`: the rows that `rows`, records the interrupted
    /// run committed, landed on count as seen, without applying them again (that was no
    /// no-op: a row two of them changed went back through the first one's values, firing
    /// triggers, and broke a unique index another row held by then). Each row is found
    /// as `noteSeenRows` finds it, by the record's route (`routes`, from
    /// `write(meetingKeysOnly:)`): inside the target, by its key within the predicate;
    /// outside it (a NULL key column, or the predicate false on the record's cells), by
    /// the primary key it carries; where only the server could tell (a predicate on a
    /// cell the record lacks), both, so that no row it may have landed on is deleted. A
    /// record whose key the checks refuse was a reject and landed nowhere; a tombstone's
    /// row is gone.
    func noteCommittedRowsSeen(_ rows: [Int], routes: [Int?], of batch: RecordBatch) throws {
        guard tracksSeenRows, let primary = schema.primaryKey, let target else { return }
        let byTarget = fields(of: target.columns)
        let byPrimaryKey = fields(of: primary.columns)
        var targetKeys: [[String?]] = []
        var primaryKeys: [[String?]] = []
        for (index, row) in rows.enumerated() where !isTombstone(row: row, of: batch) {
            let route = index < routes.count ? routes[index] : nil
            do {
                if route != PostgresUpsert.outside, let byTarget, let values = try keyValues(row: row, of: batch, key: target, fields: byTarget) {
                    targetKeys.append(values)
                    if route == PostgresUpsert.inside { continue }
                }
                if let byPrimaryKey, let values = try keyValues(row: row, of: batch, key: primary, fields: byPrimaryKey) {
                    primaryKeys.append(values)
                }
            } catch let error as PostgresError where error.kind == .data {
                continue
            }
        }
        try noteSeen(targetKeys, key: target, rows: target.predicate.map { "(SELECT * FROM \(schema.ownRows) WHERE (\($0)) IS TRUE)" } ?? schema.ownRows)
        try noteSeen(primaryKeys, key: primary, rows: schema.ownRows)
    }

    /// The primary keys of the rows of `rows` (a table expression) that `keys`, values of
    /// `key`'s columns as `keyText` spells them, find join the seen rows.
    private func noteSeen(_ keys: [[String?]], key: PostgresSchema.UniqueKey, rows: String) throws {
        guard !keys.isEmpty, let primary = schema.primaryKey else { return }
        // Typed as the table's columns, so that each value is read as its upsert's was.
        try connection.execute("DROP TABLE IF EXISTS sqlimport_committed")
        try connection.execute(
            "CREATE TEMP TABLE sqlimport_committed ON COMMIT DROP AS SELECT \(SQLIdentifier.quoteList(key.columns)) FROM \(schema.ownRows) WITH NO DATA")
        try copyValues(keys.lazy.map { values in values.map { value in value.map { Array($0.utf8) } } }, into: "sqlimport_committed")
        let match = key.columns.enumerated().map { key.matches("t.\(SQLIdentifier.quote($1))", "k.\(SQLIdentifier.quote($1))", column: $0) }.joined(separator: " AND ")
        try connection.execute(
            "INSERT INTO sqlimport_seen SELECT \(primary.columns.map { "t.\(SQLIdentifier.quote($0))" }.joined(separator: ", ")) FROM \(rows) AS t JOIN sqlimport_committed AS k ON \(match)")
    }

    /// COPYs the scope values into `sqlimport_scope`, but for those the column refuses
    /// (`"abc"` into an integer column, whose record was refused too, and landed
    /// nowhere): as on SQLite, where such a value matches no row, they add no scope. (One
    /// stopped the run after the input, exit 65, naming no line.)
    private func copyScopeValues() throws {
        func attempt(_ values: some Sequence<[[UInt8]?]>) throws -> Bool {
            try connection.execute("SAVEPOINT sqlimport_scope")
            do {
                try copyValues(values, into: "sqlimport_scope")
            } catch let error as PostgresError where error.kind == .data {
                try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_scope")
                try connection.execute("RELEASE SAVEPOINT sqlimport_scope")
                return false
            }
            try connection.execute("RELEASE SAVEPOINT sqlimport_scope")
            return true
        }
        guard try !attempt(scopeValues) else { return }
        for value in scopeValues { _ = try attempt([value]) }
    }

    /// COPYs `rows`, each value's text (nil for NULL), into the temporary table `table`.
    private func copyValues(_ rows: some Sequence<[[UInt8]?]>, into table: String) throws {
        _ = try connection.copy("COPY \(table) FROM STDIN") { send in
            var out: [UInt8] = []
            for values in rows {
                for (index, value) in values.enumerated() {
                    if index > 0 { out.append(0x09) }
                    if let value { value.withUnsafeBytes { Self.appendEscaped($0, to: &out) } } else { out.append(contentsOf: [0x5C, 0x4E]) }
                }
                out.append(0x0A)
            }
            out.withUnsafeBytes(send)
        }
    }

    /// After `rows` of one shape were applied from `staging`: the primary keys of the rows
    /// they landed on join the seen rows. A record inside the target landed on the row its
    /// key finds (within the predicate), whatever primary key it carries: the identity
    /// rule lets a record whose primary key is in no row update that row. A record outside
    /// it (`sqlimport_route` 2) landed on the row of the primary key it carries.
    func noteSeenRows(staging: String, columns: [String]) throws {
        guard tracksSeenRows, let primary = schema.primaryKey, let target else { return }
        let match = target.columns.enumerated().map { target.matches("t.\(SQLIdentifier.quote($1))", "s.\(SQLIdentifier.quote($1))", column: $0) }.joined(separator: " AND ")
        // The predicate is evaluated on the table's rows alone, where its names are the
        // table's columns.
        let rows = target.predicate.map { "(SELECT * FROM \(schema.ownRows) WHERE (\($0)) IS TRUE)" } ?? schema.ownRows
        var sql = "INSERT INTO sqlimport_seen SELECT \(primary.columns.map { "t.\(SQLIdentifier.quote($0))" }.joined(separator: ", ")) FROM \(staging) AS s JOIN \(rows) AS t ON \(match) WHERE s.sqlimport_route = 1"
        let carried = primary.columns.allSatisfy { column in columns.contains { $0 == column } }
        if carried {
            let complete = primary.columns.map { "\(SQLIdentifier.quote($0)) IS NOT NULL" }.joined(separator: " AND ")
            sql += " UNION ALL SELECT \(SQLIdentifier.quoteList(primary.columns)) FROM \(staging) WHERE sqlimport_route = 2 AND \(complete)"
        }
        try connection.execute(sql)
    }

    /// After the input: deletes the rows in scope that were there before the run and
    /// that no record inserted or landed on, in one statement, under `--max-delete`.
    func deleteMissingRows() throws {
        // An input with no record wrote no batch: as on SQLite, it has no scope, and
        // without --scope every row is a candidate (under --max-delete 100% only).
        if !mirrorPrepared && options.mirror.deleteMissing && tableSchema != nil {
            guard options.mirror.scope.isEmpty else {
                summary.deleteCandidates = 0
                return
            }
            try prepareMirror(fieldsAreFinal: true)
        }
        guard options.mirror.deleteMissing, mirrorPrepared, let primary = schema.primaryKey, let target else { return }
        guard tracksSeenRows else {
            summary.deleteCandidates = 0
            return
        }
        // With --scope, an input with no record has no scope: nothing is a candidate.
        if !scopeColumns.isEmpty && scopeValues.isEmpty {
            summary.deleteCandidates = 0
            return
        }
        let keys = primary.columns.map(SQLIdentifier.quote)
        func same(_ alias: String) -> String { "(\(keys.map { "\(alias).\($0)" }.joined(separator: ", "))) = (\(keys.map { "t.\($0)" }.joined(separator: ", ")))" }
        var conditions = ["EXISTS (SELECT FROM \(candidatesTable) AS c WHERE \(same("c")))"]
        if !scopeColumns.isEmpty {
            let names = scopeColumns.map(\.column)
            try connection.execute(
                "CREATE TEMP TABLE sqlimport_scope ON COMMIT DROP AS SELECT \(SQLIdentifier.quoteList(names)) FROM \(schema.qualifiedName) WITH NO DATA")
            try copyScopeValues()
            conditions.append(
                "EXISTS (SELECT FROM sqlimport_scope AS s WHERE "
                    + names.map { "s.\(SQLIdentifier.quote($0)) IS NOT DISTINCT FROM t.\(SQLIdentifier.quote($0))" }.joined(separator: " AND ") + ")")
        }
        // Without the primary key in the input, rows the target cannot match (outside a
        // partial target, or with a NULL key column) are never candidates.
        let carried = primary.columns.allSatisfy { column in columnOfField.contains { $0 == column } }
        if !carried {
            if let predicate = target.predicate { conditions.append("(\(predicate))") }
            // (A NULLS NOT DISTINCT key matches a NULL: such a row is a candidate.)
            if !target.nullsNotDistinct { conditions += target.columns.map { "t.\(SQLIdentifier.quote($0)) IS NOT NULL" } }
        }
        let eligible = conditions.joined(separator: " AND ")
        let missing = "\(eligible) AND NOT EXISTS (SELECT FROM sqlimport_seen AS s WHERE \(same("s")))"
        let plan = "DELETE FROM \(schema.ownRows) AS t WHERE \(missing)"
        summary.statementSQL = (summary.statementSQL.map { $0 + "\n" } ?? "") + "-- after the input (--delete-missing):\n" + plan
        let counted = try connection.query(
            "SELECT count(*), count(*) FILTER (WHERE NOT EXISTS (SELECT FROM sqlimport_seen AS s WHERE \(same("s")))) FROM \(schema.ownRows) AS t WHERE \(eligible)"
        ).first ?? []
        // And the candidates tombstones deleted, each key once (deleted, made again and
        // deleted again is one row from before), but for a key a later record made again:
        // counted above.
        let gone = try connection.query(
            "SELECT count(*) FROM (SELECT DISTINCT ON (\(keys.joined(separator: ", "))) * FROM sqlimport_gone) AS t WHERE \(eligible) AND NOT EXISTS (SELECT FROM \(schema.ownRows) AS n WHERE \(same("n")))"
        ).first?.first.flatMap { $0 }.flatMap { Int($0) } ?? 0
        // (A resumed run's rows before it include those the interrupted run inserted.)
        let candidates = (Int(counted.first.flatMap { $0 } ?? "0") ?? 0) + gone
        let deletions = Int(counted.dropFirst().first.flatMap { $0 } ?? "0") ?? 0
        summary.deleteCandidates = candidates
        guard deletions > 0 else { return }
        // Records a BEFORE trigger left out withhold deletions, as SQLite's dropped ones do.
        guard try options.mirror.mayDelete(deletions, of: candidates, ignored: carriedIgnored + summary.counts.ignored, in: &summary) else { return }
        try connection.execute("SAVEPOINT sqlimport_delete")
        do {
            summary.counts.deleted += try connection.executeCounting(plan)
            try connection.execute("RELEASE SAVEPOINT sqlimport_delete")
        } catch {
            // A foreign key or a trigger (`RAISE EXCEPTION`) refused a deletion.
            guard error.kind == .data else { throw error }
            try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_delete")
            try connection.execute("RELEASE SAVEPOINT sqlimport_delete")
            try deleteOneByOne(missing: missing, keys: primary.columns)
        }
    }

    /// After a foreign key or a trigger refused the set-based deletion: each row on its
    /// own, to name the one refused (or, under `--on-error skip`, to keep the refused ones).
    private func deleteOneByOne(missing: String, keys: [String]) throws {
        let rows = try connection.query("SELECT \(keys.map { "t.\(SQLIdentifier.quote($0))::text" }.joined(separator: ", ")) FROM \(schema.ownRows) AS t WHERE \(missing)")
        let placeholders = keys.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
        for row in rows {
            let description = "(\(SQLIdentifier.quoteList(keys))) = (" + row.map { $0 ?? "NULL" }.joined(separator: ", ") + ")"
            try connection.execute("SAVEPOINT sqlimport_delete")
            do {
                summary.counts.deleted += try connection.query(
                    "DELETE FROM \(schema.ownRows) WHERE (\(SQLIdentifier.quoteList(keys))) = (\(placeholders)) RETURNING 1", row).count
                try connection.execute("RELEASE SAVEPOINT sqlimport_delete")
            } catch {
                guard error.kind == .data else { throw error }
                try connection.execute("ROLLBACK TO SAVEPOINT sqlimport_delete")
                try connection.execute("RELEASE SAVEPOINT sqlimport_delete")
                guard options.onError == .skip else { throw MirrorError.restricted(row: description, message: error.message) }
                try reject(RejectedRecord(
                    input: schema.table, line: 0, byteOffset: 0, reason: "--delete-missing kept row \(description): \(error.message)", record: nil))
            }
        }
    }
}
