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
    /// With --resume: inputs that changed since the interrupted run, imported from their
    /// first record.
    public var restartedInputs: [String] = []
    /// `CREATE TABLE` run (or, with --dry-run, that would run) for a missing table.
    public var createdTable: String?
    public var addedColumns: [String] = []
    public var createdIndex: String?
    /// Secondary indexes built after the load instead of row by row (a first load).
    public var deferredIndexes: [String] = []
    /// Enum groups the run applied (`--enum`, or recognised), as `FIELD=COL,COL`.
    public var enumGroups: [String] = []
    /// The order records were applied in (`KeyOrder`): sorted by key in runs, or the
    /// input's order and why.
    public var keyOrder: String?
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
    public var startedAt = Date()
    public var finishedAt = Date()

    public var durationSeconds: Double { finishedAt.timeIntervalSince(startedAt) }
    public var bytesRead: Int64 { inputs.reduce(0) { $0 + $1.bytesRead } }
}

/// Progress of a run, reported once per batch.
public struct ImportProgress: Sendable {
    public var rowsRead: Int
    public var bytesRead: Int64
    /// Total input size when every input is a regular uncompressed file.
    public var totalBytes: Int64?
}
