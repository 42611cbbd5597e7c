import ArgumentParser
import Foundation
import SQLImportKit

/// `sqlimport export`: a table or a query's rows as JSON Lines, JSON, CSV or TSV. Only
/// adapts flags to `ExportOptions`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Stream a table or a query's rows out as JSON Lines, JSON, CSV or TSV.",
        discussion: """
            Writes to standard output, or with -o to a file that appears only when complete. \
            The format comes from -o's extension (ignoring .zst/.gz), else JSON Lines; .zst or --zstd compresses \
            with zstd, .gz with gzip. A BLOB is written as {"$base64":"..."} in JSON and base64:... in CSV/TSV, \
            which import turns back into bytes.

            EXAMPLES:
              sqlimport export items --db app.db -o items.csv.zst
              sqlimport export --db app.db --param since=2026-11-01 \\
                --query "SELECT * FROM items WHERE updatedAt >= :since"
              sqlimport export items --db app.db | jq -c 'select(.remoteID == null)'

            Exit codes: 0 done; 64 usage (an existing -o without --force, an unbound
            parameter, a query that does not prepare); 73 the database cannot be
            opened; 74 the output cannot be written; 70 SQLite failed mid-query.
            """)

    @OptionGroup var database: DatabaseOption

    @Argument(help: "The table or view to export.")
    var table: String?

    @Option(help: ArgumentHelp("Export the rows of this read-only SQL query instead of a table.", valueName: "sql"))
    var query: String?

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("The output file; - or none for standard output. An existing file is kept unless --force.", valueName: "file"), completion: .file())
    var output: String?

    @Option(help: "Output format. Default: from -o's extension, else jsonl.")
    var format: InputFormat?

    @Option(name: .customLong("param"), help: ArgumentHelp("A value for --query's parameter :NAME, bound as text (repeatable); an unbound parameter is an error.", valueName: "name=value"))
    var parameters: [String] = []

    @Flag(help: "Replace an existing output file.")
    var force = false

    @Option(help: ArgumentHelp("Progress on stderr, as import's: on (plain lines when stderr is not a terminal) or json. A bare --progress is on.", valueName: "on|json"))
    var progress: ProgressMode?

    @Option(
        name: .customLong("zstd"),
        help: ArgumentHelp("Compress with zstd; --zstd alone is level \(ZstdCompressingSink.defaultLevel).", valueName: "level"))
    var zstdLevel: Int?

    @Option(help: ArgumentHelp("zstd worker threads (default: one per core, as zstd -T0; 0 compresses on the writing thread).", valueName: "n"))
    var threads: Int?

    @Option(name: .customLong("null"), help: ArgumentHelp("How CSV/TSV write NULL. Default: an empty unquoted field.", valueName: "text"))
    var nullText: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Wait this long for another writer's lock.", valueName: "ms"))
    var busyTimeout = 5000

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    /// `--zstd` may come without a value (`--zstd[=LEVEL]`), which ArgumentParser cannot
    /// express: a bare `--zstd` of `export` is rewritten to `--zstd=3` before parsing.
    static func normalizing(_ arguments: [String]) -> [String] {
        guard arguments.first == "export" else { return arguments }
        var result: [String] = []
        var afterTerminator = false
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { afterTerminator = true }
            // `--zstd 19` keeps its level; a bare `--zstd` gets the default.
            let next = index + 1 < arguments.count ? arguments[index + 1] : nil
            let bare = !afterTerminator && argument == "--zstd" && Int(next ?? "") == nil
            result.append(bare ? "--zstd=\(ZstdCompressingSink.defaultLevel)" : argument)
        }
        return result
    }

    func validate() throws {
        try RepeatedOptions.refuse(in: Self.self)
        if busyTimeout < 0 { throw ValidationError("--busy-timeout takes milliseconds, 0 or more (0: fail at once when the database is locked)") }
        if (table == nil) == (query == nil) { throw ValidationError("name a table, or pass --query \"SELECT ...\" (one of the two)") }
        for parameter in parameters where !parameter.contains("=") || parameter.hasPrefix("=") {
            throw ValidationError("--param \(parameter): expected NAME=VALUE, e.g. --param since=2026-01-01 for :since")
        }
        if !parameters.isEmpty && query == nil { throw ValidationError("--param binds --query's parameters; add --query") }
        if force && (output == nil || output == "-") { throw ValidationError("--force replaces an output file; add -o FILE") }
        if let zstdLevel, !ZstdCompressingSink.levels.contains(zstdLevel) {
            throw ValidationError("--zstd=\(zstdLevel): the level must be within \(ZstdCompressingSink.levels)")
        }
        if let threads, threads < 0 { throw ValidationError("--threads must be 0 or more") }
    }

    var options: ExportOptions {
        var options = ExportOptions(databasePath: database.resolved, source: query.map(ExportSource.query) ?? .table(table!))
        options.outputPath = output
        options.format = format
        options.force = force
        for parameter in parameters {
            let parts = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            options.parameters[String(parts[0])] = String(parts[1])
        }
        options.zstdLevel = zstdLevel
        options.zstdWorkers = threads
        options.nullText = nullText
        options.busyTimeoutMilliseconds = busyTimeout
        return options
    }

    func run() throws {
        Signals.removeTemporaryFilesAndExit()
        if StandardOutput.isNamed(by: output ?? "-") { try StandardOutput.refuseIfClosedAtStart(sending: "the export") }
        let summary: ExportSummary
        let display = ProgressDisplay.make(mode: progress, quiet: quiet || output == nil || output == "-")
        defer { display?.finish() }
        do {
            let report = display.map { display in
                { (rows: Int) in display.update(ImportProgress(rowsRead: rows, rowsWritten: rows, bytesRead: 0, totalBytes: nil)) }
            }
            summary = PostgresConnection.isURL(options.databasePath)
                ? try PostgresExporter(options: options).run(progress: report)
                : try Exporter(options: options).run(progress: report)
        } catch OutputError.brokenPipe {
            // `sqlimport export items | head`: the reader has all it wanted.
            return
        } catch {
            FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error, database: options.databasePath))")
            throw ExitCode(ExitStatus.code(for: error))
        }
        if !quiet, let path = summary.output {
            FileHandle.standardError.writeLine(
                "\(path): \(SummaryFormatter.grouped(summary.rows)) rows · \(summary.format.rawValue) · \(SummaryFormatter.grouped(Int(summary.bytesWritten))) bytes")
        }
    }
}
