import CSQLiteConfig
import GRDB
import GRDBSQLite

/// SQLite settings that are process-wide. The library never applies them itself: a
/// host application's SQLite is its own. The `sqlimport` executable applies them at
/// start; an application that imports in bulk may call `applyForBulkImports()` before it
/// opens its first connection.
public enum SQLiteProcessSettings {
    /// Statement journals up to this size stay in memory.
    ///
    /// Every write of a run happens inside its transaction, so SQLite records the original
    /// pages a multi-row statement changes in a statement journal, to undo that statement
    /// alone if it fails. Past 64 KiB SQLite moves that journal to a temporary file, and
    /// each 500-row statement of a delta changes megabytes of pages: a 200,000-row delta
    /// made 420,000 `pwrite` calls to that file (bench/README.md, "Statement journals").
    /// A larger journal still spills, so memory stays bounded.
    ///
    /// A journal that spills is written in chunks as large as this limit, and SQLite's
    /// "unix" VFS writes at most 128 KiB - 1 bytes per call: past that it fails the rest
    /// of a chunk as a full disk (exit 74 on an empty disk: a statement journal past the
    /// limit, with 64 KiB pages or a large `--delete-missing`). So 16 MiB comes only with
    /// the journal VFS (`bufferJournalWrites()`), which writes such a chunk in pieces;
    /// without it the limit stays below 128 KiB.
    static let statementJournalInMemoryLimit: Int32 = 16 << 20
    static let statementJournalInMemoryLimitForTheUnixVFS: Int32 = 120 << 10

    /// Swift runs a static's initializer once, thread-safely: the settings are applied
    /// by the first `apply()`.
    private static let applied: Void = {
        _ = sqlimport_set_statement_journal_spill(statementJournalInMemoryLimitForTheUnixVFS)
    }()

    /// Applies the settings that SQLite takes only before it starts (before the first
    /// connection opens); later calls do nothing. An application that opened a
    /// connection first keeps SQLite's defaults: only speed differs.
    public static func applyForBulkImports() { applied }

    /// Makes the connections opened afterwards write the rollback journal in large
    /// writes instead of three per page (its number, the page, its checksum). A delta
    /// that changes most of a 350 MB database journals about 100,000 pages, and the
    /// 300,000 calls took a sixth of its time (bench/README.md, "Journal writes").
    ///
    /// When nothing fails, the file system receives the same bytes, syncs and deletes, in
    /// the same order but that a database page may be written before the journal's last
    /// records (never before its own original). When writing the buffer fails, the
    /// journal is poisoned: every later call on it fails, and its database is not
    /// written, until SQLite has closed it and rolled it back from the file. The design
    /// and the argument are in `JournalBufferVFS.c`. It wraps SQLite's "unix" VFS and
    /// becomes the process's default VFS, which is why the `sqlimport` command calls it
    /// and the library leaves it to the application. Called before the first connection
    /// opens, it also keeps statement journals in memory up to 16 MiB
    /// (`statementJournalInMemoryLimit`): the VFS writes a larger one out in pieces.
    ///
    /// - Returns: false when there is no "unix" VFS to wrap (nothing changes then).
    @discardableResult
    public static func bufferJournalWrites() -> Bool { journalWritesBuffered }

    private static let journalWritesBuffered: Bool = {
        // Before the registration, which starts SQLite (after which it takes no setting):
        // the VFS writes a spilled statement journal in pieces, so it may be large.
        _ = sqlimport_set_statement_journal_spill(statementJournalInMemoryLimit)
        return sqlimport_register_journal_buffer_vfs() == SQLITE_OK
    }()

    /// Makes the files that connections opened afterwards write through that VFS (a
    /// database, its journal, its WAL) ask Linux, every 2 MiB written, to start writing
    /// that span back to the disk, from a helper thread. A commit's syncs then find the
    /// bytes on their way instead of waiting for all of them: 0.37 s of a 2.5 s delta
    /// otherwise (bench/README.md, "Writeback hints"). It starts a writeback the kernel
    /// would do on its own sooner or later, so what a crash can leave does not change
    /// (`WritebackHints.c`). Call it after `bufferJournalWrites()`; only the `sqlimport`
    /// command does. Elsewhere than Linux it does nothing.
    ///
    /// - Returns: false when the files' descriptors cannot be found (nothing changes then).
    @discardableResult
    public static func startWritebackEarly() -> Bool { writebackStartsEarly }

    private static let writebackStartsEarly: Bool = sqlimport_journal_buffer_vfs_hint_writeback(1) == SQLITE_OK

    /// For tests: the writeback hints made for `db`'s database file, or for its open
    /// rollback journal; nil when it gets none or is not the VFS's.
    static func writebackHints(_ db: Database, journal: Bool) -> Int64? {
        let hints = sqlimport_journal_buffer_writeback_hints(db.sqliteConnection, journal ? 1 : 0)
        return hints < 0 ? nil : hints
    }

    /// For tests: the writes to `db`'s open rollback journal that went into the buffer,
    /// and the writes of the buffer to the file; nil when no journal is open or it is not
    /// the VFS's.
    static func journalWriteCounts(_ db: Database) -> (buffered: Int64, written: Int64)? {
        var buffered: Int64 = 0
        var written: Int64 = 0
        guard sqlimport_journal_buffer_counts(db.sqliteConnection, &buffered, &written) == 0 else { return nil }
        return (buffered, written)
    }
}
