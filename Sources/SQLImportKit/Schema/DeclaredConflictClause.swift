/// One constraint's `ON CONFLICT` clause, as a table declares it.
package struct DeclaredConflictClause: Sendable, Equatable, Codable {
    package enum Constraint: String, Sendable, Codable {
        case primaryKey = "PRIMARY KEY"
        case unique = "UNIQUE"
        case notNull = "NOT NULL"
    }

    package enum Resolution: String, Sendable, Codable {
        case rollback = "ROLLBACK", abort = "ABORT", fail = "FAIL", ignore = "IGNORE", replace = "REPLACE"
    }

    package var constraint: Constraint
    package var resolution: Resolution

    /// A resolution sqlimport's statements override with `INSERT OR ABORT`: `REPLACE` on a
    /// key deletes the other row that holds the key, a row the input does not name, and
    /// `ROLLBACK` ends the run's transaction. (`REPLACE` on `NOT NULL` stores the column's
    /// default, as SQLiteData's ids rely on; `IGNORE` drops the record, counted.)
    package var isOverridden: Bool {
        resolution == .rollback || resolution == .replace && constraint != .notNull
    }
}
