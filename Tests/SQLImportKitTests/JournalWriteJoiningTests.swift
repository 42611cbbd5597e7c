import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import SQLImportKit

/// The VFS that joins the rollback journal's writes (`WriteCoalescingVFS.c`): it must
/// really join them, and a crash, a rollback or a full disk must leave what they leave
/// without it.
@Suite struct JournalWriteJoiningTests {
    init() {
        #expect(SQLiteProcessSettings.joinJournalWrites())
    }

    /// A database of `rows` rows of 1 KiB each (about a page each) and its contents.
    static func seededDatabase(_ directory: URL, rows: Int = 3000) throws -> (path: String, dump: String) {
        let path = directory.appendingPathComponent("app.db").path
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: "CREATE TABLE items(id INTEGER PRIMARY KEY, payload BLOB, note TEXT)")
            try db.execute(
                sql: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO items SELECT i, randomblob(1000), 'row ' || i FROM n
                    """, arguments: [rows])
        }
        return (path, try contents(path))
    }

    /// Every row as text, in order (`TestSupport.dump` formats blobs a byte at a time,
    /// too slowly for these 3 MB).
    static func contents(_ db: Database) throws -> String {
        try String.fetchOne(db, sql: "SELECT group_concat(id || ':' || hex(payload) || ':' || note, ',') FROM (SELECT * FROM items ORDER BY id)") ?? ""
    }

    static func contents(_ path: String) throws -> String {
        try DatabaseQueue(path: path).read(contents)
    }

    static let rewriteEveryRow = "UPDATE items SET payload = randomblob(1000), note = note || ' changed'"

    @Test func aTransactionsJournalReachesTheFileInLargeWrites() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, _) = try Self.seededDatabase(directory)
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: Self.rewriteEveryRow)
            let counts = try #require(SQLiteProcessSettings.journalWriteCounts(db), "the journal is not the joining VFS's")
            // Three writes per journaled page (number, page, checksum), at least one page
            // per 1 KiB row over four rows...
            #expect(counts.buffered >= 3 * 3000 / 4)
            // ...reaching the file joined, many to a write (a write of another test's
            // database can flush the buffer early, hence the margin).
            #expect(counts.written * 4 <= counts.buffered, "\(counts)")
            try db.execute(sql: "COMMIT")
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE note LIKE '% changed'") == 3000)
        }
    }

    /// What a crash leaves is what the file system holds: copies of the database and its
    /// journal taken in the middle of a transaction that has already written pages to the
    /// database (a small cache makes SQLite spill them). Opening the copies must roll the
    /// journal back to the database as it was. With `synchronous = OFF` nothing syncs the
    /// journal before those pages are written, so only the VFS's own flushing keeps it
    /// complete.
    @Test(arguments: ["OFF", "FULL"])
    func aCrashInTheMiddleOfATransactionLeavesTheDatabaseAsItWas(_ synchronous: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, before) = try Self.seededDatabase(directory)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let crashed = directory.appendingPathComponent("crashed.db").path
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = 20; PRAGMA synchronous = \(synchronous)")
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: Self.rewriteEveryRow)
            try FileManager.default.copyItem(atPath: path, toPath: crashed)
            try FileManager.default.copyItem(atPath: path + "-journal", toPath: crashed + "-journal")
            try db.execute(sql: "ROLLBACK")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: crashed)) != original, "no page was written before the crash: the test proves nothing")
        #expect(try Self.contents(crashed) == before)
        #expect(try DatabaseQueue(path: crashed).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
        #expect(!FileManager.default.fileExists(atPath: crashed + "-journal"))
        #expect(try Self.contents(path) == before)
    }

    /// Rolling back to a savepoint and rolling back the transaction read the journal back
    /// while the last of it is still buffered.
    @Test func rollbacksReadWhatTheBufferHolds() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, before) = try Self.seededDatabase(directory)
        let queue = try DatabaseQueue(path: path)
        var afterFirstHalf = ""
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = 50")
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: Self.rewriteEveryRow + " WHERE id <= 1500")
            afterFirstHalf = try Self.contents(db)
            try db.execute(sql: "SAVEPOINT second")
            try db.execute(sql: Self.rewriteEveryRow + " WHERE id > 1000")
            try db.execute(sql: "ROLLBACK TO second")
            #expect(try Self.contents(db) == afterFirstHalf)
            try db.execute(sql: "RELEASE second")
            try db.execute(sql: "ROLLBACK")
            #expect(try Self.contents(db) == before)
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
        }
        #expect(afterFirstHalf != before)
    }

    /// A file size limit makes the journal's writes fail part-way (`EFBIG`, as a full disk
    /// would): the run stops with exit 74, and the database, once opened again, is exactly
    /// as it was.
    @Test func aJournalThatCannotBeWrittenStopsTheRunAndLosesNothing() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, before) = try Self.seededDatabase(directory, rows: 4000)
        let records = (1 ... 4000).map { #"{"id":\#($0),"note":"imported \#($0)","payload":null}"# }
        let input = TestSupport.write(records.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("rows.jsonl"))
        // The database is about 4.4 MB; its journal would be as large. Files may not grow
        // past 2 MiB (bash counts `ulimit -f` in KiB), so the journal's writes fail first.
        let output = try TestSupport.run(
            ["-c", #"ulimit -f 2048 && exec "$0" "$@""#, TestSupport.executable.path,
             "import", input, "--db", path, "--table", "items", "--upsert", "id", "--quiet"],
            in: directory, executable: URL(fileURLWithPath: "/bin/bash"))
        #expect(output.status == 74, "\(output)")
        #expect(output.stderr.contains("disk") || output.stderr.contains("I/O"), "\(output.stderr)")
        #expect(try Self.contents(path) == before)
        #expect(try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }
}

/// The joining VFS's rules one by one, on files opened through it directly: what is
/// buffered, and which operations write the buffer out first.
@Suite(.serialized) struct JournalWriteJoiningRuleTests {
    /// A file opened through the joining VFS.
    final class JoinedFile {
        let vfs: UnsafeMutablePointer<sqlite3_vfs>
        let file: UnsafeMutablePointer<sqlite3_file>
        let name: UnsafeMutablePointer<CChar>
        let path: String

        init(_ path: String, flags: Int32) throws {
            vfs = try #require(sqlite3_vfs_find("sqlimport-coalescing"))
            file = UnsafeMutableRawPointer.allocate(byteCount: Int(vfs.pointee.szOsFile), alignment: 16).bindMemory(to: sqlite3_file.self, capacity: 1)
            name = strdup(path)
            self.path = path
            var openedFlags: Int32 = 0
            try #require(vfs.pointee.xOpen(vfs, name, file, flags | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &openedFlags) == SQLITE_OK)
        }

        var methods: sqlite3_io_methods { file.pointee.pMethods.pointee }

        func write(_ bytes: [UInt8], at offset: Int64) {
            let rc = bytes.withUnsafeBytes { methods.xWrite(file, $0.baseAddress, Int32($0.count), offset) }
            #expect(rc == SQLITE_OK)
        }

        func read(_ count: Int, at offset: Int64) -> Data {
            var bytes = Data(count: count)
            let rc = bytes.withUnsafeMutableBytes { methods.xRead(file, $0.baseAddress, Int32(count), offset) }
            #expect(rc == SQLITE_OK)
            return bytes
        }

        /// What the file system holds, as another process or a crash would see it.
        var onDisk: Data { (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() }

        private var isOpen = true

        func close() {
            guard isOpen else { return }
            isOpen = false
            #expect(methods.xClose(file) == SQLITE_OK)
            free(name)
        }
    }

    /// A database file and its journal, opened through the joining VFS.
    struct Pair {
        let directory = TestSupport.temporaryDirectory()
        let database: JoinedFile
        let journal: JoinedFile

        init() throws {
            let path = directory.appendingPathComponent("app.db").path
            database = try JoinedFile(path, flags: SQLITE_OPEN_MAIN_DB)
            journal = try JoinedFile(path + "-journal", flags: SQLITE_OPEN_MAIN_JOURNAL)
        }

        func close() {
            journal.close()
            database.close()
            TestSupport.remove(directory)
        }
    }

    /// A journal record as SQLite writes it: page number, page, checksum.
    static func record(_ page: UInt8) -> [[UInt8]] {
        [[0, 0, 0, page], [UInt8](repeating: page, count: 4096), [page, page, page, page]]
    }

    @Test func writesThatContinueTheJournalWaitAndAReadOfItSeesThem() throws {
        let pair = try Pair()
        defer { pair.close() }
        var offset: Int64 = 0
        for part in Self.record(1) + Self.record(2) {
            pair.journal.write(part, at: offset)
            offset += Int64(part.count)
        }
        #expect(pair.journal.onDisk.isEmpty, "the journal's writes reached the file one by one")
        #expect(pair.journal.read(4096, at: 4104 + 4) == Data(repeating: 2, count: 4096))
        #expect(pair.journal.onDisk == Data((Self.record(1) + Self.record(2)).flatMap { $0 }))
    }

    @Test func databaseWritesAreNeverHeld() throws {
        let pair = try Pair()
        defer { pair.close() }
        pair.database.write([UInt8](repeating: 9, count: 4096), at: 0)
        #expect(pair.database.onDisk == Data(repeating: 9, count: 4096))
    }

    /// Everything that could let the file system or another process see the database
    /// without the journal's last bytes writes them out first.
    @Test(arguments: ["write the database", "sync the database", "truncate the database", "lock the database", "delete a file", "close the journal"])
    func anOperationElsewhereWritesTheJournalOutFirst(_ operation: String) throws {
        let pair = try Pair()
        defer { pair.close() }
        pair.journal.write([UInt8](repeating: 7, count: 512), at: 0)
        #expect(pair.journal.onDisk.isEmpty)
        let database = pair.database
        switch operation {
        case "write the database": database.write([1], at: 0)
        case "sync the database": #expect(database.methods.xSync(database.file, SQLITE_SYNC_NORMAL) == SQLITE_OK)
        case "truncate the database": #expect(database.methods.xTruncate(database.file, 0) == SQLITE_OK)
        case "lock the database":
            #expect(database.methods.xLock(database.file, SQLITE_LOCK_SHARED) == SQLITE_OK)
            #expect(database.methods.xUnlock(database.file, SQLITE_LOCK_NONE) == SQLITE_OK)
        case "delete a file":
            let other = pair.directory.appendingPathComponent("other").path
            TestSupport.write("x", to: URL(fileURLWithPath: other))
            #expect(database.vfs.pointee.xDelete(database.vfs, other, 0) == SQLITE_OK)
        default:
            pair.journal.close()
        }
        #expect(pair.journal.onDisk == Data(repeating: 7, count: 512))
    }

    /// A write elsewhere in the journal (SQLite rewriting its header) lands after the
    /// bytes before it, never before.
    @Test func aWriteThatDoesNotContinueTheJournalComesAfterWhatIsHeld() throws {
        let pair = try Pair()
        defer { pair.close() }
        pair.journal.write([UInt8](repeating: 3, count: 512), at: 512)
        pair.journal.write([UInt8](repeating: 4, count: 12), at: 0)
        #expect(pair.journal.onDisk.count == 1024)
        #expect(pair.journal.onDisk.suffix(512) == Data(repeating: 3, count: 512))
        #expect(pair.journal.read(12, at: 0) == Data(repeating: 4, count: 12))
    }
}
