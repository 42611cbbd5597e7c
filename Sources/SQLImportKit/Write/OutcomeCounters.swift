import GRDBSQLite

/// Counts what happened to each record, exactly, whatever the write strategy.
///
/// `inserted + updated` is what `sqlite3_changes()` reports for a statement. The
/// `DO UPDATE ... WHERE` clause calls `sqlimport_outcome(isNewer, isChanged, rowid)` once per
/// conflicting row, which tells updated rows from unchanged and skipped ones. A guarded
/// statement (`UpsertStatement.fallback`) passes two more: `keepsGuardedValues` fails the
/// statement when it is false for a row that would be updated, and `isTheTargetsRow`
/// fails it whenever it is false.
public struct OutcomeCounts: Sendable, Codable, Equatable {
    public var read = 0
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var skipped = 0
    public var outsidePartialIndex = 0
    /// Records SQLite dropped through a column's `ON CONFLICT IGNORE` (or `OR IGNORE`
    /// in a trigger's statement): neither inserted nor matched to a row.
    public var ignored = 0
    /// Records whose conflict target has a NULL column (or that fall outside a partial
    /// target's predicate) and that no primary-key clause can match: a re-run cannot
    /// find their rows (`--null-key`).
    public var nullKey = 0
    /// Records whose key an earlier record of the run already had; the later one wins
    /// (`--duplicate-keys`).
    public var duplicateKeys = 0
    public var rejected = 0
    public var numbersKeptAsText = 0
    /// Rows deleted: by `--delete-missing`, and by tombstones.
    public var deleted = 0
    /// Tombstone records (`--tombstone`), and those whose row did not exist.
    public var tombstones = 0
    public var tombstonesWithoutRow = 0
    /// Records that `--merge newer:COL` compared with a stored value of another form: a
    /// number with text, or texts of different lengths or whose characters other than
    /// letters and digits differ (`2026-11-30 10:00:00` with `2026-11-30T09:00:00Z`),
    /// which sort by type and then character by character, not by time.
    public var newerMixedForms = 0
    /// CSV/TSV values that spell a missing value (`NA`, `N/A`, `NULL`, `nan`, ...) that
    /// records give for an INTEGER, REAL or NUMERIC column of a table that is not STRICT,
    /// which keeps them as text where it stores them (a STRICT one refuses them):
    /// `--null NA` makes them NULL. Values, not records.
    public var missingValuesAsText = 0

    public init() {}
}

final class OutcomeCounters {
    var updated = 0
    var unchanged = 0
    var skipped = 0
    /// Set when `sqlimport_outcome` failed a guarded statement; the writer then runs the
    /// fallback statement (`UpsertStatement.fallback`) for the same records.
    var needsFallback = false
    /// The rows this run wrote, when the table has rowids: a conflict on one of them is
    /// a repeated key (`duplicateKeys`).
    var touched: TouchedRows?
    /// Conflicts on rows this run had written already.
    var duplicates = 0
    /// The first such row, to name its key in the warning.
    var firstDuplicateRowid: Int64?
    /// `OutcomeCounts.newerMixedForms`, and the first such pair (arriving, stored).
    var newerMixedForms = 0
    var firstNewerMix: (arriving: String, stored: String)?
    /// `--duplicate-keys error`: such a conflict fails the statement, as the record's fault.
    var duplicatesAreErrors = false
    /// Set while unique indexes are deferred (`DeferredIndexes`): the first conflict fails
    /// its statement and sets `needsIndexes`, and the writer builds them and runs it again.
    var conflictsNeedIndexes = false
    var needsIndexes = false

    static let guardMessage = "sqlimport: this record needs the statement that assigns every column, target first"
    static let identityMessage = "sqlimport: the record's conflict-target key and primary key belong to different rows"
    static let indexesMessage = "sqlimport: the first conflict of a first load needs the deferred unique indexes"
    static let duplicateMessage = "sqlimport: the record repeats the key of an earlier record of this run"

