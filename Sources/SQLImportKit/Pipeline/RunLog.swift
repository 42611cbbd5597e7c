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
///   mtime_ns INTEGER, inode INTEGER, PRIMARY KEY (target, path))
/// ```
///
/// `head_crc32` holds the CRC-32 of the whole input (its name is from when it covered the
/// first MiB only; an entry written then never matches, so such a run starts over).
/// ```sql
/// ```
struct RunLog {
    static let table = "_sqlimport_runs"

    /// What identifies an input's content: its size, modification time and inode, and
    /// the CRC-32 of all its bytes (read once when the run starts). A new night's export
    /// with the same size and the same first bytes differs in its time, its inode or its
    /// checksum; an input rewritten in place with its old time kept differs in its
    /// checksum.
    struct Fingerprint: Equatable {
        var size: Int64
        var checksum: Int64
        var modifiedNanoseconds: Int64
        var inode: Int64

        init(path: String) throws(InputError) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw .unreadable(path: path, reason: "--resume needs a regular file, not a pipe or standard input")
            }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw .unreadable(path: path, reason: "cannot open it")
            }
            defer { try? handle.close() }
            var crc: uLong = 0
            while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                crc = chunk.withUnsafeBytes { bytes in
                    crc32(crc, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
                }
            }
            size = Int64(info.st_size)
            checksum = Int64(crc)
            modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            inode = Int64(bitPattern: UInt64(info.st_ino))
        }

        init(size: Int64, checksum: Int64, modifiedNanoseconds: Int64, inode: Int64) {
            self.size = size
            self.checksum = checksum
            self.modifiedNanoseconds = modifiedNanoseconds
            self.inode = inode
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
        let columns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]))
        for column in ["mtime_ns", "inode"] where !columns.contains(column) {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) INTEGER")
        }
    }

    static func entries(_ db: Database, target: String) throws -> [String: Entry] {
        guard try db.tableExists(table) else { return [:] }
        var result: [String: Entry] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE target = ?", arguments: [target]) {
            result[row["path"]] = Entry(
                fingerprint: Fingerprint(
                    size: row["size"] ?? -1, checksum: row["head_crc32"] ?? -1, modifiedNanoseconds: row["mtime_ns"] ?? -1, inode: row["inode"] ?? -1),
                committedOffset: row["committed_offset"], committedRows: row["committed_rows"], finished: row["finished"])
        }
        return result
    }

    static func save(_ db: Database, target: String, path: String, entry: Entry) throws {
        try db.execute(
            sql: """
                INSERT INTO \(table) (target, path, size, head_crc32, committed_offset, committed_rows, finished, updated_at, mtime_ns, inode)
                VALUES (?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?)
                ON CONFLICT (target, path) DO UPDATE SET size = excluded.size, head_crc32 = excluded.head_crc32,
                  committed_offset = excluded.committed_offset, committed_rows = excluded.committed_rows,
                  finished = excluded.finished, updated_at = excluded.updated_at, mtime_ns = excluded.mtime_ns, inode = excluded.inode
                """,
            arguments: [
                target, path, entry.fingerprint.size, entry.fingerprint.checksum, entry.committedOffset, entry.committedRows, entry.finished,
                entry.fingerprint.modifiedNanoseconds, entry.fingerprint.inode,
            ])
    }
}
