/// A sync mirror: after the input is applied, in the same transaction, the rows of the
/// table that the input no longer has are deleted (`--delete-missing`), within a scope
/// (`--scope`), under a guard against a truncated export (`--max-delete`); and records
/// marked as deleted delete their rows (`--tombstone`).
///
/// A row counts as seen when a record of the run inserted it or landed on it through a
/// conflict clause (`TouchedRows`), so keys compare exactly as the table's indexes do.
/// The deletion is one set-based `DELETE`.
public struct MirrorOptions: Sendable, Equatable {
    /// `--delete-missing`.
    public var deleteMissing = false
    /// `--scope COL[,COL]`: only rows whose values in these columns appear in the input
    /// are candidates.
    public var scope: [String] = []
    /// `--max-delete`: the most rows a run may delete.
    public var maxDelete = MaxDelete.percent(10)
    /// `--tombstone FIELD[=VALUE]`.
    public var tombstone: Tombstone?

    public init() {}

    /// True when the run deletes anything at all.
    public var isActive: Bool { deleteMissing || tombstone != nil }

    /// Whether `--delete-missing` may delete `deletions` of `candidates` rows after the
    /// run `summary` describes: not when records were rejected (the rows they name cannot
    /// be told from rows the export lacks: withheld, and said), and never beyond
    /// `--max-delete` (an error: nothing is committed).
    /// - Parameter ignored: records the database dropped so far, an interrupted run's
    ///   before its last checkpoint included (SQLite's `summary` counts them later).
    func mayDelete(_ deletions: Int, of candidates: Int, ignored: Int, in summary: inout ImportSummary) throws -> Bool {
        if summary.counts.rejected > 0 {
            summary.warnings.append(
                "--delete-missing deleted nothing: \(summary.counts.rejected) record(s) were rejected, and the rows they name cannot be told from rows the export lacks; fix them and re-run")
            summary.deletionsWithheld = deletions
            return false
        }
        // A record the database dropped (SQLite: an `ON CONFLICT IGNORE` column, a
        // trigger's `RAISE(IGNORE)`; PostgreSQL: a BEFORE trigger that returned NULL) may
        // name a row it never reached: the same as a reject.
        if ignored > 0 {
            summary.warnings.append(
                "--delete-missing deleted nothing: \(ignored) record(s) were dropped by the database (an ON CONFLICT IGNORE constraint, a trigger's RAISE(IGNORE), or a BEFORE trigger that returned NULL), and the rows they name cannot be told from rows the export lacks")
            summary.deletionsWithheld = deletions
            return false
        }
        // (A resumed run that reads no record past the interrupted run's is no empty one.)
        let emptyInput = summary.counts.read == 0 && summary.resumedRecords == 0
        if emptyInput ? maxDelete != .percent(100) : !maxDelete.allows(deletions, of: candidates) {
            throw MirrorError.tooManyDeletions(deletions: deletions, candidates: candidates, limit: maxDelete, emptyInput: emptyInput, scoped: !scope.isEmpty)
        }
        return true
    }
}

/// The guard against a truncated or empty export.
public enum MaxDelete: Sendable, Equatable, CustomStringConvertible {
    /// At most this many rows.
    case count(Int)
    /// At most this percentage of the candidate rows (those in scope).
    case percent(Double)

    /// Parses `500` or `10%`.
    public init?(argument: String) {
        if argument.hasSuffix("%") {
            guard let value = Double(argument.dropLast()), value >= 0, value <= 100 else { return nil }
            self = .percent(value)
        } else {
            guard let value = Int(argument), value >= 0 else { return nil }
            self = .count(value)
        }
    }

    /// Whether deleting `deletions` of `candidates` rows is allowed.
    func allows(_ deletions: Int, of candidates: Int) -> Bool {
        switch self {
        case .count(let limit): return deletions <= limit
        case .percent(let limit): return Double(deletions) <= Double(candidates) * limit / 100
        }
    }

    public var description: String {
        switch self {
        case .count(let value): return String(value)
        case .percent(let value): return value == value.rounded() ? "\(Int(value))%" : "\(value)%"
        }
    }
}

/// `--tombstone FIELD` (the record is a tombstone when FIELD is true) or
/// `--tombstone FIELD=VALUE` (when FIELD equals VALUE).
public struct Tombstone: Sendable, Equatable {
    public var field: String
    public var value: String?

    public init(argument: String) {
        let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
        field = parts[0]
        value = parts.count > 1 ? parts[1] : nil
    }

    /// `true` and `false` (any ASCII case) as the integers JSON booleans are read as.
    private static func booleanValue(_ text: String) -> Int64? {
        switch text.sqliteFolded {
        case "true": return 1
        case "false": return 0
        default: return nil
        }
    }

