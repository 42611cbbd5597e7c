import Foundation
import GRDB
import GRDBSQLite

/// Options of `sqlimport restore`.
public struct RestoreOptions: Sendable {
    /// The snapshot: zstd (as `sqlimport snapshot` writes it), gzip or plain.
    public var snapshotPath: String
    /// The database file to create.
    public var databasePath: String
    /// Replace an existing database (`--force`); otherwise it is an error.
    public var force = false

    public init(snapshotPath: String, databasePath: String) {
        self.snapshotPath = snapshotPath
        self.databasePath = databasePath
    }
}

/// What a restore wrote.
public struct RestoreSummary: Sendable {
    /// The database file created.
    public var database: String
    /// Size of the restored database.
    public var databaseBytes: Int64
}

/// Turns a snapshot back into a database file: the library's entry point for
/// `sqlimport restore`.
///
/// The snapshot is decompressed as a stream into a temporary file next to the target,
/// checked (a SQLite header, then `PRAGMA integrity_check`), and only then renamed onto
/// the target, atomically. A truncated or damaged snapshot is a `SnapshotError`, and the
/// target is left exactly as it was.
///
/// ```swift
/// try Restorer(options: RestoreOptions(snapshotPath: "app.sqlite.zst", databasePath: "restored.db")).run()
/// ```
public final class Restorer {
    public let options: RestoreOptions

    public init(options: RestoreOptions) {
        self.options = options
    }

