/// Builds the SQL of an upsert (or a plain insert) for one set of input columns.
///
/// ```sql
/// INSERT INTO "items" ("id", "libraryID", "remoteID", "name") VALUES (?, ?, ?, ?)
/// ON CONFLICT ("libraryID", "remoteID") WHERE remoteID IS NOT NULL
///   DO UPDATE SET "name" = excluded."name"
///   WHERE sqlimport_outcome(1, ("name") IS NOT (excluded."name"))
/// ON CONFLICT ("id") DO UPDATE SET "name" = excluded."name"
///   WHERE sqlimport_outcome(1, ("name") IS NOT (excluded."name"))
/// ```
///
/// - The conflict target's predicate is the index's own text, so SQLite's structural
///   comparison accepts it.
/// - `SET` never assigns key columns (the target's nor the primary key's); columns the
///   input lacks are not assigned either, so they keep their stored values.
/// - The `WHERE` skips rows whose values would not change (no rewrite, no WAL churn, no
///   update trigger), and `sqlimport_outcome` counts why a row was not updated.
///   `INSERT OR REPLACE` is never used: it deletes rows and breaks foreign keys.
public struct UpsertStatement: Sendable {
    public let table: String
    public let columns: [String]
    public let target: ConflictTarget?
    public let policy: MergePolicy
    /// Columns the `DO UPDATE SET` assigns: the input's columns but the key columns.
    public let updatedColumns: [String]
    /// True when conflicts are resolved with `DO NOTHING` (ignore, or nothing to set).
    public let doesNothingOnConflict: Bool

    /// The SQL function the `DO UPDATE ... WHERE` calls: `sqlimport_outcome(isNewer, isChanged)`.
    static let outcomeFunction = "sqlimport_outcome"

    public init(table: String, columns: [String], target: ConflictTarget?, policy: MergePolicy) {
        self.table = table
        self.columns = columns
        self.target = target
        self.policy = policy
        if let target {
            let protected = Set((target.columns + (target.fallbackKey ?? [])).map { $0.lowercased() })
            updatedColumns = columns.filter { !protected.contains($0.lowercased()) }
        } else {
            updatedColumns = []
        }
        doesNothingOnConflict = policy == .ignore || updatedColumns.isEmpty
    }

    /// The statement for `rowCount` records: `VALUES (...), (...)`.
    public func sql(rowCount: Int = 1) -> String {
        var sql = "INSERT INTO \(SQLIdentifier.quote(table)) (\(SQLIdentifier.quoteList(columns))) VALUES "
        let tuple = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        sql.reserveCapacity(sql.utf8.count + rowCount * (tuple.utf8.count + 2) + 512)
        for row in 0 ..< rowCount {
            if row > 0 { sql += ", " }
            sql += tuple
        }
        guard let target else { return sql }
        sql += "\nON CONFLICT (\(SQLIdentifier.quoteList(target.columns)))"
        if let predicate = target.predicate { sql += " WHERE \(predicate)" }
        sql += " " + action
        if let fallback = target.fallbackKey {
            sql += "\nON CONFLICT (\(SQLIdentifier.quoteList(fallback))) " + action
        }
        return sql
    }

    /// `DO NOTHING` or `DO UPDATE SET ... WHERE ...`.
    var action: String {
        if doesNothingOnConflict { return "DO NOTHING" }
        let assigned = updatedColumns.map(SQLIdentifier.quote)
        let values: [String]
        switch policy {
        case .coalesce: values = assigned.map { "coalesce(excluded.\($0), \($0))" }
        default: values = assigned.map { "excluded.\($0)" }
        }
        let set = zip(assigned, values).map { "\($0) = \($1)" }.joined(separator: ", ")
        let changed = "(\(assigned.joined(separator: ", "))) IS NOT (\(values.joined(separator: ", ")))"
        let newer: String
        if case .newer(let column) = policy {
            newer = "excluded.\(SQLIdentifier.quote(column)) >= \(SQLIdentifier.quote(table)).\(SQLIdentifier.quote(column))"
        } else {
            newer = "1"
        }
        return "DO UPDATE SET \(set) WHERE \(Self.outcomeFunction)(\(newer), \(changed))"
    }
}
