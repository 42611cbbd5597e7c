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
            """)

    @OptionGroup var database: DatabaseOption

    @Argument(help: "The table or view to export.")
    var table: String?

    @Option(help: ArgumentHelp("Export the rows of this read-only SQL query instead of a table.", valueName: "sql"))
    var query: String?

    @Option(name: [.customShort("o"), .long], help: ArgumentHelp("The output file; - or none for standard output.", valueName: "file"))
    var output: String?

    @Option(help: "Output format: jsonl, json, csv or tsv. Default: from -o's extension, else jsonl.")
    var format: String?

    @Option(
        name: .customLong("zstd"),
        help: ArgumentHelp("Compress with zstd; --zstd alone is level \(ZstdCompressingSink.defaultLevel).", valueName: "level"))
    var zstdLevel: Int?

    @Option(help: ArgumentHelp("zstd worker threads (default: one per core, as zstd -T0; 0 compresses on the writing thread).", valueName: "n"))
    var threads: Int?

    @Option(name: .customLong("null"), help: ArgumentHelp("How CSV/TSV write NULL. Default: an empty unquoted field.", valueName: "text"))
    var nullText: String?

    @Option(help: ArgumentHelp("Wait this long for another writer's lock.", valueName: "ms"))
    var busyTimeout = 5000

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    /// `--zstd` may come without a value (`--zstd[=LEVEL]`), which ArgumentParser cannot
    /// express: a bare `--zstd` of `export` is rewritten to `--zstd=3` before parsing.
    static func normalizing(_ arguments: [String]) -> [String] {
        guard arguments.first == "export" else { return arguments }
        var result: [String] = []
        var afterTerminator = false
        for argument in arguments {
            if argument == "--" { afterTerminator = true }
            result.append(!afterTerminator && argument == "--zstd" ? "--zstd=\(ZstdCompressingSink.defaultLevel)" : argument)
        }
        return result
    }

    func validate() throws {
        if (table == nil) == (query == nil) { throw ValidationError("name a table, or pass --query \"SELECT ...\" (one of the two)") }
        if let format, InputFormat(rawValue: format) == nil { throw ValidationError("--format \(format): expected jsonl, json, csv or tsv") }
        if let zstdLevel, !ZstdCompressingSink.levels.contains(zstdLevel) {
            throw ValidationError("--zstd=\(zstdLevel): the level must be within \(ZstdCompressingSink.levels)")
        }
        if let threads, threads < 0 { throw ValidationError("--threads must be 0 or more") }
    }

    var options: ExportOptions {
        var options = ExportOptions(databasePath: database.resolved, source: query.map(ExportSource.query) ?? .table(table!))
        options.outputPath = output
        options.format = format.flatMap(InputFormat.init(rawValue:))
        options.zstdLevel = zstdLevel
        options.zstdWorkers = threads
        options.nullText = nullText
        options.busyTimeoutMilliseconds = busyTimeout
        return options
    }

    func run() throws {
        Signals.removeTemporaryFilesAndExit()
        let summary: ExportSummary
        do {
            summary = try Exporter(options: options).run()
        } catch OutputError.brokenPipe {
            // `sqlimport export items | head`: the reader has all it wanted.
            return
        } catch {
            FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error))")
            throw ExitCode(ExitStatus.code(for: error))
        }
        if !quiet, let path = summary.output {
            FileHandle.standardError.writeLine(
                "\(path): \(SummaryFormatter.grouped(summary.rows)) rows · \(summary.format.rawValue) · \(SummaryFormatter.grouped(Int(summary.bytesWritten))) bytes")
        }
    }
}
