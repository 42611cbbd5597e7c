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
    static let statementJournalInMemoryLimit: Int32 = 16 << 20

    /// Swift runs a static's initializer once, thread-safely: the settings are applied
    /// by the first `apply()`.
    private static let applied: Void = {
        _ = sqlimport_set_statement_journal_spill(statementJournalInMemoryLimit)
    }()

    /// Applies the settings that SQLite takes only before it starts (before the first
    /// connection opens); later calls do nothing. An application that opened a
    /// connection first keeps SQLite's defaults: only speed differs.
    public static func applyForBulkImports() { applied }
}
