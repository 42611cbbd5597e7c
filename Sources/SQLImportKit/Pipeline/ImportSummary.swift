import Foundation

/// What a run did, for people and for machines (`--report`).
public struct ImportSummary: Sendable, Codable {
    /// Version of this report's layout.
    public var version = 1
    public var database: String
    public var table: String
    public var inputs: [InputDescription] = []
    public var conflictTarget: [String]?
    public var conflictPredicate: String?
    /// The primary key used for rows outside a partial index's predicate.
    public var fallbackKey: [String]?
    public var merge: String
    public var strategy: String
    public var strategyReason: String
    public var rowsPerStatement: Int = 1
    public var counts = OutcomeCounts()
    /// With --resume: records the interrupted run had committed, not read again.
    public var resumedRecords = 0
    /// With --resume: records the interrupted run had set aside before its last
    /// checkpoint, counted in `counts.rejected` (its lines stay in `--rejects`).
    public var resumedRejects = 0
    /// With --resume: inputs that changed since the interrupted run, imported from their
    /// first record.
    public var restartedInputs: [String] = []
    /// `CREATE TABLE` run (or, with --dry-run, that would run) for a missing table.
    public var createdTable: String?
    public var addedColumns: [String] = []
    public var createdIndex: String?
    /// Secondary indexes built after the load instead of row by row (a first load).
    public var deferredIndexes: [String] = []
    /// Why the deferred unique indexes were built during the load rather than after it:
    /// the first record that could conflict (a repeated key), or the key budget spent.
    public var indexesBuiltEarly: String?
    /// Enum groups the run applied (`--enum`, or recognised), as `FIELD=COL,COL`.
    public var enumGroups: [String] = []
    /// The order records were applied in (`KeyOrder`): sorted by key in runs, or the
    /// input's order and why.
    public var keyOrder: String?
    /// Whether records were compared with the table's rows by content after one scan of
    /// the table (`UnchangedRows`), and how many matched; or why not, once considered.
    public var unchangedRows: String?
    /// `--delete-missing`: rows in scope (seen or not), and deletions not made because
    /// records were rejected.
    public var deleteCandidates: Int?
    public var deletionsWithheld: Int?
    /// The upsert statement of the first record shape, for `--dry-run`.
    public var statementSQL: String?
    public var dryRun = false
    /// `--parse-only`: the input was read, no database opened.
    public var parseOnly = false
    public var warnings: [String] = []
    /// The first records set aside (`--on-error skip`), as `input:line: reason`, at most
    /// `ImportSummary.firstRejectsKept`; the rejects file (`--rejects`) has them all.
    public var firstRejects: [String] = []
    public static let firstRejectsKept = 5
    public var startedAt = Date()
    public var finishedAt = Date()

    public var durationSeconds: Double { finishedAt.timeIntervalSince(startedAt) }
    public var bytesRead: Int64 { inputs.reduce(0) { $0 + $1.bytesRead } }
}

/// Progress of a run, reported on the writing thread after each batch it writes and at
/// each phase that follows the writing.
public struct ImportProgress: Sendable {
    /// What the run is doing.
    public enum Phase: String, Sendable, Codable {
        /// Reading and writing records.
        case writing
        /// Building the indexes dropped for a first load (`ImportSummary.deferredIndexes`).
        case buildingIndexes = "building indexes"
        /// `--delete-missing`: deleting the rows no record matched.
        case deleting
        /// Committing the transaction (or, for a dry run, rolling it back).
        case committing
    }

    public var phase: Phase = .writing
    /// Records handed to the writer.
    public var rowsRead: Int
    /// Records the writer has applied, rejected or set aside.
    public var rowsWritten: Int
    /// Bytes of the input files read from disk (compressed bytes for a compressed input).
    public var bytesRead: Int64
    /// The input files' sizes on disk, when every input is a regular file.
    public var totalBytes: Int64?

    public init(phase: Phase = .writing, rowsRead: Int, rowsWritten: Int, bytesRead: Int64, totalBytes: Int64?) {
        self.phase = phase
        self.rowsRead = rowsRead
        self.rowsWritten = rowsWritten
        self.bytesRead = bytesRead
        self.totalBytes = totalBytes
    }

    /// The fraction of the run done, from the bytes read scaled by the share of records
    /// read that the writer has applied; nil without sizes.
    public var fractionWritten: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        let applied = rowsRead > 0 ? Double(rowsWritten) / Double(rowsRead) : 0
        return min(Double(bytesRead) * applied / Double(totalBytes), 1)
    }
}
