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

            EXAMPLES:
              sqlimport items.jsonl --db app.db --upsert libraryID,remoteID
              sqlimport delta.jsonl.zst --db app.db --table items --upsert id \\
                --merge newer:updatedAt
              sqlimport flights.csv --db app.db --null NA --on-error skip \\
                --rejects bad.jsonl
              sqlimport nightly.jsonl --db app.db --upsert id --dry-run
              sqlimport feed.jsonl --db app.db --upsert id --commit-every 100000 \\
                --resume --report run.json

            \(ExitStatus.helpTable)
            """)

    @OptionGroup var database: DatabaseOption

    @Argument(help: ArgumentHelp("Input files; - for standard input.", valueName: "file"), completion: .file())
    var inputs: [String] = []

    @OptionGroup(title: "Input") var input: InputFlags
    @OptionGroup(title: "Keys and merge") var keys: KeyFlags
    @OptionGroup(title: "Schema") var schema: SchemaFlags
    @OptionGroup(title: "Safety and cron") var safety: SafetyFlags
    @OptionGroup(title: "Output") var output: OutputFlags
    @OptionGroup(title: "Tuning") var tuning: TuningFlags

    func validate() throws {
        try RepeatedOptions.refuse(in: Self.self)
        if safety.busyTimeout < 0 { throw ValidationError("--busy-timeout takes milliseconds, 0 or more (0: fail at once when the database is locked)") }
        // (No input is refused in `run`: ArgumentParser reports an unknown option only
        // after `validate`, and `--verison` alone said "no input given".)
        try Self.checkForMisplacedSubcommand(inputs)
        let format = input.format
        if input.formatFlags.count + (format == nil ? 0 : 1) > 1 { throw ValidationError("choose one format: --format, --csv, --tsv, --jsonl (--nl) or --json") }
        if let path = input.path, path.isEmpty || path.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
            throw ValidationError("--path takes keys separated by dots, e.g. --path data.items")
        }
        if input.path != nil, let format, format != .json { throw ValidationError("--path reads a JSON document; drop --format \(format.rawValue)") }
        if let encoding = input.encoding, TextEncoding(argument: encoding) == nil {
            throw ValidationError(InputError.unsupportedEncoding(encoding).description)
        }
        if let delimiter = input.delimiter, Self.delimiterByte(delimiter) == nil {
            throw ValidationError("--delimiter takes one single-byte character, e.g. ';' or '|', or tab (also \\t)")
        }
        let chosen = format ?? input.formatFlags.first
        if let chosen, input.nullText != nil, chosen == .json || chosen == .jsonl {
            throw ValidationError("--null applies to CSV and TSV fields; in JSON a null is written null. Drop --null, or read the input with --csv or --tsv")
        }
        if input.delimiter != nil || input.noHeader, let chosen, chosen == .json || chosen == .jsonl {
            throw ValidationError("--delimiter and --no-header apply to CSV and TSV; drop them for --format \(chosen.rawValue)")
        }
        if schema.inferRows != "all", (Int(schema.inferRows) ?? 0) < 1 { throw ValidationError("--infer-rows takes a number of records (at least 1) or all") }
        if let rows = tuning.rowsPerStatement {
            if rows < 1 { throw ValidationError("--rows-per-statement must be at least 1") }
            if tuning.strategy != .multirow { throw ValidationError("--rows-per-statement applies to --strategy multirow; add it, or drop --rows-per-statement") }
        }
        for type in schema.types where !type.contains("=") { throw ValidationError("--type \(type): expected COLUMN=TYPE, e.g. --type zip=TEXT") }
        let keyColumns = keys.upsert.map(Self.columnList) ?? []
        if let repeated = keyColumns.first(where: { name in keyColumns.filter { $0.sqliteFolded == name.sqliteFolded }.count > 1 }) {
            throw ValidationError("--upsert names \(repeated) twice; name each column of the key once")
        }
        if keys.merge != .replace && keys.upsert == nil { throw ValidationError("--merge \(keys.merge) applies to rows an upsert finds; add --upsert COLUMNS") }
        if keys.upsert == nil, keys.nullKey != .error || keys.duplicateKeys != .warn || keys.createIndex {
            throw ValidationError("--null-key, --duplicate-keys and --create-index apply to an upsert; add --upsert COLUMNS")
        }
        if (keys.deleteMissing || keys.tombstone != nil) && keys.upsert == nil {
            throw ValidationError("--delete-missing and --tombstone find rows by the conflict target; add --upsert COLUMNS")
        }
        if (keys.scope != nil || keys.maxDelete != nil) && !keys.deleteMissing { throw ValidationError("--scope and --max-delete go with --delete-missing") }
        if let maxDelete = keys.maxDelete, MaxDelete(argument: maxDelete) == nil {
            throw ValidationError(MirrorError.invalidMaxDelete(maxDelete).description)
        }
        if (safety.rejects != nil || safety.maxErrors != nil) && safety.onError != .skip {
            throw ValidationError("--rejects and --max-errors go with --on-error skip; add it, or drop them")
        }
        if safety.resume && safety.commitEvery == nil { throw ValidationError("--resume continues a --commit-every run; add --commit-every N (the interrupted run's)") }
        if safety.strictResume && safety.commitEvery == nil { throw ValidationError("--strict-resume goes with --commit-every N") }
        if !(0 ... 1 << 20).contains(tuning.sortMemory) { throw ValidationError("--sort-memory takes MiB from 0 (input order) to 1048576") }
        for group in input.enumGroups {
            do { _ = try EnumGroup(argument: group) } catch { throw ValidationError(error.description) }
        }
        if output.quiet && output.progress != nil { throw ValidationError("--quiet and --progress contradict each other; choose one") }
    }

    var options: ImportOptions {
        var options = ImportOptions(inputs: inputs, databasePath: database.resolved)
        options.table = schema.table
        options.reader.format = input.format ?? input.formatFlags.first
        options.reader.delimiter = input.delimiter.flatMap(Self.delimiterByte)
        options.reader.encoding = input.encoding.flatMap(TextEncoding.init(argument:)) ?? .utf8
        if let path = input.path {
            options.reader.path = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            options.reader.format = options.reader.format ?? .json
        }
        options.reader.hasHeader = !input.noHeader
        options.reader.nullText = input.nullText
        options.reader.flatten = input.flatten
        if let flattenBy = input.flattenBy { options.flattenNaming = flattenBy }
        options.enumGroups = input.enumGroups.compactMap { try? EnumGroup(argument: $0) }  // checked in validate()
        options.columnGroups = input.columnGroups
        options.mirror.deleteMissing = keys.deleteMissing
        options.mirror.scope = keys.scope.map(Self.columnList) ?? []
        if let maxDelete = keys.maxDelete, let parsed = MaxDelete(argument: maxDelete) { options.mirror.maxDelete = parsed }
        options.mirror.tombstone = keys.tombstone.map(Tombstone.init(argument:))
        if !input.columnGroups.isEmpty { options.reader.flatten = true }
        options.reader.maxRecordBytes = input.maxRecordBytes
        options.upsert = keys.upsert.map(Self.columnList)
        options.merge = keys.merge
        options.strategy = tuning.strategy
        options.createIndex = keys.createIndex
        options.alter = schema.alter
        options.ignoreUnknown = schema.ignoreUnknown
        options.inferRows = schema.inferRows == "all" ? ImportOptions.inferFromAllRecords : Int(schema.inferRows)!
        options.primaryKey = schema.pk.map(Self.columnList) ?? []
        for type in schema.types {
            let parts = type.split(separator: "=", maxSplits: 1)
            options.typeOverrides[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
        }
        options.dryRun = safety.dryRun
        options.parseOnly = tuning.parseOnly
        options.cacheSizeMiB = tuning.cacheMib
        options.sortMemoryMiB = tuning.sortMemory
        options.busyTimeoutMilliseconds = safety.busyTimeout
        options.multirowCap = tuning.rowsPerStatement
        options.commitEvery = safety.commitEvery
        options.resume = safety.resume || safety.strictResume
        options.strictResume = safety.strictResume
        options.onError = safety.onError
        options.nullKey = keys.nullKey
        options.duplicateKeys = keys.duplicateKeys
        options.rejectsPath = safety.rejects
        options.maxErrors = safety.maxErrors
        options.wal = safety.wal
        return options
    }

    /// `sqlimport --db x export t` or `sqlimport exprt t`: a first word that names no file
    /// but is (nearly) a subcommand is not read as an input.
    static func checkForMisplacedSubcommand(_ inputs: [String]) throws {
        let names = SQLImportCommand.configuration.subcommands.compactMap { $0.configuration.commandName ?? String(describing: $0).lowercased() }
        for word in inputs where word != "-" && !FileManager.default.fileExists(atPath: word) {
            if names.contains(word) {
                throw ValidationError(
                    "\(word) is a subcommand, and it comes first: options go after it, e.g. sqlimport \(word) --db app.db ... (an input named \(word) does not exist)")
            }
            if !word.contains("/") && !word.contains("."), let near = names.first(where: { EditDistance.between($0, word) <= 2 }) {
                throw ValidationError("\(word): no such file or subcommand; did you mean `sqlimport \(near)`?")
            }
        }
    }

    /// `--delimiter`: one byte, or `tab` / `\t` (as users of the peers type it).
    static func delimiterByte(_ text: String) -> UInt8? {
        if text == "tab" || text == "\\t" || text == "\t" { return 0x09 }
        return text.utf8.count == 1 ? text.utf8.first : nil
    }

    /// `--report` and `--rejects` never name the database (or its journal), an input, or
    /// each other: the run would replace what it reads, or lose the rejects.
    func refuseOverwritingWhatItReads(report: String?, options: ImportOptions) throws {
        let outputs = [report, options.rejectsPath].compactMap { $0 }.filter { $0 != "-" }
        for output in outputs {
            if !PostgresConnection.isURL(options.databasePath) {
                try OutputError.refuseReplacing(source: options.databasePath, with: output, what: "the database", hasForce: false)
            }
            for input in options.inputs where input != "-" {
                try OutputError.refuseReplacing(source: input, with: output, what: "an input", hasForce: false)
            }
        }
        if outputs.count == 2 {
            do {
                try OutputError.refuseReplacing(source: outputs[1], with: outputs[0], what: "the rejects file (--rejects)", hasForce: false)
            } catch {
                throw OutputError.sharedOutput(path: outputs[0], options: ["--report", "--rejects"])
            }
        }
    }

    static func columnList(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    func run() throws {
        if inputs.isEmpty { throw ValidationError("no input given; pass a file, or - for standard input") }
        // (A closed standard input reads as /dev/null: an empty input, which under
        // --delete-missing would mean that every row is missing.)
        if inputs.contains("-") && StandardOutput.stdinWasClosedAtStart {
            throw ValidationError("- reads standard input, which is closed (<&-); pass a file, or give the input on standard input")
        }
        var options = self.options
        let cancellation = Cancellation()
        options.cancellation = cancellation
        Signals.cancel(cancellation)
        let display = ProgressDisplay.make(mode: output.progress, quiet: output.quiet)
        do {
            // (Refused without a report: the report's path may be what it would replace.)
            try refuseOverwritingWhatItReads(report: output.report, options: options)
            if let report = output.report { try ReportWriter.checkWritable(report) }
        } catch {
            FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error))")
            throw ExitCode(ExitStatus.code(for: error))
        }
        let importer = Importer(options: options)
        let postgresImporter = PostgresImporter(options: options)
        let summary: ImportSummary
        do {
            let callback = display.map { display in { (progress: ImportProgress) in display.update(progress) } }
            if PostgresConnection.isURL(options.databasePath) && !options.parseOnly {
                summary = try postgresImporter.run(progress: callback)
            } else {
                summary = try importer.run(progress: callback)
            }
            display?.finish()
        } catch {
            display?.finish()
            let code = ExitStatus.code(for: error)
            let partial = importer.partialSummary ?? postgresImporter.partialSummary
            var message = ExitStatus.message(for: error)
            if let partial, options.commitEvery != nil, !partial.dryRun, partial.counts.read > 0 {
                message = ExitStatus.afterCheckpoints(message, error: error, committed: partial.counts.read - partial.counts.rejected)
            }
            FileHandle.standardError.writeLine("sqlimport: error: \(message)")
            if let partial {
                // A usage error stops the run before any record: no summary to give.
                if !output.quiet && code != ExitStatus.usage { FileHandle.standardError.writeLine(SummaryFormatter.failureLine(partial)) }
                if let report = output.report { try? ReportWriter.write(partial, exitCode: code, error: message, to: report) }
            } else if let report = output.report {
                try? ReportWriter.write(error: error, exitCode: code, to: report)
            }
            throw ExitCode(code)
        }
        let code = summary.counts.rejected > 0 ? ExitStatus.someRejected : ExitStatus.success
        // The plan goes to stdout, unless the JSON report does: then stdout holds JSON alone.
        if safety.dryRun && !tuning.parseOnly { StandardOutput.write(PlanFormatter.plan(summary) + "\n", to: output.report == "-" ? STDERR_FILENO : STDOUT_FILENO) }
        if let report = output.report {
            do {
                try ReportWriter.write(summary, exitCode: code, to: report)
            } catch {
                if !output.quiet { FileHandle.standardError.writeLine(SummaryFormatter.line(summary)) }
                FileHandle.standardError.writeLine(
                    "sqlimport: error: the import was committed; the report could not be written: \(ExitStatus.message(for: error))")
                throw ExitCode(ExitStatus.ioError)
            }
        }
        if !output.quiet {
            for line in SummaryFormatter.schemaChanges(summary) { FileHandle.standardError.writeLine("sqlimport: \(line)") }
            for warning in summary.warnings { FileHandle.standardError.writeLine("sqlimport: warning: \(warning)") }
            for line in SummaryFormatter.rejectReasons(summary, rejectsFile: safety.rejects) { FileHandle.standardError.writeLine("sqlimport: \(line)") }
            if summary.resumedRecords > 0 {
                FileHandle.standardError.writeLine("sqlimport: resumed after \(SummaryFormatter.grouped(summary.resumedRecords)) records committed by the interrupted run")
            }
            FileHandle.standardError.writeLine(SummaryFormatter.line(summary))
        }
        if code != ExitStatus.success { throw ExitCode(code) }
    }
}

