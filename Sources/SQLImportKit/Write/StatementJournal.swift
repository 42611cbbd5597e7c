import CSQLiteConfig

/// Where SQLite keeps statement journals during a run.
///
/// Every write of a run happens inside its transaction, so SQLite records the original
/// pages a multi-row statement changes in a statement journal, to undo that statement
/// alone if it fails. Past 64 KiB SQLite moves the journal to a temporary file, and each
/// 500-row statement of a delta changes megabytes of pages: a 200,000-row delta made
/// 420,000 `pwrite` calls to that file, 0.5 s of its 3.7 s (bench/README.md,
/// "Statement journals"). Journals up to `inMemoryLimit` now stay in memory; a larger one
/// still spills, so memory stays bounded.
enum StatementJournal {
    static let inMemoryLimit: Int32 = 16 << 20

    /// True when the setting took: it must be made before SQLite initializes, so an
    /// application that opened a connection first keeps SQLite's default.
    static let isKeptInMemory: Bool = sqlimport_set_statement_journal_spill(inMemoryLimit) == 0
}
