import Foundation
import SQLImportKit

/// Writes the machine-readable JSON report of `--report`.
enum ReportWriter {
    /// The report's layout; `version` changes when a field changes meaning.
    struct Report: Encodable {
        var version = 1
        var exitCode: Int32
        var error: String?
        var database: String?
        var table: String?
        var inputs: [InputDescription]
        var conflictTarget: [String]?
        var conflictPredicate: String?
        var fallbackKey: [String]?
        var merge: String?
        var strategy: String?
        var rowsPerStatement: Int?
        var counts: OutcomeCounts?
        var resumedRecords: Int?
        /// `--resume`: rejects of the interrupted run's committed part, in `rejected`.
        var resumedRejects: Int?
        /// `--resume`: inputs that changed since the interrupted run, imported from their
        /// first record.
        var restartedInputs: [String]?
        /// Schema changes the run made: the table it created, columns `--alter` added,
        /// the index it created, the indexes a first load dropped and rebuilt.
        var createdTable: String?
        var addedColumns: [String]?
        var createdIndex: String?
        var deferredIndexes: [String]?
        /// Why the deferred unique indexes were built during the load.
        var indexesBuiltEarly: String?
        /// Enum groups applied (`--enum`, or recognised), as `FIELD=COL,COL`.
        var enumGroups: [String]?
        /// The order records were applied in: sorted by key in runs, or input order and why.
        var keyOrder: String?
        /// Whether records were compared with the table's rows by content, or why not.
        var unchangedRows: String?
        /// `--delete-missing`: the rows in scope, and deletions withheld because records
        /// were rejected.
        var deleteCandidates: Int?
        var deletionsWithheld: Int?
        var warnings: [String]
        /// The first records set aside, as `input:line: reason` (at most 5).
        var firstRejects: [String]?
        var startedAt: Date
        var finishedAt: Date
        var durationSeconds: Double
        var rowsPerSecond: Double
        var megabytesPerSecond: Double
        var dryRun: Bool
    }

    static func write(_ summary: ImportSummary, exitCode: Int32, error: String? = nil, to destination: String) throws {
        let seconds = max(summary.durationSeconds, 0.000_001)
        let report = Report(
            exitCode: exitCode, error: error, database: summary.database, table: summary.table, inputs: summary.inputs,
            conflictTarget: summary.conflictTarget, conflictPredicate: summary.conflictPredicate, fallbackKey: summary.fallbackKey,
            merge: summary.merge, strategy: summary.strategy, rowsPerStatement: summary.rowsPerStatement, counts: summary.counts, resumedRecords: summary.resumedRecords,
            resumedRejects: summary.resumedRejects > 0 ? summary.resumedRejects : nil,
            restartedInputs: summary.restartedInputs, createdTable: summary.createdTable, addedColumns: summary.addedColumns,
            createdIndex: summary.createdIndex, deferredIndexes: summary.deferredIndexes, indexesBuiltEarly: summary.indexesBuiltEarly, enumGroups: summary.enumGroups, keyOrder: summary.keyOrder,
            unchangedRows: summary.unchangedRows,
            deleteCandidates: summary.deleteCandidates, deletionsWithheld: summary.deletionsWithheld,
            warnings: summary.warnings, firstRejects: summary.firstRejects.isEmpty ? nil : summary.firstRejects, startedAt: summary.startedAt, finishedAt: summary.finishedAt, durationSeconds: seconds,
            rowsPerSecond: Double(summary.counts.read) / seconds,
            megabytesPerSecond: Double(summary.bytesRead) / 1_000_000 / seconds, dryRun: summary.dryRun)
        try emit(report, to: destination)
    }

    static func write(error: Error, exitCode: Int32, startedAt: Date = Date(), to destination: String) throws {
        try write(message: ExitStatus.message(for: error), exitCode: exitCode, startedAt: startedAt, to: destination)
    }

