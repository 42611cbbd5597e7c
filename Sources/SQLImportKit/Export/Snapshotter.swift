import Foundation
import GRDB
import GRDBSQLite

/// Options of `sqlimport snapshot`.
public struct SnapshotOptions: Sendable {
    /// The database to copy; it is opened read-only.
    public var databasePath: String
    /// The snapshot file; nil names it `sqlimport-<UTC time>.sqlite.zst` in the current
    /// folder (see `Snapshotter.defaultName(at:)`).
    public var outputPath: String?
    /// zstd level (`--level`).
    public var level = ZstdCompressingSink.defaultLevel
    /// libzstd worker threads (`--threads`).
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Replace an existing output (`--force`); otherwise it is an error.
    public var force = false
    /// How long to wait for a writer's lock.
    public var busyTimeoutMilliseconds = 5000

    public init(databasePath: String) {
        self.databasePath = databasePath
    }
}

/// What a snapshot wrote.
public struct SnapshotSummary: Sendable {
    /// The snapshot file written.
    public var output: String
    /// Size of the vacuumed copy, uncompressed.
    public var databaseBytes: Int64
    /// Size of the snapshot file.
    public var snapshotBytes: Int64
}

/// Writes a transactionally consistent, compressed copy of a whole database (tables,
/// indexes, triggers, views): the library's entry point for `sqlimport snapshot`.
///
/// `VACUUM INTO` copies the database inside one read transaction into a temporary file
/// next to the output, so writers can go on meanwhile; the copy is then streamed through
/// zstd (with its content checksum) into a second temporary file, which is renamed into
/// place. `zstd -d FILE.sqlite.zst` yields the database. Both temporary files are removed
/// on success, failure or (through `TemporaryFiles`) a signal.
///
/// ```swift
/// var options = SnapshotOptions(databasePath: "app.db")
/// options.outputPath = "backups/app.sqlite.zst"
/// let summary = try Snapshotter(options: options).run()
/// ```
public final class Snapshotter {
    public let options: SnapshotOptions

    public init(options: SnapshotOptions) {
        self.options = options
    }

    /// `sqlimport-20261122T020000Z.sqlite.zst`: UTC, to the second, so that nightly runs
    /// never overwrite each other.
    public static func defaultName(at date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(
            format: "sqlimport-%04d%02d%02dT%02d%02d%02dZ.sqlite.zst",
            Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    /// Takes the snapshot.
    /// - Parameter now: the time that names a default output.
    /// - Throws: `OutputError.alreadyExists` for an existing output without `force`,
    ///   GRDB's `DatabaseError` when the database cannot be read.
    /// - Parameter progress: called with the phase (`copying`, then `compressing` with
    ///   the bytes compressed and the copy's size).
    public func run(now: Date = Date(), progress: ((SnapshotProgress) -> Void)? = nil) throws -> SnapshotSummary {
        let output = options.outputPath ?? Self.defaultName(at: now)
        try OutputError.refuseReplacing(source: options.databasePath, with: output, what: "the database being copied")
        if !options.force, FileManager.default.fileExists(atPath: output), !AtomicOutputFile.writesInPlace(output) {
            throw OutputError.alreadyExists(path: output, what: "snapshots")
        }
        let queue = try SourceDatabase.openReadOnly(path: options.databasePath, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        // The output first: a folder that cannot take it fails before any copying.
        let file = try AtomicOutputFile(destination: output)
        // The copy beside the snapshot (a link's file); for a FIFO or descriptor, which has
        // no folder to write in (`/dev/`, `/proc/self/fd/`), in the temporary folder.
        let copy = TemporaryFiles.sibling(
            of: file.writesInPlace ? FileManager.default.temporaryDirectory.appendingPathComponent("sqlimport-snapshot").path : file.finalPath,
            purpose: "vacuum")
        do {
            return try TemporaryFiles.shared.whileRegistered([copy, copy + "-journal", copy + "-wal", copy + "-shm"]) {
                // One read transaction: a consistent copy even while other processes write.
                // VACUUM INTO writes its copy with this connection's pager settings. The copy
                // is temporary and deleted below, so it is not fsynced (synchronous = OFF on
                // this read-only connection changes nothing else); the final snapshot is,
                // before its rename.
                progress?(SnapshotProgress(phase: .copying, bytesDone: 0, totalBytes: nil))
                let journalMode = try queue.inDatabase { db in
                    try db.execute(sql: "PRAGMA synchronous = OFF")
                    do {
                        try db.execute(sql: "VACUUM INTO ?", arguments: [copy])
                    } catch let error as DatabaseError where Self.isWriteFailure(error) {
                        // The copy's write, not the database: named as the output's, with the
                        // room the copy needs (SQLite says only "disk I/O error").
                        throw OutputError.writeFailed(
                            path: output,
                            reason: "the uncompressed copy of the database written first beside it, \(copy), needs about the database's size: \(error.message ?? "\(error)")")
                    }
                    return try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "delete"
                }
                // VACUUM INTO writes a rollback-journal database; a WAL database's snapshot
                // stays WAL (the mode is persistent, in the header), so that `restore`
                // brings back the database as it was.
                if journalMode.lowercased() == "wal" {
                    try DatabaseQueue(path: copy).inDatabase { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
                }
                let source = try FileDescriptorSource(path: copy)
                let size = InputSource.regularFileSize(copy) ?? 0
                let fileSink = file.makeSink()
                let sink = try ZstdCompressingSink(base: fileSink, level: options.level, workers: options.workers, pledgedSize: UInt64(size))
                try sink.write(contentsOf: source) { done in
                    progress?(SnapshotProgress(phase: .compressing, bytesDone: done, totalBytes: size))
                }
                try sink.finish()
                try file.commit(replacing: options.force, what: "snapshots")
                return SnapshotSummary(output: output, databaseBytes: size, snapshotBytes: fileSink.bytesWritten)
            }
        } catch {
            file.discard()
            throw error
        }
    }
}

extension Snapshotter {
    /// A failed write, sync or truncate of a file SQLite writes (a full disk, a file size
    /// limit, a failing device), as opposed to a failed read of the database copied.
    static func isWriteFailure(_ error: DatabaseError) -> Bool {
        let code = error.extendedResultCode.rawValue
        if code & 0xFF == SQLITE_FULL { return true }
        guard code & 0xFF == SQLITE_IOERR else { return false }
        // SQLITE_IOERR_READ, _SHORT_READ and _CORRUPTFS (sqlite3.h: macros Swift does not import).
        return ![SQLITE_IOERR | 1 << 8, SQLITE_IOERR | 2 << 8, SQLITE_IOERR | 33 << 8].contains(code)
    }
}

/// Where a snapshot stands: `VACUUM INTO` copying the database, then zstd compressing
/// the copy.
public struct SnapshotProgress: Sendable {
    public enum Phase: String, Sendable {
        case copying
        case compressing
    }

    public var phase: Phase
    public var bytesDone: Int64
    public var totalBytes: Int64?
}
