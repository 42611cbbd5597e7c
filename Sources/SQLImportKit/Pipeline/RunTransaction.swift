import GRDB

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
        try db.execute(sql: nested ? "RELEASE sqlimport" : "COMMIT")
        open = false
    }

    /// Commits what was done so far and begins a new transaction.
    /// - Parameter between: runs between the commit and the next `BEGIN`, when other
    ///   connections may write (tests use it to be one).
    func checkpoint(between: (() -> Void)? = nil) throws {
        precondition(!nested, "checkpoints need a transaction of the run's own")
        try commit()
        between?()
        try begin()
    }

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
