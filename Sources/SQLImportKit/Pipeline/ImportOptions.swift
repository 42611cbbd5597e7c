/// Everything one import run needs, as one value (the CLI builds it from its flags).
public struct ImportOptions: Sendable {
    /// Paths of the inputs, `-` for standard input. All go into one table.
    public var inputs: [String]
    /// The SQLite database file; created when missing.
    public var databasePath: String
    /// The target table; by default the first input's base name without extensions.
    public var table: String?
    public var reader = ReaderOptions()
    /// `--upsert`: the conflict target's columns. nil is a plain INSERT.
    public var upsert: [String]?
    public var merge = MergePolicy.replace
    public var strategy = WriteStrategyKind.auto
    /// `--create-index`: create a unique index on the `--upsert` columns when none matches.
    public var createIndex = false
    /// `--alter`: add columns for unknown fields.
    public var alter = false
    /// `--ignore-unknown`: drop fields the table has no column for.
    public var ignoreUnknown = false
    /// `--infer-rows`: records sampled to infer a new table's column types.
    public var inferRows = 1000
    /// `--infer-rows all`: read every input once to type the new table's columns from
    /// all its records, then load it (regular files only).
    public static let inferFromAllRecords = Int.max
    /// `--flatten-by`: how a nested field (`reader.flatten`) finds its column in an
    /// existing table (`FlattenNaming`). A table the run creates is always by prefix.
    public var flattenNaming = FlattenNaming.auto
    /// `--enum FIELD=COL,...`: enum case columns (`EnumGroup`). Implies `reader.flatten`.
    public var enumGroups: [EnumGroup] = []
    /// `--group FIELD`: nested fields that are column groups, never read as enums.
    public var columnGroups: [String] = []
    /// `--delete-missing`, `--scope`, `--max-delete`, `--tombstone` (`MirrorOptions`).
    public var mirror = MirrorOptions()
    /// `--pk`: primary key of a table created by the run.
    public var primaryKey: [String] = []
    /// `--type col=TYPE`: declared types that override inference.
    public var typeOverrides = TypeOverrides()
    /// `--dry-run`: the real run, rolled back at its end: the same checks, errors at the
    /// same lines, the same plan and the exact counts, and nothing written. It holds the
    /// database's write lock while it runs.
    public var dryRun = false
    /// `--parse-only`: read and parse every input, count its records, and touch no
    /// database (checks a file's syntax; measures the readers alone).
    public var parseOnly = false
    /// Page cache for the run, in MiB (`PRAGMA cache_size`); restored afterwards.
    public var cacheSizeMiB = 256
    /// How long to wait for another writer's lock, in milliseconds.
    public var busyTimeoutMilliseconds = 5000
    /// Records per statement cap for `multirow` (nil: `MultiRowStrategy.defaultCap`).
    public var multirowCap: Int?
    /// Records per batch handed from the reading thread to the writing one.
    public var rowsPerBatch = 4096
    /// PostgreSQL: the key hashes a run keeps in memory before it moves them to a
    /// temporary table on the server (`PostgresRun.spillKeys`): 2²¹, a hash set of 32 MiB
    /// (a million records' target and primary keys).
    var postgresKeysInMemory = 1 << 21
    /// PostgreSQL: a first load into an empty table builds its key indexes once at the end
    /// (`PostgresRun+DeferredIndexes`). Always on; tests turn it off to compare.
    var postgresDefersIndexes = true
    /// `--sort-memory MiB`: memory for key-ordered writes (`KeyOrder`): an upsert's
    /// records are applied in runs sorted by the key SQLite probes first, three runs in
    /// memory at once. 0 applies them in input order.
    public var sortMemoryMiB = 40
    /// The size of one sorted run, overriding `sortMemoryMiB` (tests use small runs).
    var sortRunBytes: Int?
    /// Write with guarded statements: unchanged index columns left out of `DO UPDATE SET`
    /// (`IndexedColumns`), the primary-key clause first (`UpsertStatement`), each with a
    /// fallback. Always on; tests turn it off to compare with the plain statements.
    var usesGuardedStatements = true
    /// `--commit-every N`: commit every N records, recording progress in `_sqlimport_runs`.
    /// nil: one transaction for the whole run (all or nothing).
    public var commitEvery: Int?
    /// `--resume`: continue a killed `--commit-every` run after its last commit. An input
    /// that changed since is imported from its first record (upserts make that safe),
    /// with a warning and `restartedInputs` in the report.
    public var resume = false
    /// `--strict-resume`: an input that changed since the interrupted run stops the run
    /// (exit 65) instead.
    public var strictResume = false
    /// `--null-key`: what happens to a record whose conflict target has a NULL column
    /// (or that falls outside a partial target's predicate) when the input supplies no
    /// primary key to match it by.
    public var nullKey = NullKeyPolicy.error
    /// `--duplicate-keys`: what a record repeating an earlier record's key does.
    public var duplicateKeys = DuplicateKeyPolicy.warn
    /// `--on-error`: what a bad record does to the run.
    public var onError = ErrorPolicy.abort
    /// `--rejects FILE`: where `--on-error skip` writes bad records (JSON Lines).
    public var rejectsPath: String?
    /// `--max-errors N`: with `--on-error skip`, abort (rolled back) past N rejected records.
    public var maxErrors: Int?
    /// `--wal`: switch the database to WAL journal mode first (persistent). Otherwise the
    /// journal mode is never changed.
    public var wal = false
    /// Before writing, `PRAGMA quick_check` runs on a database of at most this many bytes
    /// (default 64 MiB, at most about 0.15 s), and a corrupt one is refused. A larger
    /// database is not checked up front: SQLite reports corruption when a statement
    /// reaches a damaged page, and the run then rolls back. 0 never checks.
    public var quickCheckMaxBytes: Int64 = 64 << 20
    /// Stops the run from another thread (signal handlers).
    public var cancellation: Cancellation?
    /// Whether records are compared with the table's rows by content (`UnchangedRows`):
    /// `auto` decides from the first records; tests force it either way.
    var contentComparison = ContentComparison.auto
    /// What the decision to compare records by content assumes a scan and a comparison
    /// cost (measured on the 2-core bench machine; tests lower the scan's).
    var comparisonCost = ComparisonCost()

