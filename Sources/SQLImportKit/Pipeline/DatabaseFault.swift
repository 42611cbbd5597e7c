import Foundation
import GRDB
import GRDBSQLite

/// The database failed, not the input: the disk is full, the file is read-only, locked by
/// another connection, corrupt, or not a database. A run stops on it whatever
/// `--on-error` says, and rolls back its open transaction.
///
/// A run turns SQLite's errors into faults by their result code, wherever they happen
/// (opening the file, reading its schema, writing a record, committing): see
/// `DatabaseFault(code:message:database:position:)`.
public struct DatabaseFault: Error, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// `SQLITE_FULL`: the disk, the file size limit (`ulimit -f`) or `PRAGMA max_page_count`.
        case full
        /// `SQLITE_IOERR`: a read or a write failed.
        case ioError
        /// `SQLITE_READONLY`, or `SQLITE_CANTOPEN` for the rollback journal of a database
        /// that is open: the file or its folder cannot be written.
        case readOnly
        /// `SQLITE_CANTOPEN` for a database file that does not exist yet, in a folder
        /// that does not exist either: SQLite creates the file, never its folder.
        case missingFolder
        /// `SQLITE_BUSY` or `SQLITE_LOCKED` past the busy timeout.
        case busy
        /// `SQLITE_CORRUPT`, or a failed `PRAGMA quick_check`.
        case corrupt
        /// `SQLITE_NOTADB`: the file is not a SQLite database.
        case notADatabase
    }

    public var kind: Kind
    /// The database's path, as the run was given it.
    public var database: String
    /// What SQLite (or the check) said.
    public var message: String
    /// The record being written when the fault happened, if one was.
    public var position: SourcePosition?
    /// Whether the run's open transaction is known to be undone (see `finishRollback`).
    public var rollback = Rollback.rolledBack

    /// What became of the run's open transaction after the fault.
    public enum Rollback: Sendable, Equatable {
        /// Undone: the database is as it was before the run (or its last checkpoint).
        case rolledBack
        /// The fault came while opening the database, before the run began to write.
        case nothingWritten
        /// SQLite could not undo it in this process: the database file holds part of it,
        /// and its rollback journal holds what undoes it. The next connection that opens
        /// the database rolls it back, as long as the journal is kept.
        case hotJournalLeft(journal: String, reason: String)
        /// The fault came while opening the database, which has a hot journal of an
        /// interrupted transaction (an earlier run or app killed mid-write) that SQLite
        /// rolls back before anything else, and could not.
        case earlierHotJournal(journal: String)
    }

    public init(kind: Kind, database: String, message: String, position: SourcePosition? = nil) {
        self.kind = kind
        self.database = database
        self.message = message
        self.position = position
    }

    /// The fault an extended SQLite result code means; nil for a code that is about the
    /// data (a constraint, a type, a size) or the statement.
    public init?(code: Int32, message: String, database: String, position: SourcePosition? = nil) {
        let kind: Kind
        switch code & 0xFF {
        case SQLITE_FULL: kind = .full
        case SQLITE_IOERR: kind = .ioError
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM: kind = .readOnly
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .busy
        case SQLITE_CORRUPT: kind = .corrupt
        case SQLITE_NOTADB: kind = .notADatabase
        default: return nil
        }
        self.init(kind: kind, database: database, message: message, position: position)
    }

    /// `error` as a fault of `database` when it is one (a `DatabaseError`, or a record's
    /// `WriteError` whose cause is the database); any other error as it is.
    static func classify(_ error: Error, database: String) -> Error {
        switch error {
        case let error as DatabaseError:
            return DatabaseFault(code: error.extendedResultCode.rawValue, message: error.message ?? "\(error)", database: database) ?? error
        case let error as WriteError:
            guard case .sqlite(let code, let message) = error.reason else { return error }
            return DatabaseFault(code: code, message: message, database: database, position: error.position) ?? error
        default:
            return error
        }
    }

    /// Refuses a corrupt database before anything is written to it: `PRAGMA quick_check`
    /// when the file is at most `limit` bytes (about 2 ms per MiB), else nothing (SQLite
    /// then reports corruption when a statement reaches a damaged page).
    static func checkIntegrity(_ db: Database, database: String, upTo limit: Int64) throws {
        let pages = try Int64.fetchOne(db, sql: "PRAGMA page_count") ?? 0
        let pageSize = try Int64.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
        guard pages > 0, pages * pageSize <= limit else { return }
        let problems = try String.fetchAll(db, sql: "PRAGMA quick_check(3)")
        guard problems == ["ok"] else {
            let lines = problems.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("***") }
            throw DatabaseFault(kind: .corrupt, database: database, message: "PRAGMA quick_check: " + lines.joined(separator: "; "))
        }
    }

    /// Completes the rollback of a run that stopped on an I/O fault, in this process.
    ///
    /// After a failed write, read or sync SQLite may leave the rollback journal hot: its
    /// pager gives up and leaves the undoing to the next connection, so until then the
    /// database is half-written, read-only openers fail, and deleting the journal (to free
    /// space, say) corrupts it. So once the run's connection is closed, this opens a new
    /// one, whose first read rolls the journal back and deletes it, as any SQLite
    /// connection does with a hot journal; then it checks that no hot journal remains.
    static func finishRollback(database path: String) -> Rollback {
        // SQLite names the journal after the database's real path.
        let journal = URL(fileURLWithPath: path).resolvingSymlinksInPath().path + "-journal"
        do {
            var configuration = Configuration()
            configuration.label = "sqlimport rollback"
            configuration.busyMode = .timeout(5)
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            // Reading the schema rolls a hot journal back (it needs the write lock).
            _ = try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_schema") }
            // A journal whose header was never synced is not hot and stays on disk; in
            // DELETE mode it is dead weight on a full disk. It is removed under the write
            // lock, so that no other connection's journal can be taken for it.
            try queue.writeWithoutTransaction { db in
                guard try String.fetchOne(db, sql: "PRAGMA journal_mode") == "delete" else { return }
                try db.execute(sql: "BEGIN IMMEDIATE")
                defer { try? db.execute(sql: "COMMIT") }
                if FileManager.default.fileExists(atPath: journal), !isHot(journal: journal) {
                    try? FileManager.default.removeItem(atPath: journal)
                }
            }
            try queue.close()
        } catch {
            // Only a journal that is still hot holds part of the transaction.
            return isHot(journal: journal) ? .hotJournalLeft(journal: journal, reason: "\(error)") : .rolledBack
        }
        if let attributes = try? FileManager.default.attributesOfItem(atPath: journal),
            let size = attributes[.size] as? Int64, size > 0, isHot(journal: journal)
        {
            return .hotJournalLeft(journal: journal, reason: "the journal is still there after a new connection opened the database")
        }
        return .rolledBack
    }

    /// A journal whose header starts with SQLite's magic: one a reader would play back.
    static func isHot(journal: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: journal) else { return false }
        defer { try? handle.close() }
        let magic: [UInt8] = [0xD9, 0xD5, 0x05, 0xF9, 0x20, 0xA1, 0x63, 0xD7]
        return (try? handle.read(upToCount: 8)).map { Array($0) == magic } ?? false
    }

    public var description: String {
        let during = position.map { " while writing the record at \($0)" } ?? ""
        let rolledBack: String
        switch rollback {
        case .rolledBack:
            rolledBack = "the run's open transaction was rolled back"
        case .nothingWritten:
            rolledBack = "it happened while opening the database, and nothing was written"
        case .earlierHotJournal(let journal):
            rolledBack = "it happened while opening the database, whose journal \(journal) holds an interrupted transaction (a run or an app killed while writing) that SQLite must roll back before anything else, and could not: the database or its folder cannot be written (permissions, a read-only mount, an immutable file), or the disk failed. Keep \(journal): deleting it leaves the database corrupt. Nothing was written by this run"
        case .hotJournalLeft(let journal, let reason):
            rolledBack = "the run's open transaction could not be rolled back in this process (\(reason)): the database file holds part of it, and \(journal) holds what undoes it. Keep that file: the next connection that opens the database rolls the transaction back. Do not delete it, or the database is corrupt"
        }
        switch kind {
        case .full:
            return "\(database): \(message)\(during); \(rolledBack). Free disk space (or raise the file size limit or PRAGMA max_page_count) and run again"
        case .ioError:
            return "\(database): \(message)\(during); \(rolledBack). Check the disk and the free space, then run again"
        case .readOnly:
            return "\(database): \(message)\(during): the database or its folder cannot be written (permissions, a read-only mount, an immutable file); \(rolledBack)"
        case .missingFolder:
            let folder = URL(fileURLWithPath: database).deletingLastPathComponent().path
            return "\(database): \(message): the folder \(folder) does not exist, and SQLite creates the database file but not its folder; create the folder, or check the path given to --db (or SQLIMPORT_DB); \(rolledBack)"
        case .busy:
            return "\(database): \(message)\(during): another connection holds the database's write lock, or (in rollback-journal mode) a reader keeps the run from committing, beyond --busy-timeout; \(rolledBack). Retry later, or raise --busy-timeout"
        case .corrupt:
            return "\(database) is corrupt (\(message))\(during); sqlimport will not write to it and does not repair it, and \(rolledBack). Check it with `sqlite3 \(database) 'PRAGMA integrity_check'`, then restore it from a snapshot (sqlimport restore) or recover it with sqlite3's .recover"
        case .notADatabase:
            return "\(database) is not a SQLite database (\(message)); sqlimport will not write to it. Check the --db path"
        }
    }
}
