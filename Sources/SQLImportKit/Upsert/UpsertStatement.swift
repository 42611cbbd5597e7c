/// Builds the SQL of an upsert (or a plain insert) for one set of input columns.
///
/// ```sql
/// INSERT INTO "items" ("id", "libraryID", "remoteID", "name") VALUES (?, ?, ?, ?)
/// ON CONFLICT ("libraryID", "remoteID") WHERE remoteID IS NOT NULL
///   DO UPDATE SET "name" = excluded."name"
///   WHERE sqlimport_identity(...) AND sqlimport_outcome(1, NOT ((("items"."name" COLLATE BINARY))
///     IS ((excluded."name"))), "items"._rowid_)
/// ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name"
///   WHERE sqlimport_identity(...) AND sqlimport_outcome(1, NOT (...), "items"._rowid_)
/// ```
///
/// - The conflict target's predicate is the index's own text, so SQLite's structural
///   comparison accepts it.
/// - `SET` never assigns key columns (the target's nor the primary key's); columns the
///   input lacks are not assigned either, so they keep their stored values.
/// - The `WHERE` skips rows whose values would not change (no rewrite, no WAL churn, no
///   update trigger), and `sqlimport_outcome` counts why a row was not updated. Values
///   compare exactly: binary collation whatever the column's, and the storage class too
///   where the column keeps it as given (`1` is not `1.0` in an untyped column).
/// - Columns of secondary indexes (`guardedColumns`, see `IndexedColumns`) are not
///   assigned, so SQLite leaves the index entries alone; `sqlimport_outcome` fails the
///   statement when such a value would change, and the writer then runs `fallback`,
///   which assigns every column, for the same records.
/// - With a partial target and its primary-key clause, `reordersKeyClauses` puts the
///   primary-key clause first: SQLite resolves that order twice as fast (bench/README.md,
///   "The mission's command on a re-run"). It updates the same row as long as the row with
///   the record's primary key also holds the record's target key; `sqlimport_outcome`
///   fails the statement for any other record, and `fallback` (target first) runs it.
///   `INSERT OR REPLACE` is never used: it deletes rows and breaks foreign keys.
package struct UpsertStatement: Sendable {
    package let table: String
    package let columns: [String]
    package let target: ConflictTarget?
    package let policy: MergePolicy
    /// Columns the `DO UPDATE SET` may assign: the input's columns but the key columns.
    package let updatedColumns: [String]
    /// Columns of `updatedColumns` left out of `SET` and checked to be unchanged instead.
    package let guardedColumns: [String]
    /// The primary-key clause comes before the target's (see above).
    package let reordersKeyClauses: Bool
    /// The statement that assigns every column, for records that change a guarded one.
    package let fallback: UpsertStatementFallback?
    /// True when conflicts are resolved with `DO NOTHING` (ignore, or nothing to set).
    package let doesNothingOnConflict: Bool
    /// Columns (lowercased) whose storage class is kept as given, so that equal values
    /// of different types (`1`, `1.0`) must still count as a change.
    let typelessColumns: Set<NameKey>
    /// Columns (lowercased) `SET` assigns from the record under every policy: enum case
    /// columns, which `coalesce` must still clear (`EnumGroup`).
    let replacedColumns: Set<NameKey>
    /// `INSERT OR ABORT`: the table declares a conflict clause sqlimport overrides
    /// (`TableSchema.overridesDeclaredConflictClauses`).
    let abortsOtherConflicts: Bool
    /// The conflicting row's rowid as the statement names it (`"items"._rowid_`), passed
    /// to `sqlimport_outcome` last, or `NULL` for a WITHOUT ROWID table.
    let rowidExpression: String
    /// How the statement names the stored row: the quoted table, or `sqlimport_row` for
    /// a table named `excluded`, which SQLite looks up before the upsert's `excluded`:
    /// every `excluded."v"` named the stored value, each record was unchanged, and no row
    /// of such a table was ever updated. (Only then: an alias hides the table's name,
    /// which an index's predicate may use, `WHERE t.deleted IS NULL`.)
    let storedRow: String
    /// The target's partial-index predicate as the statement must write it: its own text,
    /// or, under the alias `storedRow`, with the table's name as a qualifier replaced by
    /// the alias (`excluded.deleted IS NULL` stopped every record: "no such column").
    let targetPredicate: String?

    /// The SQL function the `DO UPDATE ... WHERE` calls: `sqlimport_outcome(isNewer,
    /// isChanged, rowid)`, or, in a guarded statement, `sqlimport_outcome(isNewer,
    /// isChanged, keepsGuardedValues, isTheTargetsRow, rowid)`.
    static let outcomeFunction = "sqlimport_outcome"
    /// Counts the `newer` comparisons of values of different forms (`OutcomeCounters`).
    static let newerFormFunction = "sqlimport_newer_form"
    /// `sqlimport_identity(isSameRecord)`: fails the statement when false (see `action`).
    static let identityFunction = "sqlimport_identity"

    /// - Parameters:
    ///   - guardable: lowercased columns that may be left out of `SET` (`IndexedColumns`).
    ///   - mayReorderKeyClauses: whether the primary-key clause may come first.
    ///   - typelessColumns: lowercased columns with no type affinity (untyped or `ANY`).
    package init(
        table: String, columns: [String], target: ConflictTarget?, policy: MergePolicy, guardable: Set<NameKey> = [],
        mayReorderKeyClauses: Bool = false, typelessColumns: Set<NameKey> = [], rowidName: String? = nil,
        replacedColumns: Set<NameKey> = [], abortsOtherConflicts: Bool = false
    ) {
        self.table = table
        self.abortsOtherConflicts = abortsOtherConflicts
        self.replacedColumns = replacedColumns
        self.columns = columns
        self.target = target
        self.policy = policy
        self.typelessColumns = typelessColumns
        let storedRow = table.sqliteFolded == "excluded".sqliteFolded ? "sqlimport_row" : SQLIdentifier.quote(table)
        self.storedRow = storedRow
        targetPredicate = target?.predicate.map {
            storedRow == SQLIdentifier.quote(table) ? $0 : SQLText.requalifying($0, table: table, as: storedRow)
        }
        rowidExpression = rowidName.map { "\(storedRow).\($0)" } ?? "NULL"
        if let target {
            let protected = Set((target.columns + (target.fallbackKey ?? [])).map { $0.sqliteFolded })
            updatedColumns = columns.filter { !protected.contains($0.sqliteFolded) }
        } else {
            updatedColumns = []
        }
        doesNothingOnConflict = policy == .ignore || updatedColumns.isEmpty
        let guarded = doesNothingOnConflict ? [] : updatedColumns.filter { guardable.contains($0.sqliteFolded) }
        // With every column guarded there is nothing left to assign.
        guardedColumns = guarded.count == updatedColumns.count ? [] : guarded
        reordersKeyClauses = mayReorderKeyClauses && !doesNothingOnConflict && target?.fallbackKey != nil
        if guardedColumns.isEmpty && !reordersKeyClauses {
            fallback = nil
        } else {
            fallback = UpsertStatementFallback(
                UpsertStatement(
                    table: table, columns: columns, target: target, policy: policy, typelessColumns: typelessColumns, rowidName: rowidName,
                    replacedColumns: replacedColumns, abortsOtherConflicts: abortsOtherConflicts))
        }
    }

    /// What makes a record go through `fallback`, for `--dry-run`.
    package var fallbackCondition: String {
        var reasons: [String] = []
        if !guardedColumns.isEmpty { reasons.append("changes \(SQLIdentifier.quoteList(guardedColumns))") }
        if reordersKeyClauses, let target, let key = target.fallbackKey {
            reasons.append("has the \(SQLIdentifier.quoteList(key)) of a row with other \(SQLIdentifier.quoteList(target.columns))")
        }
        return reasons.joined(separator: " or ")
    }

    /// The statement for `rowCount` records: `VALUES (...), (...)`.
    package func sql(rowCount: Int = 1) -> String {
        var sql = (abortsOtherConflicts ? "INSERT OR ABORT INTO " : "INSERT INTO ") + "\(SQLIdentifier.quote(table)) \(storedRow == SQLIdentifier.quote(table) ? "" : "AS \(storedRow) ")(\(SQLIdentifier.quoteList(columns))) VALUES "
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        sql.reserveCapacity(sql.utf8.count + rowCount * (tuple.utf8.count + 2) + 512)
        for row in 0 ..< rowCount {
            if row > 0 { sql += ", " }
            sql += tuple
        }
        guard let target else { return sql }
        let targetClause = "ON CONFLICT (\(SQLIdentifier.quoteList(target.columns)))"
            + (targetPredicate.map { " WHERE \($0)" } ?? "") + " " + action(for: .target)
        guard let key = target.fallbackKey else { return sql + "\n" + targetClause }
        let keyClause = "ON CONFLICT (\(SQLIdentifier.quoteList(key))) " + action(for: reordersKeyClauses ? .keyFirst : .key)
        return sql + "\n" + (reordersKeyClauses ? keyClause + "\n" + targetClause : targetClause + "\n" + keyClause)
    }

    /// Which `ON CONFLICT` clause an action is for.
    enum Clause {
        /// The conflict target's clause.
        case target
        /// The primary-key clause, after the target's.
        case key
        /// The primary-key clause, put first (`reordersKeyClauses`).
        case keyFirst
    }

    /// `DO UPDATE SET ... WHERE ...`. A conflict that must not update (`--merge ignore`,
    /// or no column to assign) is `DO UPDATE SET "k" = "k" WHERE sqlimport_outcome(..., 0, rowid)`,
    /// which updates nothing, like `DO NOTHING`, but counts the row, so that a record
    /// SQLite drops through a column's `ON CONFLICT IGNORE` is told apart from a kept one.
    ///
    /// With a primary-key clause, each clause first checks the record's identity
    /// (`sqlimport_identity`, which fails the statement when false):
    /// - the target's: the row found holds the record's primary key, or no row does;
    /// - the primary key's (after the target's): the row found holds the record's target
    ///   key (`IS`, so a row outside a partial index matches a record outside it too).
    /// So a record never merges into a row of another identity. `keyFirst` needs no
    /// check: its guard sends any other record to the fallback, target first.
    func action(for clause: Clause) -> String {
        var conditions: [String] = []
        if let target, let key = target.fallbackKey {
            switch clause {
            case .target:
                let other = "sqlimport_other"
                let sameKey = sameValues(key, as: key.map { "excluded.\(SQLIdentifier.quote($0))" }, exact: false)
                let lookup = "(" + key.map { "\(SQLIdentifier.quote(other)).\(SQLIdentifier.quote($0))" }.joined(separator: ", ") + ") = ("
                    + key.map { "excluded.\(SQLIdentifier.quote($0))" }.joined(separator: ", ") + ")"
                conditions.append(
                    "\(Self.identityFunction)(\(sameKey) OR NOT EXISTS (SELECT 1 FROM \(SQLIdentifier.quote(table)) AS \(SQLIdentifier.quote(other)) WHERE \(lookup)))")
            case .key:
                conditions.append("\(Self.identityFunction)(\(sameValues(target.columns, as: target.columns.map { "excluded.\(SQLIdentifier.quote($0))" }, exact: false)))")
            case .keyFirst:
                break
            }
        }
        let newer: String
        if case .newer(let column) = policy {
            // A stored NULL is older than any value; an arriving NULL is older than any
            // stored value (`NULL >= x` is NULL, which is not true). (A record without the
            // column arrives with its default, as on PostgreSQL.)
            let stored = "\(storedRow).\(SQLIdentifier.quote(column))"
            let arriving = "excluded.\(SQLIdentifier.quote(column))"
            newer = "(\(stored) IS NULL OR (\(Self.newerFormFunction)(\(arriving), \(stored)) AND \(arriving) >= \(stored)))"
        } else {
            newer = policy == .ignore ? "0" : "1"
        }
        if doesNothingOnConflict {
            // (A record of key columns alone that `newer` keeps out is skipped, not
            // unchanged: the stored row is newer.)
            let column = SQLIdentifier.quote(target?.columns.first ?? columns[0])
            conditions.append("\(Self.outcomeFunction)(\(newer), 0, \(rowidExpression))")
            return "DO UPDATE SET \(column) = \(column) WHERE \(conditions.joined(separator: " AND "))"
        }
        let guarded = Set(guardedColumns)
        let assigned = updatedColumns.filter { !guarded.contains($0) }
        let set = assigned.map { "\(SQLIdentifier.quote($0)) = \(newValue($0))" }.joined(separator: ", ")
        var arguments = [newer, "NOT " + sameValues(assigned, as: assigned.map(newValue))]
        if fallback != nil {
            arguments.append(guardedColumns.isEmpty ? "1" : sameValues(guardedColumns, as: guardedColumns.map(newValue)))
            let key = target?.columns ?? []
            arguments.append(clause == .keyFirst ? isTheTargetsRow(key) : "1")
        }
        arguments.append(rowidExpression)
        conditions.append("\(Self.outcomeFunction)(\(arguments.joined(separator: ", ")))")
        return "DO UPDATE SET \(set) WHERE \(conditions.joined(separator: " AND "))"
    }

    /// Whether the row the primary-key clause found is the one the target's clause would
    /// find: it holds the record's target key, and, with a partial target, it is inside
    /// the predicate or the record is outside it. (A soft-deleted row with the record's
    /// primary key and target key, while a live row holds that key: the target would
    /// find the live row, and the identity rule must decide, in the fallback.) The
    /// record's side is known for predicates of NULL tests (`NullTestPredicate`); for any
    /// other, a row outside the predicate always goes to the fallback.
    private func isTheTargetsRow(_ key: [String]) -> String {
        let same = sameValues(key, as: key.map { "excluded.\(SQLIdentifier.quote($0))" })
        guard let predicate = targetPredicate else { return same }
        let recordOutside = NullTestPredicate(predicate).map { parsed in
            "NOT (" + parsed.tests.map { "excluded.\(SQLIdentifier.quote($0.column)) IS \($0.isNull ? "" : "NOT ")NULL" }.joined(separator: " AND ") + ")"
        } ?? "0"
        return "(\(same) AND ((\(predicate)) IS TRUE OR \(recordOutside)))"
    }

    /// The value `SET` would give `column`.
    private func newValue(_ column: String) -> String {
        let quoted = SQLIdentifier.quote(column)
        return policy == .coalesce && !replacedColumns.contains(column.sqliteFolded)
            ? "coalesce(excluded.\(quoted), \(quoted))" : "excluded.\(quoted)"
    }

    /// True when every one of `columns` already holds the matching one of `values`,
    /// compared exactly: `IS` with binary collation, plus the storage class for columns
    /// that keep it.
    /// - Parameter exact: false compares as the columns' indexes do (their own collation
    ///   and affinity), for key identity.
    private func sameValues(_ columns: [String], as values: [String], exact: Bool = true) -> String {
        let stored = columns.map { "\(storedRow).\(SQLIdentifier.quote($0))" + (exact ? " COLLATE BINARY" : "") }
            .joined(separator: ", ")
        var test = "((\(stored)) IS (\(values.joined(separator: ", "))))"
        for (column, value) in zip(columns, values) where exact && typelessColumns.contains(column.sqliteFolded) {
            test += " AND typeof(\(SQLIdentifier.quote(column))) = typeof(\(value))"
        }
        return "(\(test))"
    }
}

/// Boxes the fallback statement (a struct cannot hold itself).
package final class UpsertStatementFallback: Sendable {
    package let statement: UpsertStatement
    init(_ statement: UpsertStatement) { self.statement = statement }
}