    /// Whether `cell` marks its record as a tombstone.
    func matches(_ cell: Cell, text: (Cell) -> String) -> Bool {
        switch cell.kind {
        case .absent, .null: return false
        case .integer:
            // A JSON boolean is the integer 1 or 0: `deleted=true` matches `"deleted": true`.
            if let value { return (Int64(value) ?? Self.booleanValue(value)) == cell.payload }
            // True is `true`, `1` or `"yes"`, as documented and as the same value reads in
            // CSV: any other number (2, -1, an epoch) is not a tombstone (it was, in JSON).
            return cell.payload == 1
        case .real:
            if let value { return (Double(value) ?? Self.booleanValue(value).map(Double.init)) == cell.doubleValue }
            return cell.doubleValue == 1
        default:
            let found = text(cell)
            if let value { return found == value }
            return ["true", "1", "yes"].contains(found.sqliteFolded)
        }
    }
}

/// Errors of a mirror run. Each says how to fix the problem.
public enum MirrorError: Error, Sendable, CustomStringConvertible {
    case needsUpsert
    case invalidMaxDelete(String)
    /// `fieldsAreFinal`: no record has the field; else no record of the first batch.
    case scopeNotInInput(column: String, fieldsAreFinal: Bool)
    case scopeNotAColumn(column: String, table: String)
    case withoutRowid(table: String)
    /// Columns named `rowid`, `oid` and `_rowid_` hide the rowid from every statement.
    case rowidShadowed(table: String)
    /// The guard: the run would delete more than `--max-delete` allows.
    /// `scoped`: `--scope` was given.
    case tooManyDeletions(deletions: Int, candidates: Int, limit: MaxDelete, emptyInput: Bool, scoped: Bool)
    /// The guard, after the deletion: the table's own `ON DELETE CASCADE` took `cascaded`
    /// more rows with the `deletions` rows, more than `--max-delete` allows in all.
    case cascadeExceedsLimit(deletions: Int, cascaded: Int, candidates: Int, limit: MaxDelete)
    /// A deletion that a foreign key restricts.
    case restricted(row: String, message: String)

    public var description: String {
        switch self {
        case .needsUpsert:
            return "--delete-missing and --tombstone find rows by the conflict target; add --upsert COLUMNS"
        case .invalidMaxDelete(let text):
            return "--max-delete \(text): expected a number of rows (500) or a percentage of the rows in scope (10%)"
        case .scopeNotInInput(let column, let fieldsAreFinal):
            let which = fieldsAreFinal ? "the input has" : "the input's first records (its first batch) have"
            return "--scope \(column): \(which) no field \(column), so no row could be told in or out of scope; scope by a field every record has"
        case .scopeNotAColumn(let column, let table):
            return "--scope \(column): \(SQLIdentifier.quote(table)) has no such column"
        case .withoutRowid(let table):
            return "--delete-missing tells seen rows by their rowids, and \(SQLIdentifier.quote(table)) is a WITHOUT ROWID table; mirror it with a separate DELETE, or use a rowid table"
        case .rowidShadowed(let table):
            return "--delete-missing tells seen rows by their rowids, and \(SQLIdentifier.quote(table)) has columns named rowid, oid and _rowid_, which hide it; rename one of them, or mirror the table with a separate DELETE"
        case .tooManyDeletions(let deletions, let candidates, let limit, let emptyInput, let scoped):
            let share = candidates > 0 ? String(format: " (%.1f%%)", Double(deletions) * 100 / Double(candidates)) : ""
            if emptyInput {
                return "the input holds no records, so --delete-missing would delete all \(deletions) rows in scope; no row was deleted. An empty export is more often a failed one: if the table really must be emptied, re-run with --max-delete 100%"
            }
            return "--delete-missing would delete \(deletions) of \(candidates) rows in scope\(share), more than --max-delete \(limit) allows; no row was deleted, and the run was rolled back (with --commit-every, to its last checkpoint). If the export is complete, re-run with a higher --max-delete (a count, or a percentage such as \(Int((Double(deletions) * 100 / Double(max(candidates, 1))).rounded(.up)))%)"
                + (scoped ? "" : "; if it holds only some of the table's rows (one library, one account), pass --scope COLUMN, so that only rows with the values its records have are candidates")
        case .cascadeExceedsLimit(let deletions, let cascaded, let candidates, let limit):
            return "--delete-missing deleted \(deletions) rows, and the table's own ON DELETE CASCADE foreign key deleted \(cascaded) more with them (rows of the input among them): \(deletions + cascaded) of \(candidates) rows in scope, more than --max-delete \(limit) allows; the run was rolled back (with --commit-every, to its last checkpoint). Check that the export holds the rows the others refer to, or re-run with a higher --max-delete"
        case .restricted(let row, let message):
            // SQLite: "FOREIGN KEY constraint failed"; PostgreSQL: "... violates foreign key constraint ...".
            guard message.range(of: "foreign key", options: .caseInsensitive) != nil else {
                return "deleting row \(row) failed: \(message); a trigger or a constraint of the table refused the deletion, so nothing was committed. Change what refuses it, or pass --on-error skip to keep such rows"
            }
            return "deleting row \(row) failed: \(message); a foreign key of another table still refers to it, so nothing was committed. Delete or re-point the referring rows first, or pass --on-error skip to keep such rows"
        }
    }
}