    /// Restores the snapshot.
    /// - Throws: `OutputError.alreadyExists` for an existing target without `force`
    ///   (`ExportError.databaseIsAFolder` for a folder, even with `force`),
    ///   `InputError` when the snapshot cannot be opened, `SnapshotError` when it is
    ///   damaged.
    public func run() throws -> RestoreSummary {
        let target = options.databasePath
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: target, isDirectory: &isFolder), isFolder.boolValue { throw ExportError.databaseIsAFolder(path: target) }
        if !options.force, FileManager.default.fileExists(atPath: target), !AtomicOutputFile.writesInPlace(target) {
            throw OutputError.alreadyExists(path: target, what: "databases")
        }
        try OutputError.refuseReplacing(source: options.snapshotPath, with: target, what: "the snapshot restore reads")
        let input = try Self.open(snapshot: options.snapshotPath)
        let file = try AtomicOutputFile(destination: target, purpose: "restore", inPlace: false)
        if !options.force {
            // A journal or WAL with no database beside it (the file was deleted after a
            // crash) would be applied to the restored file when it is first opened.
            let stale = ["-journal", "-wal"].map { file.finalPath + $0 }.filter { path in
                ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0) > 0
            }
            if !stale.isEmpty {
                file.discard()
                throw OutputError.staleSideFiles(database: file.finalPath, files: stale)
            }
        }
        // Opening the copy for the check may create SQLite's side files next to it.
        let sidecars = ["-journal", "-wal", "-shm"].map { file.temporaryPath + $0 }
        do {
            let sink = file.makeSink()
            do {
                try sink.write(contentsOf: input.source)
            } catch let error as InputError {
                switch error {
                case .corruptCompressedStream, .truncatedCompressedStream, .trailingGarbage, .decompressionBombGuard, .zstdWindowTooLarge:
                    throw SnapshotError.damaged(snapshot: options.snapshotPath, reason: Self.reason(error))
                case .notFound, .unreadable, .undecodable, .unsupportedEncoding, .notAnInput, .snapshotIsAFolder, .shrankWhileRead:
                    throw error
                }
            }
            try file.close()
            try TemporaryFiles.shared.whileRegistered(sidecars) { try verify(file.temporaryPath) }
            // An import between two of its checkpoints holds no lock of SQLite's (it leaves
            // the database unlocked a moment for the app's writers): its run lock says it
            // runs, and keeps another from starting until the file is replaced.
            var runLock: RunLock?
            defer { runLock?.release() }
            if options.force {
                do {
                    runLock = try RunLock.acquire(database: file.finalPath, timeoutMilliseconds: 0, cancellation: nil)
                } catch ImportError.anotherRun {
                    throw OutputError.databaseInUse(path: file.finalPath)
                }
                try Self.refuseIfInUse(file.finalPath)
                // A replaced database's journal or WAL would be applied to the new file.
                // (Next to the file replaced: a link's file, not the link.)
                for suffix in ["-journal", "-wal", "-shm"] { unlink(file.finalPath + suffix) }
            }
            try file.commit(replacing: options.force, what: "databases")
            return RestoreSummary(database: target, databaseBytes: sink.bytesWritten)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Refuses to replace a database another connection holds a lock on: a reader or
    /// writer inside a transaction, and any connection to a WAL database, would go on
    /// with the file replaced under it (its next commit lost, or a disk I/O error). A
    /// connection of a rollback-journal database between transactions holds no lock,
    /// and SQLite offers no way to see it.
    static func refuseIfInUse(_ path: String) throws {
        var connection: OpaquePointer?
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let connection else {
            sqlite3_close(connection)
            return  // not a database SQLite opens: no connection can hold it
        }
        defer { sqlite3_close(connection) }
        sqlite3_busy_timeout(connection, 0)
        guard sqlite3_exec(connection, "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK else {
            let code = sqlite3_errcode(connection)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED { throw OutputError.databaseInUse(path: path) }
            return
        }
        sqlite3_exec(connection, "ROLLBACK", nil, nil, nil)
    }

    /// Checks that `path` holds a sound SQLite database.
    private func verify(_ path: String) throws {
        let header = FileHandle(forReadingAtPath: path).flatMap { handle in
            defer { try? handle.close() }
            return try? handle.read(upToCount: 100)
        }.map { [UInt8]($0) } ?? []
        guard header.count == 100, header.prefix(16).elementsEqual("SQLite format 3\0".utf8) else {
            throw SnapshotError.notADatabase(snapshot: options.snapshotPath)
        }
        // The header's page count holds when its change counter matches the number that
        // validates it (always so in what VACUUM INTO writes). Another database right
        // where that count ends is two snapshots joined (`cat a.zst b.zst`, two valid
        // frames); other bytes there, but zeros, are damage too (a frame of something
        // else appended). (Zeros are left alone: SQLite pads some files, e.g. with
        // SQLITE_FCNTL_CHUNK_SIZE, and ignores them.)
        func bigEndian(_ offset: Int, _ count: Int) -> Int { header[offset ..< offset + count].reduce(0) { $0 << 8 | Int($1) } }
        let pageSize = bigEndian(16, 2) == 1 ? 65536 : bigEndian(16, 2)
        if bigEndian(24, 4) == bigEndian(92, 4), bigEndian(28, 4) > 0,
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int, size > pageSize * bigEndian(28, 4),
            let handle = FileHandle(forReadingAtPath: path)
        {
            defer { try? handle.close() }
            try? handle.seek(toOffset: UInt64(pageSize * bigEndian(28, 4)))
            guard let next = try? handle.read(upToCount: 16), next == Data("SQLite format 3\0".utf8) else {
                try? handle.seek(toOffset: UInt64(pageSize * bigEndian(28, 4)))
                var offset = pageSize * bigEndian(28, 4)
                while let chunk = try? handle.read(upToCount: 1 << 16), !chunk.isEmpty {
                    if let index = chunk.firstIndex(where: { $0 != 0 }) {
                        throw SnapshotError.damaged(
                            snapshot: options.snapshotPath,
                            reason: "bytes that are no database's follow its last page, from byte \(offset + (index - chunk.startIndex)) (the database ends at byte \(pageSize * bigEndian(28, 4)))")
                    }
                    offset += chunk.count
                }
                return try checkIntegrity(path)
            }
            throw SnapshotError.damaged(
                snapshot: options.snapshotPath,
                reason: "a second database follows the first at byte \(pageSize * bigEndian(28, 4)) (two snapshots concatenated?)")
        }
        try checkIntegrity(path)
    }

    /// `PRAGMA integrity_check` of the restored copy.
    private func checkIntegrity(_ path: String) throws {
        var problems: [String]
        do {
            let queue = try DatabaseQueue(path: path)
            problems = try queue.inDatabase { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            try queue.close()
        } catch let error as DatabaseError {
            problems = [error.message ?? "\(error.resultCode)"]
        }
        guard problems == ["ok"] else {
            throw SnapshotError.integrityCheckFailed(snapshot: options.snapshotPath, problems: problems)
        }
    }

    /// The snapshot's bytes; a folder is named as no snapshot (the input's own hint
    /// names records to import, `*.jsonl`).
    private static func open(snapshot path: String) throws -> InputSource {
        do {
            return try InputSource(path: path, acceptsAnyFile: true)
        } catch {
            guard case .unreadable(_, let reason) = error, reason == InputError.directoryReason else { throw error }
            throw InputError.snapshotIsAFolder(path: path)
        }
    }

    private static func reason(_ error: InputError) -> String {
        switch error {
        case .truncatedCompressedStream(_, let compression, let offset):
            return "the \(compression.rawValue) stream ends early at compressed byte \(offset): the file is truncated"
        case .corruptCompressedStream(_, let compression, let offset, let reason):
            return "corrupt \(compression.rawValue) stream at compressed byte \(offset): \(reason)"
        default:
            return error.description
        }
    }
}
