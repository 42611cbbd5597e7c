import ArgumentParser
import SQLImportKit

// `sqlimport import --help` lists its flags in these groups, in this order.

/// What the inputs are and how their bytes are read.
struct InputFlags: ParsableArguments {
    @Option(help: "Input format. Default: from the content (JSON) and the extension, the CSV delimiter sniffed.")
    var format: InputFormat?

    @Flag(help: "Same as --format csv.")
    var csv = false

    @Flag(help: "Same as --format tsv.")
    var tsv = false

    @Flag(name: [.customLong("jsonl"), .customLong("nl")], help: "Same as --format jsonl.")
    var jsonl = false

    @Flag(help: "Same as --format json.")
    var json = false

    @Option(help: "CSV/TSV field delimiter: one character, or tab (also \\t). Default: sniffed from the header and first records among , ; tab |.")
    var delimiter: String?

    @Option(help: ArgumentHelp("JSON: the records are the array at this path of keys, e.g. data.items for {\"data\":{\"items\":[...]}}.", valueName: "keys"))
    var path: String?

    @Option(help: ArgumentHelp(
        "The inputs' character encoding: utf-8 (default), latin1, windows-1252 or utf-16 (utf-16le, utf-16be).", valueName: "name"),
        completion: .list(["utf-8", "latin1", "windows-1252", "utf-16", "utf-16le", "utf-16be"]))
    var encoding: String?

    @Flag(name: [.customLong("no-header"), .customLong("no-headers")], help: "The CSV/TSV input has no header row; columns are named c1, c2, ...")
    var noHeader = false

    @Option(name: .customLong("null"), help: ArgumentHelp("An unquoted CSV/TSV field equal to this text is NULL (e.g. NA).", valueName: "text"))
    var nullText: String?

    @Flag(help: "Nested JSON objects fill columns instead of JSON text: by leaf name (timestamps.createdAt → createdAt, a column group) or by prefixed name (meta.color → meta_color), whichever the table has; a new table gets prefixed names.")
    var flatten = false

    @Option(name: .customLong("flatten-by"), help: "With nested objects (implies --flatten), fill columns only by leaf or only by prefix names.")
    var flattenBy: FlattenNaming?

    @Option(name: .customLong("enum"), help: ArgumentHelp("Enum case columns (implies --flatten): {\"kind\":{\"note\":…}} fills note and sets the other columns listed to NULL (repeatable).", valueName: "field=col,col,..."))
    var enumGroups: [String] = []

    @Option(name: .customLong("group"), help: ArgumentHelp("A nested field that is a column group, never read as an enum (repeatable).", valueName: "field"))
    var columnGroups: [String] = []

    @Option(parsing: .unconditional, help: ArgumentHelp("Refuse any single record larger than this many bytes.", valueName: "bytes"))
    var maxRecordBytes = 256 << 20

    /// The formats chosen by --csv, --tsv, --jsonl (--nl) and --json.
    var formatFlags: [InputFormat] {
        [(csv, InputFormat.csv), (tsv, .tsv), (jsonl, .jsonl), (json, .json)].filter(\.0).map(\.1)
    }
}

/// Which rows a record lands on, and what it does to them.
struct KeyFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Upsert on these columns (a primary key or unique index), comma-separated.", valueName: "columns"))
    var upsert: String?

    @Option(help: ArgumentHelp("On conflict: replace, coalesce, newer:COLUMN or ignore.", valueName: "policy"))
    var merge: MergePolicy = .replace

    @Flag(help: "Create a unique index on the --upsert columns when the table has none.")
    var createIndex = false

    @Option(help: ArgumentHelp(
        "A record whose --upsert key has a NULL column (or is outside a partial index), when the input has no primary key to match it by: error (commit nothing), skip (set it aside) or insert (a new row each run)."))
    var nullKey: ImportOptions.NullKeyPolicy = .error

    @Option(help: "A record that repeats an earlier record's --upsert key: warn (the later wins, counted) or error (commit nothing).")
    var duplicateKeys: ImportOptions.DuplicateKeyPolicy = .warn

    @Flag(name: .customLong("delete-missing"), help: "Sync mirror (needs --upsert): after the input, in the same transaction, delete the table's rows that no record matched.")
    var deleteMissing = false

    @Option(help: ArgumentHelp("With --delete-missing: only rows whose values in these columns appear in the input may be deleted (e.g. libraryID).", valueName: "columns"))
    var scope: String?

    @Option(name: .customLong("max-delete"), parsing: .unconditional, help: ArgumentHelp("With --delete-missing: the most rows it may delete, a count or a percentage of the rows in scope; more stops the run, nothing committed. Default 10%; an empty input deletes nothing unless 100%.", valueName: "n|p%"))
    var maxDelete: String?

    @Option(help: ArgumentHelp("A record whose FIELD is true (or equals VALUE) deletes its row instead of being upserted (needs --upsert).", valueName: "field[=value]"))
    var tombstone: String?
}

