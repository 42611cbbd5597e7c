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
    /// `--pk`: primary key of a table created by the run.
    public var primaryKey: [String] = []
    /// `--type col=TYPE`: declared types that override inference.
    public var typeOverrides: [String: String] = [:]
    /// `--dry-run`: read and check everything, print the plan, write nothing.
    public var dryRun = false
    /// Page cache for the run, in MiB (`PRAGMA cache_size`); restored afterwards.
    public var cacheSizeMiB = 256
    /// How long to wait for another writer's lock, in milliseconds.
    public var busyTimeoutMilliseconds = 5000
    /// Records per statement cap for `multirow` (nil: `MultiRowStrategy.defaultCap`).
    public var multirowCap: Int?
    /// Records per batch handed from the reading thread to the writing one.
    public var rowsPerBatch = 4096

    public init(inputs: [String], databasePath: String) {
        self.inputs = inputs
        self.databasePath = databasePath
    }

    /// The table a run writes to: `--table`, else the first input's base name without
    /// its extensions (`data/items.jsonl.zst` → `items`).
    public func resolvedTable() throws(ImportError) -> String {
        if let table { return table }
        guard let first = inputs.first, first != "-" else { throw .tableNameNeeded }
        let base = first.split(separator: "/").last.map(String.init) ?? first
        let stem = base.split(separator: ".", omittingEmptySubsequences: false).first.map(String.init) ?? base
        guard !stem.isEmpty else { throw .tableNameNeeded }
        return stem
    }
}

/// Errors of a run as a whole.
public enum ImportError: Error, Sendable, CustomStringConvertible {
    case tableNameNeeded
    case noInputs
    case conflictingOptions(String)
    case emptyRecord(SourcePosition)
    case invalidFieldName(name: String, reason: String)

    public var description: String {
        switch self {
        case .tableNameNeeded:
            return "cannot name the table after standard input; pass --table NAME"
        case .noInputs:
            return "no input given; pass a file, or - for standard input"
        case .conflictingOptions(let text):
            return text
        case .emptyRecord(let position):
            return "\(position): the record has no field the table can store; check the input or use --alter"
        case .invalidFieldName(let name, let reason):
            return "field name \(SQLIdentifier.quote(name)) \(reason); rename it in the input"
        }
    }
}