    /// The short form, for a run that failed before it had a plan.
    static func write(message: String, exitCode: Int32, startedAt: Date = Date(), to destination: String) throws {
        let now = Date()
        let report = Report(
            exitCode: exitCode, error: message, inputs: [], warnings: [], startedAt: startedAt,
            finishedAt: now, durationSeconds: now.timeIntervalSince(startedAt), rowsPerSecond: 0, megabytesPerSecond: 0, dryRun: false)
        try emit(report, to: destination)
    }

    /// The path to write through when `destination` is (or links to) something other than
    /// a regular file or nothing.
    static func specialFile(_ destination: String) -> String? {
        var info = stat()
        guard stat(destination, &info) == 0 else { return nil }
        return (info.st_mode & S_IFMT) == S_IFREG ? nil : destination
    }

    /// The file a symbolic link names (`AtomicOutputFile.resolvedLink`).
    static func resolvedLink(_ path: String) -> String { AtomicOutputFile.resolvedLink(path) }

    /// Fails now, before anything is written to the database, when the report could not
    /// be written at the end: its folder is missing or not writable.
    /// (Under a fresh name, as the report is written: a fixed `report.json.tmp` was
    /// truncated and removed whatever it was, a database or a link's target.)
    static func checkWritable(_ destination: String) throws {
        guard destination != "-", specialFile(destination) == nil else { return }
        do {
            try AtomicOutputFile(destination: destination, purpose: "report", inPlace: false).discard()
        } catch OutputError.cannotCreate(let path, let reason) {
            throw OutputError.cannotCreate(path: path, reason: "the report (--report): \(reason)")
        }
    }

    private static func emit(_ report: Report, to destination: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var data = try encoder.encode(report)
        data.append(0x0A)
        if destination == "-" {
            // A reader that went away (`| jq` that exited) or a standard output closed
            // from the start is named as such: the run committed, its report is lost
            // (exit 74), and no free space would help.
            guard !StandardOutput.wasClosedAtStart else { throw OutputError.brokenPipe }
            guard StandardOutput.write(String(decoding: data, as: UTF8.self)) else {
                let code = errno
                if code == EPIPE || code == EBADF { throw OutputError.brokenPipe }
                throw OutputError.writeFailed(path: OutputError.standardOutput, reason: "the report (--report -): \(String(cString: strerror(code)))")
            }
        } else if let special = specialFile(destination) {
            // A FIFO, a device (/dev/stdout) or a link to one: written through, as a shell
            // redirection would; renaming over it would replace the node itself.
            let descriptor = open(special, O_WRONLY | O_TRUNC)
            guard descriptor >= 0 else {
                throw OutputError.writeFailed(path: destination, reason: "the report (--report): \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            let written = data.withUnsafeBytes { bytes in Foundation.write(descriptor, bytes.baseAddress, bytes.count) }
            guard written == data.count else {
                throw OutputError.writeFailed(path: destination, reason: "the report (--report): \(String(cString: strerror(errno)))")
            }
        } else {
            // Written under a fresh name beside it (`AtomicOutputFile`: created exclusively,
            // never through a link; a fixed `FILE.tmp` emptied whatever was there), synced,
            // then renamed over the old report, so that a reader never sees half a report.
            // A symbolic link is followed: the file it names is replaced, not the link.
            // A report that cannot be written takes the previous run's away (an unlink
            // needs no free space): a report left standing would describe another run.
            do {
                let file = try AtomicOutputFile(destination: destination, purpose: "report", inPlace: false)
                do {
                    let sink = file.makeSink()
                    try data.withUnsafeBytes { try sink.write($0) }
                    try file.commit(replacing: true, what: "reports")
                } catch {
                    file.discard()
                    throw error
                }
            } catch let error as OutputError {
                unlink(resolvedLink(destination))
                let reason: String
                switch error {
                case .cannotCreate(_, let why), .writeFailed(_, let why): reason = why
                default: reason = "\(error)"
                }
                throw OutputError.writeFailed(path: destination, reason: "the report (--report): \(reason); the previous report was removed")
            }
        }
    }
}
