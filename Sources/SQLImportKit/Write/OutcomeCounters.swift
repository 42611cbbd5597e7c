import GRDBSQLite

/// Counts what happened to each record, exactly, whatever the write strategy.
///
/// `inserted + updated` is what `sqlite3_changes()` reports for a statement. The
/// `DO UPDATE ... WHERE` clause calls `sqlimport_outcome(isNewer, isChanged)` once per
/// conflicting row, which tells updated rows from unchanged and skipped ones.
public struct OutcomeCounts: Sendable, Codable, Equatable {
    public var read = 0
    public var inserted = 0
    public var updated = 0
    public var unchanged = 0
    public var skipped = 0
    public var outsidePartialIndex = 0
    public var rejected = 0
    public var numbersKeptAsText = 0

    public init() {}
}

final class OutcomeCounters {
    var updated = 0
    var unchanged = 0
    var skipped = 0

    /// Registers `sqlimport_outcome` on the connection. Call `unregister` before the
    /// counters go away.
    func register(on connection: OpaquePointer) {
        sqlite3_create_function_v2(
            connection, UpsertStatement.outcomeFunction, 2, SQLITE_UTF8, Unmanaged.passUnretained(self).toOpaque(),
            { context, _, arguments in
                let counters = Unmanaged<OutcomeCounters>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                let isNewer = sqlite3_value_type(arguments![0]) != SQLITE_NULL && sqlite3_value_int64(arguments![0]) != 0
                let isChanged = sqlite3_value_type(arguments![1]) != SQLITE_NULL && sqlite3_value_int64(arguments![1]) != 0
                if !isNewer {
                    counters.skipped += 1
                    sqlite3_result_int(context, 0)
                } else if !isChanged {
                    counters.unchanged += 1
                    sqlite3_result_int(context, 0)
                } else {
                    counters.updated += 1
                    sqlite3_result_int(context, 1)
                }
            }, nil, nil, nil)
    }

    func unregister(on connection: OpaquePointer) {
        sqlite3_create_function_v2(connection, UpsertStatement.outcomeFunction, 2, SQLITE_UTF8, nil, nil, nil, nil, nil)
    }

    struct Snapshot {
        var updated, unchanged, skipped: Int
    }

    var snapshot: Snapshot { Snapshot(updated: updated, unchanged: unchanged, skipped: skipped) }

    func restore(_ snapshot: Snapshot) {
        updated = snapshot.updated
        unchanged = snapshot.unchanged
        skipped = snapshot.skipped
    }
}
