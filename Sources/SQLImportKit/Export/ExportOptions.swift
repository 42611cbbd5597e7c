import Foundation

/// What `sqlimport export` reads: a whole table or view, or the rows of one query.
public enum ExportSource: Sendable, Equatable {
    /// `SELECT * FROM "name"`.
    case table(String)
    /// One read-only SQL statement that returns rows.
    case query(String)
}

/// How export output is compressed.
public enum OutputCompression: Sendable, Equatable {
    case none
    /// One zstd frame with a checksum; `workers` is `ZSTD_c_nbWorkers` (0: on the
    /// writing thread).
    case zstd(level: Int, workers: Int)
    /// zlib `deflate` in a gzip wrapper.
    case gzip
}

/// Everything an export needs; `Exporter(options:).run()` takes it.
///
/// ```swift
/// var options = ExportOptions(databasePath: "app.db", source: .table("items"))
/// options.outputPath = "items.csv.zst"   // CSV, zstd level 3
/// let summary = try Exporter(options: options).run()
/// ```
public struct ExportOptions: Sendable {
    /// The database to read; it is opened read-only.
    public var databasePath: String
    /// A table or a query.
    public var source: ExportSource
    /// The output file; nil or `-` writes to standard output. A file is written under a
    /// temporary name next to it and renamed into place when complete.
    public var outputPath: String?
    /// `--format`; nil takes it from the output's extension (ignoring `.zst`/`.gz`), and
    /// is JSON Lines on standard output.
    public var format: InputFormat?
    /// `--zstd[=LEVEL]`: zstd at this level even when the output's name does not end in
    /// `.zst`.
    public var zstdLevel: Int?
    /// `--threads`: libzstd's worker threads; nil is one per core, as `zstd -T0` (0
    /// compresses on the writing thread).
    public var zstdWorkers: Int?
    /// `--null TEXT`: how CSV and TSV write NULL (default: an empty unquoted field).
    public var nullText: String?
    /// `--param NAME=VALUE`: values for the query's named parameters (`:name`, `@name`
    /// or `$name`), bound as TEXT; every parameter must be bound.
    public var parameters: [String: String] = [:]
    /// `--force`: replace an existing output file; otherwise it is an error.
    public var force = false
    /// How long to wait for a writer's lock.
    public var busyTimeoutMilliseconds = 5000

    public init(databasePath: String, source: ExportSource) {
        self.databasePath = databasePath
        self.source = source
    }

    /// The output file, nil for standard output.
    public var outputFile: String? {
        outputPath == "-" ? nil : outputPath
    }

    /// The format to write: `format`, else the output's extension, else JSON Lines on
    /// standard output. A file name that names no format is an error.
    public func resolvedFormat() throws(ExportError) -> InputFormat {
        if let format { return format }
        guard let file = outputFile else { return .jsonl }
        guard let format = InputFormat.fromExtension(file) else { throw .unknownFormat(path: file) }
        return format
    }

    /// The compression to apply: `.gz` is gzip; `.zst` or `zstdLevel` is zstd.
    public func resolvedCompression() throws(ExportError) -> OutputCompression {
        let name = (outputFile ?? "").lowercased()
        if name.hasSuffix(".gz") {
            if zstdLevel != nil { throw .conflictingOptions("--zstd writes zstd, but \(outputFile!) ends in .gz; drop one of them") }
            if zstdWorkers != nil { throw .conflictingOptions("--threads applies to zstd only, and \(outputFile!) is gzip") }
            return .gzip
        }
        if zstdLevel != nil || name.hasSuffix(".zst") || name.hasSuffix(".zstd") {
            return .zstd(level: zstdLevel ?? ZstdCompressingSink.defaultLevel, workers: zstdWorkers ?? ProcessInfo.processInfo.activeProcessorCount)
        }
        if zstdWorkers != nil { throw .conflictingOptions("--threads applies to zstd only; add --zstd, or name the output .zst") }
        return .none
    }
}
