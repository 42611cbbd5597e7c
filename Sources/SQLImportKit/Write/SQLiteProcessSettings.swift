import CSQLiteConfig
import GRDB
import GRDBSQLite

/// SQLite settings that are process-wide.
public enum SQLiteProcessSettings {
    /// Statement journals up to this size stay in memory.
    ///
    /// Every write of a run happens inside its transaction, so SQLite records the original
    /// pages a multi-row statement changes in a statement journal, to undo that statement
    /// alone if it fails. Past 64 KiB SQLite moves that journal to a temporary file, and
    /// each 500-row statement of a delta changes megabytes of pages: a 200,000-row delta
    /// made 420,000 `pwrite` calls to that file (bench/README.md, "Statement journals").
    /// A larger journal still spills, so memory stays bounded.
    static let statementJournalInMemoryLimit: Int32 = 16 << 20

    /// Swift runs a static's initializer once, thread-safely: the settings are applied
    /// by the first `apply()`.
    private static let applied: Void = {
        _ = sqlimport_set_statement_journal_spill(statementJournalInMemoryLimit)
    }()

    /// Applies the settings that SQLite takes only before it starts (before the first
    /// connection opens); later calls do nothing. An application that opened a
    /// connection first keeps SQLite's defaults: only speed differs.
    static func apply() { applied }

    /// Makes the connections opened afterwards join the rollback journal's small writes
    /// into large ones. SQLite writes each page it journals in three calls; a delta that
    /// changes most of a 350 MB database makes 240,000 of them, and joining them takes
    /// its run from 2.38–2.53 s to 1.88–1.95 s (bench/README.md, "Journal writes").
    ///
    /// The file system still receives the same bytes, syncs and deletes in the same
    /// order, so a crash or power loss leaves what it would leave without it; the design
    /// and the argument are in `WriteCoalescingVFS.c`. It wraps SQLite's "unix" VFS and
    /// becomes the process's default VFS, which is why the `sqlimport` command calls it
    /// and the library leaves it to the application.
    ///
    /// - Returns: false when there is no "unix" VFS to wrap (nothing changes then).
    @discardableResult
    public static func joinJournalWrites() -> Bool { journalWritesJoined }

    /// Registered once (Swift runs a static's initializer once, thread-safely), after the
    /// settings above, which must come before SQLite starts.
    private static let journalWritesJoined: Bool = {
        apply()
        return sqlimport_register_write_coalescing_vfs() == SQLITE_OK
    }()

    /// Makes the connections opened afterwards ask Linux, every 2 MiB they write to a
    /// database, its journal or its WAL, to start sending those bytes to the disk, so that
    /// the syncs of a commit find them on their way. Without it a delta's final
    /// `fdatasync` waits 0.16 s for the 330 MB it changed (bench/README.md, "Writeback
    /// hints"). The hints are made from a helper thread and change nothing a crash can
    /// leave: the kernel may write dirty pages back at any moment anyway, and SQLite's
    /// own syncs still run (`WritebackHints.c`). It works through the VFS that
    /// `joinJournalWrites()` installs, which it installs first; elsewhere than Linux it
    /// does nothing.
    ///
    /// - Returns: false when that VFS could not be installed.
    @discardableResult
    public static func startWritebackEarly() -> Bool {
        guard joinJournalWrites() else { return false }
        sqlimport_write_coalescing_vfs_hint_writeback(1)
        return true
    }

    /// The writes to `db`'s open rollback journal that were buffered, and the writes of
    /// them that reached the file; nil when no journal is open or it is not joined.
    static func journalWriteCounts(_ db: Database) -> (buffered: Int64, written: Int64)? {
        var buffered: Int64 = 0
        var written: Int64 = 0
        guard sqlimport_write_coalescing_vfs_journal_counts(db.sqliteConnection, &buffered, &written) == 0 else { return nil }
        return (buffered, written)
    }
}