/// The table: which one, and whether its schema may change.
struct SchemaFlags: ParsableArguments {
    @Option(help: "The table to write. Default: the first input's name without its known extensions (.jsonl .ndjson .json .csv .tsv .txt .gz .zst).")
    var table: String?

    @Flag(help: "Add columns for fields the table lacks.")
    var alter = false

    @Flag(help: "Drop fields the table has no column for.")
    var ignoreUnknown = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Records sampled to infer the types of a new table, or all (reads a file twice).", valueName: "n|all"))
    var inferRows = "1000"

    @Option(help: ArgumentHelp("Primary key of a table created by this run, comma-separated.", valueName: "columns"))
    var pk: String?

    @Option(name: .customLong("type"), help: ArgumentHelp("Declared type of a new table's column (repeatable).", valueName: "column=TYPE"))
    var types: [String] = []
}

/// What makes a run safe to schedule: rehearsal, bad records, checkpoints, locks.
struct SafetyFlags: ParsableArguments {
    @Flag(help: "Run the whole import and roll it back: the same errors, plan and counts as the real run, nothing written (holds the write lock).")
    var dryRun = false

    @Option(help: "On a bad record: abort (commit nothing) or skip (set it aside, exit 2).")
    var onError: ImportOptions.ErrorPolicy = .abort

    @Option(help: ArgumentHelp("With --on-error skip: write bad records here, one JSON object per line.", valueName: "file"), completion: .file())
    var rejects: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("With --on-error skip: abort (rolled back) past this many bad records.", valueName: "n"))
    var maxErrors: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Commit every N records, recording progress in _sqlimport_runs. Default: one transaction.", valueName: "n"))
    var commitEvery: Int?

    @Flag(help: "Continue an interrupted --commit-every run after its last commit (an input that changed since starts over).")
    var resume = false

    @Flag(help: "With --resume: stop (exit 65) when an input changed since the interrupted run, instead of starting it over.")
    var strictResume = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Wait this long for another writer's lock.", valueName: "ms"))
    var busyTimeout = 5000

    @Flag(help: "Switch the database to WAL journal mode first (persistent). Otherwise the journal mode is never changed.")
    var wal = false
}

/// What the run prints.
struct OutputFlags: ParsableArguments {
    @Option(help: ArgumentHelp("Write a JSON report to this file (- for standard output); see docs/cron.md.", valueName: "file"), completion: .file())
    var report: String?

    @Option(help: ArgumentHelp(
        "Progress on stderr: on (also when stderr is not a terminal: plain lines, one every few seconds) or json (one JSON object per line). A bare --progress is on.",
        valueName: "on|json"))
    var progress: ProgressMode?

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false
}

/// Speed: defaults chosen by the benchmarks; rarely worth changing.
struct TuningFlags: ParsableArguments {
    @Option(help: "Write strategy (they leave identical databases).")
    var strategy: WriteStrategyKind = .auto

    @Option(parsing: .unconditional, help: ArgumentHelp("With --strategy multirow: at most this many records per statement (default 500).", valueName: "n"))
    var rowsPerStatement: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Page cache for the run, in MiB.", valueName: "MiB"))
    var cacheMib = 256

    @Option(name: .customLong("sort-memory"), parsing: .unconditional, help: ArgumentHelp("MiB for key-ordered writes: an upsert applies its records in runs sorted by the key the database looks up first, three runs in memory at once; 0 applies them in input order.", valueName: "MiB"))
    var sortMemory = 40

    @Flag(help: "Only read and parse the input, counting its records; no database is opened.")
    var parseOnly = false
}

/// `--progress[=on|json]`.
enum ProgressMode: String, ExpressibleByArgument, CaseIterable {
    case on
    case json
}

extension OutputFlags {
    /// A bare `--progress` means `--progress=on` (ArgumentParser has no optional values).
    static func normalizing(_ arguments: [String]) -> [String] {
        var result: [String] = []
        var afterTerminator = false
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { afterTerminator = true }
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            let bare = !afterTerminator && argument == "--progress" && !ProgressMode.allCases.map(\.rawValue).contains(next ?? "")
            result.append(bare ? "--progress=on" : argument)
        }
        return result
    }
}

extension InputFormat: ExpressibleByArgument {}
extension WriteStrategyKind: ExpressibleByArgument {}
extension ImportOptions.ErrorPolicy: ExpressibleByArgument {}
extension ImportOptions.NullKeyPolicy: ExpressibleByArgument {}
extension ImportOptions.DuplicateKeyPolicy: ExpressibleByArgument {}

extension MergePolicy: ExpressibleByArgument {
    public static var allValueStrings: [String] { ["replace", "coalesce", "newer:", "ignore"] }
    public var defaultValueDescription: String { description }
}

extension FlattenNaming: ExpressibleByArgument {
    public static var allValueStrings: [String] { ["leaf", "prefix"] }
}
