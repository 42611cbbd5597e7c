import Foundation
import GRDB
import GRDBSQLite

/// The transaction a run writes in.
///
/// - By default one `BEGIN IMMEDIATE` for the whole run: the write lock is taken before
///   any work, so a busy database fails at once, and a failure or a kill leaves the
///   database exactly as it was.
/// - With `--commit-every`, `checkpoint()` commits and begins again.
/// - Inside a caller's open transaction (the Swift API), a savepoint.
final class RunTransaction {
    private let db: Database
    private let nested: Bool
    private var open = false

    init(db: Database) {
        self.db = db
        nested = db.isInsideTransaction
    }

    var canCheckpoint: Bool { !nested }
    /// The run writes inside the caller's transaction (a savepoint).
    var isNested: Bool { nested }

    func begin() throws {
        if nested {
            try db.execute(sql: "SAVEPOINT sqlimport")
        } else {
            try db.execute(sql: "BEGIN IMMEDIATE")
        }
        open = true
    }

    func commit() throws {
        do {
            try db.execute(sql: nested ? "RELEASE sqlimport" : "COMMIT")
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            // A deferred foreign key, checked only now: SQLite's message names nothing.
            throw (try? Self.describeForeignKeyFailure(db)).map { ImportError.deferredForeignKey($0) } ?? error
        }
        open = false
    }

    /// Throws what `commit()` would for a deferred foreign key that the transaction's
    /// changes leave broken (for a dry run, which never commits).
    func refuseDeferredForeignKeyViolations() throws {
        var current: Int32 = 0
        var highest: Int32 = 0
        guard sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_DEFERRED_FKS, &current, &highest, 0) == SQLITE_OK, current > 0 else { return }
        throw ImportError.deferredForeignKey(try Self.describeForeignKeyFailure(db) ?? "a row breaks a deferred foreign key")
    }

    /// The first row that breaks a foreign key, and how many do (`PRAGMA
    /// foreign_key_check`), as `"t" row 2: "p" = 'zz' has no row in "t" ("id") (1 row
    /// in all)`.
    static func describeForeignKeyFailure(_ db: Database) throws -> String? {
        let broken = try Row.fetchAll(db, sql: #"SELECT "table", rowid, parent, fkid FROM pragma_foreign_key_check"#)
        guard let first = broken.first else { return nil }
        let table: String = first["table"]
        let parent: String = first["parent"]
        let rowid: Int64? = first["rowid"]
        let pairs = try Row.fetchAll(db, sql: #"SELECT "from", "to" FROM pragma_foreign_key_list(?) WHERE id = ? ORDER BY seq"#, arguments: [table, first["fkid"] as Int])
        let from = pairs.map { $0["from"] as String }
        let to = pairs.compactMap { $0["to"] as String? }
        var values = ""
        if let rowid, !from.isEmpty {
            let quoted = try String.fetchOne(
                db, sql: "SELECT \(from.map { "quote(\(SQLIdentifier.quote($0)))" }.joined(separator: " || ', ' || ")) FROM \(SQLIdentifier.quote(table)) WHERE _rowid_ = ?",
                arguments: [rowid])
            values = ": (\(SQLIdentifier.quoteList(from))) = (\(quoted ?? "?"))"
        }
        let key = to.isEmpty ? "its primary key" : "(\(SQLIdentifier.quoteList(to)))"
        return "\(SQLIdentifier.quote(table))\(rowid.map { " row \($0)" } ?? "")\(values) has no row in \(SQLIdentifier.quote(parent)) with that \(key) (\(broken.count) row\(broken.count == 1 ? "" : "s") in all)"
    }

    /// Commits what was done so far and begins a new transaction.
    /// - Parameter between: runs between the commit and the next `BEGIN`, when other
    ///   connections may write (tests use it to be one).
    /// Commits, calls `committed`, then begins the next transaction (which may fail: a
    /// lock another writer holds, a signal).
    ///
    /// Every `windowEvery` or so, the database is left unlocked for `windowLength`
    /// before the next `BEGIN`: longer than SQLite's busy handler sleeps between tries
    /// (100 ms at most), so that an app's writer waiting with a busy timeout of a few
    /// seconds gets in. Begun again at once, the run took the lock back before any
    /// waiting writer woke: an app with a 5-second timeout failed with "database is
    /// locked" all through a run that committed every 70 ms.
    func checkpoint(between: (() -> Void)? = nil, committed: () -> Void = {}) throws {
        precondition(!nested, "checkpoints need a transaction of the run's own")
        try commit()
        committed()
        between?()
        if ContinuousClock.now - lastWindow >= Self.windowEvery {
            Thread.sleep(forTimeInterval: Self.windowLength)
            lastWindow = .now
        }
        try begin()
    }

    static let windowEvery = Duration.seconds(2)
    static let windowLength: TimeInterval = 0.11
    /// When the last checkpoint left the database unlocked (at first, the run's start).
    private var lastWindow = ContinuousClock.now

    /// Undoes everything since the last commit. Never throws: it runs on error paths.
    func rollback() {
        guard open else { return }
        open = false
        if nested {
            try? db.execute(sql: "ROLLBACK TO sqlimport")
            try? db.execute(sql: "RELEASE sqlimport")
        } else if db.isInsideTransaction {
            try? db.execute(sql: "ROLLBACK")
        }
    }
}
