import CZlib
import Foundation
import GRDB

/// The progress of checkpointed runs (`--commit-every`), kept in the database itself in
/// the table `_sqlimport_runs`, updated in the same transaction as the rows. `--resume`
/// reads it to continue a killed run without re-applying committed records.
///
/// ```sql
/// CREATE TABLE _sqlimport_runs (target TEXT, path TEXT, size INTEGER, head_crc32 INTEGER,
///   committed_offset INTEGER, committed_rows INTEGER, finished INTEGER, updated_at TEXT,
///   PRIMARY KEY (target, path))
/// ```
struct RunLog {
    static let table = "_sqlimport_runs"

    /// What identifies an input's content: its size and the CRC-32 of its first MiB.
    struct Fingerprint: Equatable {
        var size: Int64
        var headCRC32: Int64

        init(path: String) throws(InputError) {
            guard let size = InputSource.regularFileSize(path) else {
                throw .unreadable(path: path, reason: "--resume needs a regular file, not a pipe or standard input")
            }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw .unreadable(path: path, reason: "cannot open it")
            }
            defer { try? handle.close() }
            let head = (try? handle.read(upToCount: 1 << 20)) ?? Data()
            let crc = head.withUnsafeBytes { bytes in
                crc32(0, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
            }
            self.size = size
            headCRC32 = Int64(crc)
        }

        init(size: Int64, headCRC32: Int64) {
            self.size = size
            self.headCRC32 = headCRC32
        }
    }

    struct Entry {
        var fingerprint: Fingerprint
        var committedOffset: Int64
        var committedRows: Int
        var finished: Bool
    }

    static func ensureTable(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(table) (target TEXT NOT NULL, path TEXT NOT NULL, size INTEGER, head_crc32 INTEGER,
              committed_offset INTEGER NOT NULL, committed_rows INTEGER NOT NULL, finished INTEGER NOT NULL, updated_at TEXT NOT NULL,
              PRIMARY KEY (target, path))
            """)
    }

    static func entries(_ db: Database, target: String) throws -> [String: Entry] {
        guard try db.tableExists(table) else { return [:] }
        var result: [String: Entry] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE target = ?", arguments: [target]) {
            result[row["path"]] = Entry(
                fingerprint: Fingerprint(size: row["size"], headCRC32: row["head_crc32"]),
                committedOffset: row["committed_offset"], committedRows: row["committed_rows"], finished: row["finished"])
        }
        return result
    }

    static func save(_ db: Database, target: String, path: String, entry: Entry) throws {
        try db.execute(
            sql: """
                INSERT INTO \(table) (target, path, size, head_crc32, committed_offset, committed_rows, finished, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                ON CONFLICT (target, path) DO UPDATE SET size = excluded.size, head_crc32 = excluded.head_crc32,
                  committed_offset = excluded.committed_offset, committed_rows = excluded.committed_rows,
                  finished = excluded.finished, updated_at = excluded.updated_at
                """,
            arguments: [target, path, entry.fingerprint.size, entry.fingerprint.headCRC32, entry.committedOffset, entry.committedRows, entry.finished])
    }
}