    struct ComparisonCost: Sendable {
        /// The scan, per row of the table (hashing included).
        var scanNanosecondsPerRow = 700.0
        /// A record's hash and lookup.
        var nanosecondsPerRecord = 300.0
        /// Tests: the writer waits for the scan it decided on, as under `.always` (on a
        /// loaded machine the scan's thread may get no core before the input ends).
        var writerWaitsForTheScan = false
    }

    /// Runs between a checkpoint's commit and the next transaction (tests write there as
    /// another connection would).
    var betweenCheckpoints: (@Sendable () -> Void)?

    enum ContentComparison: Sendable {
        case auto
        case off
        /// From the second batch on, whatever the records and the table's size; the
        /// writer waits for the scan.
        case always
    }

    /// What a bad record (unparseable, mistyped, refused by a constraint) does.
    public enum ErrorPolicy: String, Sendable, CaseIterable {
        /// Nothing is committed (with `--commit-every`, nothing after the last commit).
        case abort
        /// Good records are applied; bad ones go to the rejects file.
        case skip
    }

    /// What a record the conflict target cannot match does (`--null-key`). Such a
    /// record is never found again, so a nightly re-run would insert it every night.
    public enum NullKeyPolicy: String, Sendable, CaseIterable {
        /// Stop the run, nothing committed (exit 65).
        case error
        /// Set the record aside as a reject (exit 2).
        case skip
        /// Insert it as a new row, counted as `nullKey` and warned about.
        case insert
    }

    /// What a record repeating an earlier record's key does (`--duplicate-keys`).
    public enum DuplicateKeyPolicy: String, Sendable, CaseIterable {
        /// The later record wins; counted as `duplicateKeys` and warned about.
        case warn
        /// Stop the run, nothing committed (exit 65).
        case error
    }

    public init(inputs: [String], databasePath: String) {
        self.inputs = inputs
        self.databasePath = databasePath
    }

    /// The table a run writes to: `--table`, else the first input's base name without
    /// its known extensions (`data/items.jsonl.zst` → `items`; `airlines.2013-01.csv` →
    /// `airlines.2013-01`).
    public func resolvedTable() throws(ImportError) -> String {
        if let table { return table }
        guard let first = inputs.first, first != "-" else { throw .tableNameNeeded }
        var stem = Substring(first.split(separator: "/").last ?? Substring(first))
        for extensions in [[".gz", ".zst", ".zstd"], [".jsonl", ".ndjson", ".json", ".csv", ".tsv", ".tab", ".txt"]] {
            if let known = extensions.first(where: { stem.lowercased().hasSuffix($0) }) { stem = stem.dropLast(known.count) }
        }
        guard !stem.isEmpty else { throw .tableNameNeeded }
        return String(stem)
    }
}

