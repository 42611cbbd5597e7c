import Foundation

/// Where an export's bytes go, for the SQLite and the PostgreSQL exporter alike: the
/// output file (written under a temporary name and renamed into place only when
/// complete) or standard output, through zstd or gzip when asked, in chunks of about
/// 1 MiB (`ChunkedWriter`).
enum ExportOutput {
    /// Opens the output, lets `writeRows` encode into it (returning the number of rows),
    /// then flushes, finishes the compression and commits the file; on any failure the
    /// temporary file is removed.
    static func write(
        _ options: ExportOptions, format: InputFormat, compression: OutputCompression, columns: [String],
        writeRows: (inout ChunkedWriter) throws -> Int
    ) throws -> ExportSummary {
        let file = try options.outputFile.map { path throws(OutputError) in try AtomicOutputFile(destination: path) }
        do {
            let fileSink = file?.makeSink() ?? FileDescriptorSink(descriptor: STDOUT_FILENO, name: OutputError.standardOutput)
            let sink: ByteSink
            switch compression {
            case .none: sink = fileSink
            case .zstd(let level, let workers): sink = try ZstdCompressingSink(base: fileSink, level: level, workers: workers)
            case .gzip: sink = try GzipCompressingSink(base: fileSink)
            }
            var writer = ChunkedWriter(sink: sink)
            let rows = try writeRows(&writer)
            try writer.flush()
            try sink.finish()
            try file?.commit(replacing: options.force)
            return ExportSummary(
                rows: rows, columns: columns, format: format, compression: compression, output: options.outputFile,
                bytesEncoded: writer.bytesFlushed, bytesWritten: fileSink.bytesWritten)
        } catch {
            file?.discard()
            throw error
        }
    }
}