    /// Registers `sqlimport_outcome` (three and five arguments, the last the conflicting
    /// row's rowid or NULL) and `sqlimport_identity` on the connection. Call `unregister`
    /// before the counters go away.
    func register(on connection: OpaquePointer) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        for arity: Int32 in [3, 5] {
            sqlite3_create_function_v2(
                connection, UpsertStatement.outcomeFunction, arity, SQLITE_UTF8, me,
                { context, count, arguments in
                    let counters = Unmanaged<OutcomeCounters>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                    func isTrue(_ index: Int) -> Bool {
                        sqlite3_value_type(arguments![index]) != SQLITE_NULL && sqlite3_value_int64(arguments![index]) != 0
                    }
                    if counters.conflictsNeedIndexes {
                        counters.needsIndexes = true
                        sqlite3_result_error(context, OutcomeCounters.indexesMessage, -1)
                        return
                    }
                    let isGuarded = count == 5
                    if isGuarded && (!isTrue(3) || isTrue(0) && !isTrue(2)) {
                        counters.needsFallback = true
                        sqlite3_result_error(context, OutcomeCounters.guardMessage, -1)
                        return
                    }
                    let rowid = arguments![Int(count) - 1]
                    if let touched = counters.touched, sqlite3_value_type(rowid) == SQLITE_INTEGER,
                        touched.testAndSet(sqlite3_value_int64(rowid))
                    {
                        if counters.duplicatesAreErrors {
                            sqlite3_result_error(context, OutcomeCounters.duplicateMessage, -1)
                            sqlite3_result_error_code(context, SQLITE_CONSTRAINT)
                            return
                        }
                        counters.duplicates += 1
                        if counters.firstDuplicateRowid == nil { counters.firstDuplicateRowid = sqlite3_value_int64(rowid) }
                    }
                    if !isTrue(0) {
                        counters.skipped += 1
                        sqlite3_result_int(context, 0)
                    } else if !isTrue(1) {
                        counters.unchanged += 1
                        sqlite3_result_int(context, 0)
                    } else {
                        counters.updated += 1
                        sqlite3_result_int(context, 1)
                    }
                }, nil, nil, nil)
        }
        // `sqlimport_newer_form(arriving, stored)`: true, after counting a pair of values
        // of different forms (`OutcomeCounts.newerMixedForms`).
        sqlite3_create_function_v2(
            connection, UpsertStatement.newerFormFunction, 2, SQLITE_UTF8, me,
            { context, _, arguments in
                let counters = Unmanaged<OutcomeCounters>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                sqlite3_result_int(context, 1)
                let arriving = arguments![0], stored = arguments![1]
                guard !OutcomeCounters.sameForm(arriving, stored) else { return }
                counters.newerMixedForms += 1
                if counters.firstNewerMix == nil {
                    func text(_ value: OpaquePointer?) -> String {
                        switch sqlite3_value_type(value) {
                        case SQLITE_TEXT: return "'" + String(cString: sqlite3_value_text(value)) + "'"
                        case SQLITE_BLOB: return "a BLOB"
                        default: return String(cString: sqlite3_value_text(value))
                        }
                    }
                    counters.firstNewerMix = (text(arriving), text(stored))
                }
            }, nil, nil, nil)
        sqlite3_create_function_v2(
            connection, UpsertStatement.identityFunction, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, _, arguments in
                if sqlite3_value_type(arguments![0]) != SQLITE_NULL && sqlite3_value_int64(arguments![0]) != 0 {
                    sqlite3_result_int(context, 1)
                } else {
                    sqlite3_result_error(context, OutcomeCounters.identityMessage, -1)
                    // A constraint code: the record's failure, which --on-error skip may set aside.
                    sqlite3_result_error_code(context, SQLITE_CONSTRAINT)
                }
            }, nil, nil, nil)
    }

    func unregister(on connection: OpaquePointer) {
        for arity: Int32 in [3, 5] {
            sqlite3_create_function_v2(connection, UpsertStatement.outcomeFunction, arity, SQLITE_UTF8, nil, nil, nil, nil, nil)
        }
        sqlite3_create_function_v2(connection, UpsertStatement.newerFormFunction, 2, SQLITE_UTF8, nil, nil, nil, nil, nil)
        sqlite3_create_function_v2(connection, UpsertStatement.identityFunction, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, nil, nil, nil, nil)
    }

    /// Whether SQLite's order of `a` and `b` is their order as versions: both numbers,
    /// or both texts of one length whose characters other than letters and digits are
    /// the same, place by place (ISO 8601 times of one spelling; ULIDs, UUIDv7s and hex
    /// versions, which sort as they are made). A NULL is of any form.
    static func sameForm(_ a: OpaquePointer?, _ b: OpaquePointer?) -> Bool {
        let typeA = sqlite3_value_type(a), typeB = sqlite3_value_type(b)
        if typeA == SQLITE_NULL || typeB == SQLITE_NULL { return true }
        let isNumber = { (type: Int32) in type == SQLITE_INTEGER || type == SQLITE_FLOAT }
        if isNumber(typeA) && isNumber(typeB) { return true }
        guard typeA == SQLITE_TEXT && typeB == SQLITE_TEXT else { return false }
        let textA = sqlite3_value_text(a), textB = sqlite3_value_text(b)
        let countA = Int(sqlite3_value_bytes(a)), countB = Int(sqlite3_value_bytes(b))
        guard countA == countB, let textA, let textB else { return countA == countB }
        for index in 0 ..< countA {
            let byteA = textA[index], byteB = textB[index]
            if byteA == byteB { continue }
            guard isAlphanumeric(byteA) && isAlphanumeric(byteB) else { return false }
        }
        return true
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 26
    }

    struct Snapshot {
        var updated, unchanged, skipped, duplicates, newerMixedForms: Int
    }

    /// The counts before a statement runs; `restore` undoes what the statement counted
    /// (and the rows it marked) when SQLite undoes the statement.
    var snapshot: Snapshot {
        touched?.beginStatement()
        return Snapshot(updated: updated, unchanged: unchanged, skipped: skipped, duplicates: duplicates, newerMixedForms: newerMixedForms)
    }

    func restore(_ snapshot: Snapshot) {
        updated = snapshot.updated
        unchanged = snapshot.unchanged
        skipped = snapshot.skipped
        duplicates = snapshot.duplicates
        newerMixedForms = snapshot.newerMixedForms
        touched?.undoStatement()
    }
}