extension ImportOptions {
    /// `--merge newer:COL` with COL a column of `--upsert`: a record and the row it meets
    /// agree on it, so every record would win, as under `replace`, and no one would know.
    func refuseNewerOnTheKey() throws {
        guard case .newer(let column) = merge, let upsert, upsert.contains(where: { $0.lowercased() == column.lowercased() }) else { return }
        throw ImportError.conflictingOptions(
            "--merge newer:\(column) names a column of --upsert: a record and the row it meets always agree on it, so every record would win, as with --merge replace; name the column that holds the row's version, e.g. newer:updatedAt")
    }
}

/// Errors of a run as a whole.
public enum ImportError: Error, Sendable, CustomStringConvertible {
    case tableNameNeeded
    case noInputs
    case conflictingOptions(String)
    case emptyRecord(SourcePosition)
    case invalidFieldName(name: String, reason: String, at: String? = nil)
    /// The run was stopped by a signal; the open transaction was rolled back.
    case interrupted(signal: Int32)
    case tooManyRejects(limit: Int, last: String)
    /// `strict`: `--strict-resume` stopped the run; else the run has no `--upsert`, so
    /// reading the input again would insert its records twice.
    case inputChangedSinceInterruptedRun(path: String, strict: Bool)
    /// A deferred foreign key failed at a commit: the first row that breaks it, described.
    case deferredForeignKey(String)
    /// Another run on the database held its run lock (`RunLock`) past `--busy-timeout`.
    case anotherRun(lock: String, pid: Int32?)
    /// The run lock's file could not be made or opened beside the database;
    /// `cannotWrite` when the folder or the file refused it.
    case runLockUnavailable(path: String, reason: String, cannotWrite: Bool)

    /// Why a record with no field for a column is refused (`emptyRecord`, or its reject).
    static let emptyRecordReason = "the record has no field the table can store (it is empty, or --ignore-unknown dropped every field)"

    /// Why input `path` is read again from its first record on `--resume`.
    static func changedSinceInterruptedRun(_ path: String) -> String {
        path == "-"
            ? "standard input (-) cannot be compared with what the interrupted run read"
            : "\(path) has changed since the interrupted run (its size, time, inode or checksum differ)"
    }

    public var description: String {
        switch self {
        case .tableNameNeeded:
            return "cannot name the table after standard input; pass --table NAME"
        case .noInputs:
            return "no input given; pass a file, or - for standard input"
        case .conflictingOptions(let text):
            return text
        case .emptyRecord(let position):
            return "\(position): \(Self.emptyRecordReason); check the input, pass --alter to add its fields as columns, or --on-error skip to set such records aside"
        case .invalidFieldName(let name, let reason, let position):
            return "\(position.map { "\($0): " } ?? "")field name \(SQLIdentifier.quote(name)) \(reason); rename it in the input"
        case .interrupted(let signal):
            return "interrupted by signal \(signal); the open transaction was rolled back (with --commit-every, what was committed stays: re-run with --resume)"
        case .tooManyRejects(let limit, let last):
            return "more than \(limit) records were rejected (--max-errors \(limit)); the run was rolled back. Last: \(last)"
        case .deferredForeignKey(let row):
            return "a deferred foreign key failed when the run committed (SQLite checks such keys only then, so no record could be set aside): \(row); the run's changes since its last commit were rolled back. Make the input supply the missing parent rows, or import them first"
        case .anotherRun(let lock, let pid):
            return "another sqlimport run\(pid.map { " (process \($0))" } ?? "") is writing to this database (it holds \(lock)) and did not finish within --busy-timeout; nothing was written. Two runs on one database never interleave: retry later, or raise --busy-timeout to wait for it"
        case .runLockUnavailable(let path, let reason, false):
            return "cannot use the run lock \(path) (\(reason)): a run makes this plain file beside the database while it writes, so that two runs never interleave; remove what is there (a link, a folder) and run again. Nothing was written"
        case .runLockUnavailable(let path, let reason, true):
            return "cannot make the run lock \(path) (\(reason)): the database or its folder cannot be written (permissions, a read-only mount, an immutable folder), and a run keeps this file beside the database while it writes, so that two runs never interleave; nothing was written. Make the folder writable by this user (SQLite writes its journal there too)"
        case .inputChangedSinceInterruptedRun(let path, let strict):
            let changed = ImportError.changedSinceInterruptedRun(path)
            if strict {
                return "\(changed), and --strict-resume was given; re-run without --strict-resume to import it from its first record (upserts are idempotent)"
            }
            return "\(changed), and without --upsert reading it again from its first record would insert the records the interrupted run committed a second time; pass --upsert COLUMNS so that they update their rows instead"
        }
    }
}
