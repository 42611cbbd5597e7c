import ArgumentParser
import Foundation
import SQLImportKit

/// `sqlimport import`: stream files into a table. Only adapts flags to `ImportOptions`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stream files into a SQLite table, inserting or upserting each record.",
        discussion: """
            Inputs are JSON Lines, JSON arrays, CSV or TSV, plain or zstd/gzip-compressed; - reads standard input. \
            All inputs of a run go into one table, in one transaction: a failure leaves the database as it was.
            """)

    @OptionGroup var database: DatabaseOption

    @Argument(help: ArgumentHelp("Input files; - for standard input.", valueName: "file"))
    var inputs: [String] = []

    @Option(help: "The table to write. Default: the first input's name without extensions.")
    var table: String?

    @Option(help: "Input format: jsonl, json, csv or tsv. Default: from the content (JSON) and the extension, the CSV delimiter sniffed.")
    var format: String?

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

    @Option(help: ArgumentHelp("The inputs' character encoding: utf-8 (default), latin1, windows-1252 or utf-16 (utf-16le, utf-16be).", valueName: "name"))
    var encoding: String?

    @Flag(name: [.customLong("no-header"), .customLong("no-headers")], help: "The CSV/TSV input has no header row; columns are named c1, c2, ...")
    var noHeader = false

    @Option(name: .customLong("null"), help: "An unquoted CSV/TSV field equal to this text is NULL (e.g. NA).")
    var nullText: String?

    @Flag(help: "Nested JSON objects fill columns instead of JSON text: by leaf name (timestamps.createdAt → createdAt, a column group) or by prefixed name (meta.color → meta_color), whichever the table has; a new table gets prefixed names.")
    var flatten = false

    @Option(name: .customLong("flatten-by"), help: ArgumentHelp("With nested objects (implies --flatten), fill columns only by leaf or only by prefix names.", valueName: "leaf|prefix"))
    var flattenBy: FlattenNaming?

    @Option(name: .customLong("enum"), help: ArgumentHelp("Enum case columns (implies --flatten): {\"kind\":{\"note\":…}} fills note and sets the other columns listed to NULL (repeatable).", valueName: "field=col,col,..."))
    var enumGroups: [String] = []

    @Option(name: .customLong("group"), help: ArgumentHelp("A nested field that is a column group, never read as an enum (repeatable).", valueName: "field"))
    var columnGroups: [String] = []

    @Flag(name: .customLong("delete-missing"), help: "Sync mirror (needs --upsert): after the input, in the same transaction, delete the table's rows that no record matched.")
    var deleteMissing = false

    @Option(help: ArgumentHelp("With --delete-missing: only rows whose values in these columns appear in the input may be deleted (e.g. libraryID).", valueName: "columns"))
    var scope: String?

    @Option(name: .customLong("max-delete"), help: ArgumentHelp("With --delete-missing: the most rows it may delete, a count or a percentage of the rows in scope; more stops the run, nothing committed. Default 10%; an empty input deletes nothing unless 100%.", valueName: "n|p%"))
    var maxDelete: String?

    @Option(help: ArgumentHelp("A record whose FIELD is true (or equals VALUE) deletes its row instead of being upserted (needs --upsert).", valueName: "field[=value]"))
    var tombstone: String?

    @Option(help: ArgumentHelp("Upsert on these columns (a primary key or unique index), comma-separated.", valueName: "columns"))
    var upsert: String?

    @Option(help: ArgumentHelp("On conflict: replace, coalesce, newer:COLUMN or ignore.", valueName: "policy"))
    var merge = "replace"

    @Option(help: ArgumentHelp("Write strategy: auto, typed, cached or multirow.", valueName: "strategy"))
    var strategy = "auto"

    @Flag(help: "Create a unique index on the --upsert columns when the table has none.")
    var createIndex = false

    @Flag(help: "Add columns for fields the table lacks.")
    var alter = false

    @Flag(help: "Drop fields the table has no column for.")
    var ignoreUnknown = false

    @Option(help: ArgumentHelp("Records sampled to infer the types of a new table, or all (reads a file twice).", valueName: "n|all"))
    var inferRows = "1000"

    @Option(help: ArgumentHelp("Primary key of a table created by this run, comma-separated.", valueName: "columns"))
    var pk: String?

    @Option(name: .customLong("type"), help: ArgumentHelp("Declared type of a new table's column (repeatable).", valueName: "column=TYPE"))
    var types: [String] = []

    @Flag(help: "Run the whole import and roll it back: the same errors, plan and counts as the real run, nothing written (holds the write lock).")
    var dryRun = false

    @Flag(help: "Only read and parse the input, counting its records; no database is opened.")
    var parseOnly = false

    @Option(help: ArgumentHelp("With --strategy multirow: at most this many records per statement (default 500).", valueName: "n"))
    var rowsPerStatement: Int?

    @Option(help: "Page cache for the run, in MiB.")
    var cacheMib = 256

    @Option(name: .customLong("sort-memory"), help: ArgumentHelp("MiB for key-ordered writes: an upsert applies its records in runs sorted by the key SQLite looks up first, three runs in memory at once; 0 applies them in input order.", valueName: "MiB"))
    var sortMemory = 48

    @Option(help: ArgumentHelp("Wait this long for another writer's lock.", valueName: "ms"))
    var busyTimeout = 5000

    @Option(help: "Refuse any single record larger than this many bytes.")
    var maxRecordBytes = 256 << 20

    @Option(help: ArgumentHelp("Write a JSON report to this file (- for standard output).", valueName: "file"))
    var report: String?

    @Option(help: ArgumentHelp("Commit every N records, recording progress in _sqlimport_runs. Default: one transaction.", valueName: "n"))
    var commitEvery: Int?

    @Flag(help: "Continue an interrupted --commit-every run after its last commit (an input that changed since starts over).")
    var resume = false

    @Flag(help: "With --resume: stop (exit 65) when an input changed since the interrupted run, instead of starting it over.")
    var strictResume = false

    @Option(help: ArgumentHelp(
        "A record whose --upsert key has a NULL column (or is outside a partial index), when the input has no primary key to match it by: error (commit nothing), skip (set it aside) or insert (a new row each run).",
        valueName: "error|skip|insert"))
    var nullKey = "error"

    @Option(help: ArgumentHelp("A record that repeats an earlier record's --upsert key: warn (the later wins, counted) or error (commit nothing).", valueName: "warn|error"))
    var duplicateKeys = "warn"

    @Option(help: ArgumentHelp("On a bad record: abort (commit nothing) or skip (set it aside).", valueName: "abort|skip"))
    var onError = "abort"

    @Option(help: ArgumentHelp("With --on-error skip: write bad records here, one JSON object per line.", valueName: "file"))
    var rejects: String?

    @Option(help: ArgumentHelp("With --on-error skip: abort (rolled back) past this many bad records.", valueName: "n"))
    var maxErrors: Int?

    @Flag(help: "Switch the database to WAL journal mode first (persistent). Otherwise the journal mode is never changed.")
    var wal = false

    @Flag(help: "Show progress on stderr even when it is not a terminal.")
    var progress = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("no input given; pass a file, or - for standard input") }
        if let format, InputFormat(rawValue: format) == nil { throw ValidationError("--format \(format): expected jsonl, json, csv or tsv") }
        if formatFlags.count + (format == nil ? 0 : 1) > 1 { throw ValidationError("choose one format: --format, --csv, --tsv, --jsonl (--nl) or --json") }
        if let path, path.isEmpty || path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            throw ValidationError("--path takes keys separated by dots, e.g. --path data.items")
        }
        if path != nil, let format, format != "json" { throw ValidationError("--path reads a JSON document; drop --format \(format)") }
        if let encoding, TextEncoding(argument: encoding) == nil {
            throw ValidationError(InputError.unsupportedEncoding(encoding).description)
        }
        if let delimiter, Self.delimiterByte(delimiter) == nil {
            throw ValidationError("--delimiter takes one single-byte character, e.g. ';' or '|', or tab (also \\t)")
        }
        if MergePolicy(argument: merge) == nil { throw ValidationError("--merge \(merge): expected replace, coalesce, newer:COLUMN or ignore") }
        if WriteStrategyKind(rawValue: strategy) == nil { throw ValidationError("--strategy \(strategy): expected auto, typed, cached or multirow") }
        if inferRows != "all", (Int(inferRows) ?? 0) < 1 { throw ValidationError("--infer-rows takes a number of records (at least 1) or all") }
        if let rowsPerStatement, rowsPerStatement < 1 { throw ValidationError("--rows-per-statement must be at least 1") }
        for type in types where !type.contains("=") { throw ValidationError("--type \(type): expected COLUMN=TYPE, e.g. --type zip=TEXT") }
        if ImportOptions.ErrorPolicy(rawValue: onError) == nil { throw ValidationError("--on-error \(onError): expected abort or skip") }
        if merge != "replace" && upsert == nil { throw ValidationError("--merge \(merge) applies to rows an upsert finds; add --upsert COLUMNS") }
        if ImportOptions.NullKeyPolicy(rawValue: nullKey) == nil { throw ValidationError("--null-key \(nullKey): expected error, skip or insert") }
        if (deleteMissing || tombstone != nil) && upsert == nil {
            throw ValidationError("--delete-missing and --tombstone find rows by the conflict target; add --upsert COLUMNS")
        }
        if (scope != nil || maxDelete != nil) && !deleteMissing { throw ValidationError("--scope and --max-delete go with --delete-missing") }
        if let maxDelete, MaxDelete(argument: maxDelete) == nil {
            throw ValidationError(MirrorError.invalidMaxDelete(maxDelete).description)
        }
        if !(0 ... 1 << 20).contains(sortMemory) { throw ValidationError("--sort-memory takes MiB from 0 (input order) to 1048576") }
        for group in enumGroups {
            do { _ = try EnumGroup(argument: group) } catch { throw ValidationError(error.description) }
        }
        if ImportOptions.DuplicateKeyPolicy(rawValue: duplicateKeys) == nil { throw ValidationError("--duplicate-keys \(duplicateKeys): expected warn or error") }
    }

    var options: ImportOptions {
        var options = ImportOptions(inputs: inputs, databasePath: database.resolved)
        options.table = table
        options.reader.format = format.flatMap(InputFormat.init(rawValue:)) ?? formatFlags.first
        options.reader.delimiter = delimiter.flatMap(Self.delimiterByte)
        options.reader.encoding = encoding.flatMap(TextEncoding.init(argument:)) ?? .utf8
        if let path {
            options.reader.path = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            options.reader.format = options.reader.format ?? .json
        }
        options.reader.hasHeader = !noHeader
        options.reader.nullText = nullText
        options.reader.flatten = flatten
        if let flattenBy { options.flattenNaming = flattenBy }
        options.enumGroups = enumGroups.compactMap { try? EnumGroup(argument: $0) }  // checked in validate()
        options.columnGroups = columnGroups
        options.mirror.deleteMissing = deleteMissing
        options.mirror.scope = scope.map(Self.columnList) ?? []
        if let maxDelete, let parsed = MaxDelete(argument: maxDelete) { options.mirror.maxDelete = parsed }
        options.mirror.tombstone = tombstone.map(Tombstone.init(argument:))
        if !columnGroups.isEmpty { options.reader.flatten = true }
        options.reader.maxRecordBytes = maxRecordBytes
        options.upsert = upsert.map(Self.columnList)
        options.merge = MergePolicy(argument: merge)!
        options.strategy = WriteStrategyKind(rawValue: strategy)!
        options.createIndex = createIndex
        options.alter = alter
        options.ignoreUnknown = ignoreUnknown
        options.inferRows = inferRows == "all" ? ImportOptions.inferFromAllRecords : Int(inferRows)!
        options.primaryKey = pk.map(Self.columnList) ?? []
        for type in types {
            let parts = type.split(separator: "=", maxSplits: 1)
            options.typeOverrides[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        options.dryRun = dryRun
        options.parseOnly = parseOnly
        options.cacheSizeMiB = cacheMib
        options.sortMemoryMiB = sortMemory
        options.busyTimeoutMilliseconds = busyTimeout
        options.multirowCap = rowsPerStatement
        options.commitEvery = commitEvery
        options.resume = resume || strictResume
        options.strictResume = strictResume
        options.onError = ImportOptions.ErrorPolicy(rawValue: onError)!
        options.nullKey = ImportOptions.NullKeyPolicy(rawValue: nullKey)!
        options.duplicateKeys = ImportOptions.DuplicateKeyPolicy(rawValue: duplicateKeys)!
        options.rejectsPath = rejects
        options.maxErrors = maxErrors
        options.wal = wal
        return options
    }

    /// The formats chosen by --csv, --tsv, --jsonl (--nl) and --json.
    var formatFlags: [InputFormat] {
        [(csv, InputFormat.csv), (tsv, .tsv), (jsonl, .jsonl), (json, .json)].filter(\.0).map(\.1)
    }

    /// `--delimiter`: one byte, or `tab` / `\t` (as users of the peers type it).
    static func delimiterByte(_ text: String) -> UInt8? {
        if text == "tab" || text == "\\t" || text == "\t" { return 0x09 }
        return text.utf8.count == 1 ? text.utf8.first : nil
    }

    static func columnList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func run() throws {
        var options = self.options
        let cancellation = Cancellation()
        options.cancellation = cancellation
        Signals.cancel(cancellation)
        let display = ProgressDisplay.isWanted(forced: progress, quiet: quiet) ? ProgressDisplay() : nil
        if let report {
            do {
                try ReportWriter.checkWritable(report)
            } catch {
                FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error))")
                throw ExitCode(ExitStatus.code(for: error))
            }
        }
        let importer = Importer(options: options)
        let summary: ImportSummary
        do {
            summary = try importer.run(progress: display.map { display in { display.update($0) } })
            display?.finish()
        } catch {
            display?.finish()
            let code = ExitStatus.code(for: error)
            FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error))")
            if let partial = importer.partialSummary {
                if !quiet { FileHandle.standardError.writeLine(SummaryFormatter.line(partial)) }
                if let report { try? ReportWriter.write(partial, exitCode: code, error: ExitStatus.message(for: error), to: report) }
            } else if let report {
                try? ReportWriter.write(error: error, exitCode: code, to: report)
            }
            throw ExitCode(code)
        }
        let code = summary.counts.rejected > 0 ? ExitStatus.someRejected : ExitStatus.success
        // The plan goes to stdout, unless the JSON report does: then stdout holds JSON alone.
        if dryRun && !parseOnly { StandardOutput.write(PlanFormatter.plan(summary) + "\n", to: report == "-" ? STDERR_FILENO : STDOUT_FILENO) }
        if let report {
            do {
                try ReportWriter.write(summary, exitCode: code, to: report)
            } catch {
                if !quiet { FileHandle.standardError.writeLine(SummaryFormatter.line(summary)) }
                FileHandle.standardError.writeLine(
                    "sqlimport: error: the import was committed; the report could not be written: \(ExitStatus.message(for: error))")
                throw ExitCode(ExitStatus.ioError)
            }
        }
        if !quiet {
            for warning in summary.warnings { FileHandle.standardError.writeLine("sqlimport: warning: \(warning)") }
            if summary.resumedRecords > 0 {
                FileHandle.standardError.writeLine("sqlimport: resumed after \(SummaryFormatter.grouped(summary.resumedRecords)) records committed by the interrupted run")
            }
            FileHandle.standardError.writeLine(SummaryFormatter.line(summary))
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }
}

extension FlattenNaming: ExpressibleByArgument {
    public static var allValueStrings: [String] { ["leaf", "prefix"] }
}
