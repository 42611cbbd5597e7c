import CFaultVFS
import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import SQLImportKit

/// The VFS that writes the rollback journal in large writes (`JournalBufferVFS.c`): it
/// must really join them; a crash or a rollback must leave what they leave without it;
/// and when writing its buffer fails, SQLite must recover from the file, with nothing of
/// the failed transaction left in the database or in the connection's cache.
@Suite struct JournalBufferTests {
    init() {
        #expect(SQLiteProcessSettings.bufferJournalWrites())
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

    /// Every row as text, in order.
    static let contentsSQL = "SELECT group_concat(id || ':' || hex(payload) || ':' || note, ',') FROM (SELECT * FROM items ORDER BY id)"

    static func contents(_ db: Database) throws -> String {
        try String.fetchOne(db, sql: contentsSQL) ?? ""
    }

    static func contents(_ path: String) throws -> String {
        try DatabaseQueue(path: path).read(contents)
    }

    static let rewriteEveryRow = "UPDATE items SET payload = randomblob(1000), note = note || ' changed'"

    /// Rewrites every row of a seeded database in one transaction, with a page cache of
    /// `cacheSize` (`PRAGMA cache_size`), calling `beforeCommit` and `afterCommit` around
    /// its commit; checks that every row was rewritten.
    static func rewriteEveryRowOnce(
        cacheSize: Int, beforeCommit: (Database) throws -> Void, afterCommit: (Database) throws -> Void = { _ in }
    ) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, _) = try seededDatabase(directory)
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA cache_size = \(cacheSize)")
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: rewriteEveryRow)
            try beforeCommit(db)
            try db.execute(sql: "COMMIT")
            try afterCommit(db)
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE note LIKE '% changed'") == 3000)
        }
    }

    @Test func aTransactionsJournalReachesTheFileInLargeWrites() throws {
        // A cache that holds the transaction: each spill syncs the journal, which writes
        // the buffer out (and SQLite's default, 2 MB, spills every few pages).
        try Self.rewriteEveryRowOnce(cacheSize: -65536) { db in
            let counts = try #require(SQLiteProcessSettings.journalWriteCounts(db), "the journal is not the buffering VFS's")
            // Three writes per journaled page (number, page, checksum), at least one page
            // per 1 KiB row over four rows...
            #expect(counts.buffered >= 3 * 3000 / 4)
            // ...reaching the file joined, many to a write (about 90 to one).
            #expect(counts.written * 20 <= counts.buffered, "\(counts)")
        }
    }

    #if os(Linux)  // sync_file_range is Linux's: elsewhere no file gets hints.
    /// With writeback hints on, a transaction that writes megabytes to its journal and to
    /// its database asks Linux to start writing both back before their syncs: the VFS
    /// found each file's own descriptor through the unix VFS's `open`.
    @Test func aLargeTransactionsJournalAndDatabaseGetWritebackHints() throws {
        #expect(SQLiteProcessSettings.startWritebackEarly())
        // About 3 MB journaled and written: a hint every 2 MiB.
        try Self.rewriteEveryRowOnce(cacheSize: 100) { db in
            let hints = try #require(SQLiteProcessSettings.writebackHints(db, journal: true), "the journal gets no hints")
            #expect(hints >= 1)
        } afterCommit: { db in
            let hints = try #require(SQLiteProcessSettings.writebackHints(db, journal: false), "the database gets no hints")
            #expect(hints >= 1)
        }
    }

    /// A descriptor is used for hints only when fstat shows that it is the very file.
    @Test func aDescriptorOfAnotherFileIsNotUsedForHints() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (first, second) = (directory.appendingPathComponent("a").path, directory.appendingPathComponent("b").path)
        TestSupport.write("a", to: URL(fileURLWithPath: first))
        TestSupport.write("b", to: URL(fileURLWithPath: second))
        let descriptor = open(first, O_RDONLY)
        defer { close(descriptor) }
        try #require(descriptor >= 0)
        #expect(sqlimport_descriptor_if_same_file(descriptor, first) == descriptor)
        #expect(sqlimport_descriptor_if_same_file(descriptor, second) == -1)
        #expect(sqlimport_descriptor_if_same_file(descriptor, directory.appendingPathComponent("none").path) == -1)
    }
    #endif

    /// What a crash leaves is what the file system holds: copies of the database and its
    /// journal taken in the middle of a transaction that has already written pages to the
    /// database (a small cache makes SQLite spill them). Opening the copies must roll the
    /// journal back to the database as it was. With `synchronous = OFF` nothing syncs the
    /// journal before those pages are written, so only the VFS's own ordering keeps it
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
    /// A statement whose journal outgrows what stays in memory (16 MiB) spills it to a
    /// file, and the run commits: 500-row statements of random updates on 64 KiB pages.
    /// SQLite writes a spilled journal in chunks of that size, which the unix VFS failed
    /// as a full disk (exit 74 on an empty disk; an adversarial review found it); the VFS
    /// writes them in pieces.
    @Test func aStatementJournalPastItsMemoryLimitSpillsAndTheRunCommits() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("wide.db").path
        try DatabaseQueue(path: database).writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 65536; VACUUM; CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, body TEXT NOT NULL)")
        }
        var random = StrategyEquivalenceTests.Generator(state: 5)
        let ids = (0 ..< 12_000).map { _ in random.uuid() }
        let body = String(repeating: "x", count: 3000)
        let base = ids.map { #"{"id":"\#($0)","body":"\#(body)"}"# }.joined(separator: "\n") + "\n"
        let delta = ids.shuffled(using: &random).map { #"{"id":"\#($0)","body":"\#(body)y"}"# }.joined(separator: "\n") + "\n"
        TestSupport.write(base, to: directory.appendingPathComponent("base.jsonl"))
        TestSupport.write(delta, to: directory.appendingPathComponent("delta.jsonl"))
        let load = try TestSupport.run(["base.jsonl", "--db", database, "--table", "t", "--upsert", "id"], in: directory)
        #expect(load.status == 0, "\(load.stderr)")
        let update = try TestSupport.run(
            ["delta.jsonl", "--db", database, "--table", "t", "--upsert", "id", "--strategy", "multirow", "--sort-memory", "0"], in: directory)
        #expect(update.status == 0, "\(update.stderr)")
        #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t WHERE body LIKE '%y'") } == 12_000)
    }

    @Test func rollbacksReadWhatTheBufferHolds() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, before) = try Self.seededDatabase(directory)
        var afterFirstHalf = ""
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
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
}

/// The buffering VFS's rules one by one, on files opened through it directly: what is
/// buffered, which operations write the buffer out first, and what a failed write of it
/// leaves. Serialized: the failing writes (`CFaultVFS`) are set process-wide.
@Suite(.serialized) struct JournalBufferRuleTests {
    /// Extended result codes, which Swift does not import (sqlite3.h computes them).
    static let ioErrorWrite = SQLITE_IOERR | 3 << 8
    static let ioErrorDelete = SQLITE_IOERR | 10 << 8
    /// The buffering VFS over the test VFS whose writes fail on demand.
    static let overFaults = "sqlimport-journal-buffer-over-faults"

    init() throws {
        #expect(SQLiteProcessSettings.bufferJournalWrites())
        try #require(sqlimport_test_faults_register() == SQLITE_OK)
        try #require(sqlimport_register_journal_buffer_vfs_over("sqlimport-test-faults", Self.overFaults) == SQLITE_OK)
    }

    /// A file opened through the buffering VFS, under a name made as SQLite makes them
    /// (the VFS finds a journal's database from its name).
    final class BufferedFile {
        let vfs: UnsafeMutablePointer<sqlite3_vfs>
        let file: UnsafeMutablePointer<sqlite3_file>
        let path: String

        init(_ name: sqlite3_filename, path: String, flags: Int32, vfs vfsName: String) throws {
            vfs = try #require(sqlite3_vfs_find(vfsName))
            file = UnsafeMutableRawPointer.allocate(byteCount: Int(vfs.pointee.szOsFile), alignment: 16).bindMemory(to: sqlite3_file.self, capacity: 1)
            self.path = path
            var openedFlags: Int32 = 0
            try #require(vfs.pointee.xOpen(vfs, name, file, flags | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &openedFlags) == SQLITE_OK)
        }

        var methods: sqlite3_io_methods { file.pointee.pMethods.pointee }

        @discardableResult
        func write(_ bytes: [UInt8], at offset: Int64) -> Int32 {
            bytes.withUnsafeBytes { methods.xWrite(file, $0.baseAddress, Int32($0.count), offset) }
        }

        func read(_ count: Int, at offset: Int64) -> (code: Int32, data: Data) {
            var bytes = Data(count: count)
            let rc = bytes.withUnsafeMutableBytes { methods.xRead(file, $0.baseAddress, Int32(count), offset) }
            return (rc, bytes)
        }

        func sync() -> Int32 { methods.xSync(file, SQLITE_SYNC_NORMAL) }

        /// What the file system holds, as another process or a crash would see it.
        var onDisk: Data { (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data() }

        private var isOpen = true

        func close() {
            guard isOpen else { return }
            isOpen = false
            #expect(methods.xClose(file) == SQLITE_OK)
        }
    }

    /// A database file and its journal, opened through a buffering VFS.
    final class Pair {
        let directory = TestSupport.temporaryDirectory()
        let names: sqlite3_filename
        let database: BufferedFile
        let journal: BufferedFile

        init(vfs: String = "sqlimport-journal-buffer", name: String = "app.db") throws {
            let path = directory.appendingPathComponent(name).path
            names = try #require(sqlite3_create_filename(path, path + "-journal", path + "-wal", 0, nil))
            database = try BufferedFile(names, path: path, flags: SQLITE_OPEN_MAIN_DB, vfs: vfs)
            journal = try BufferedFile(sqlite3_filename_journal(names), path: path + "-journal", flags: SQLITE_OPEN_MAIN_JOURNAL, vfs: vfs)
        }

        func close() {
            journal.close()
            database.close()
            sqlite3_free_filename(names)
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
        var offset: Int64 = 512  // after the header
        for part in Self.record(1) + Self.record(2) {
            #expect(pair.journal.write(part, at: offset) == SQLITE_OK)
            offset += Int64(part.count)
        }
        #expect(pair.journal.onDisk.isEmpty, "the journal's writes reached the file one by one")
        #expect(pair.journal.read(4096, at: 512 + 4104 + 4).data == Data(repeating: 2, count: 4096))
        #expect(pair.journal.onDisk == Data(count: 512) + Data((Self.record(1) + Self.record(2)).flatMap { $0 }))
    }

    @Test func databaseWritesAreNeverHeld() throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(pair.database.write([UInt8](repeating: 9, count: 4096), at: 0) == SQLITE_OK)
        #expect(pair.database.onDisk == Data(repeating: 9, count: 4096))
    }

    /// Everything that could depend on the journal's last bytes, or let the file system or
    /// another process see its database without them, writes them out first.
    @Test(arguments: ["write the database", "sync the database", "truncate the database", "unlock the database", "read the journal", "sync the journal", "close the journal"])
    func anOperationThatCouldNeedTheJournalWritesItOutFirst(_ operation: String) throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(pair.journal.write([UInt8](repeating: 7, count: 512), at: 512) == SQLITE_OK)
        #expect(pair.journal.onDisk.isEmpty)
        let (database, journal) = (pair.database, pair.journal)
        switch operation {
        case "write the database": #expect(database.write([1], at: 0) == SQLITE_OK)
        case "sync the database": #expect(database.sync() == SQLITE_OK)
        case "truncate the database": #expect(database.methods.xTruncate(database.file, 0) == SQLITE_OK)
        case "unlock the database":
            #expect(database.methods.xLock(database.file, SQLITE_LOCK_SHARED) == SQLITE_OK)
            #expect(journal.onDisk.isEmpty, "taking a lock shows nothing to anyone")
            #expect(database.methods.xUnlock(database.file, SQLITE_LOCK_NONE) == SQLITE_OK)
        case "read the journal": #expect(journal.read(4, at: 0).code == SQLITE_OK)
        case "sync the journal": #expect(journal.sync() == SQLITE_OK)
        default: journal.close()
        }
        #expect(journal.onDisk == Data(count: 512) + Data(repeating: 7, count: 512))
    }

    /// Journal records as SQLite writes them (page number, page, checksum) for `pages`,
    /// after the header; returns where they end.
    @discardableResult
    static func journal(_ pages: [UInt8], to journal: BufferedFile, at start: Int64 = 512) -> Int64 {
        var offset = start
        for part in pages.flatMap(record) {
            #expect(journal.write(part, at: offset) == SQLITE_OK)
            offset += Int64(part.count)
        }
        return offset
    }

    /// A database write of a page whose original the buffer holds writes the journal out
    /// first; a write of any other page (one spilled from a cache smaller than the
    /// transaction, journaled long before) leaves the buffer as it is.
    @Test func aDatabaseWriteWritesTheJournalOutOnlyWhenItHoldsThatPagesOriginal() throws {
        let pair = try Pair()
        defer { pair.close() }
        Self.journal([2, 3], to: pair.journal)
        for page: Int64 in [1, 4, 300] {
            #expect(pair.database.write([UInt8](repeating: 9, count: 4096), at: (page - 1) * 4096) == SQLITE_OK)
        }
        #expect(pair.journal.onDisk.isEmpty, "a page whose original is not held wrote the journal out")
        #expect(pair.database.write([UInt8](repeating: 9, count: 4096), at: 2 * 4096) == SQLITE_OK)
        #expect(pair.journal.onDisk == Data(count: 512) + Data((Self.record(2) + Self.record(3)).flatMap { $0 }))
    }

    /// What the buffer holds is known by page even when a record's number and its page
    /// land in two buffers; bytes that are not a record, or a database write that is not
    /// one page of the records' size, write the journal out whatever the page.
    @Test(arguments: ["a record split across two buffers", "a record whose checksum would start the next buffer", "bytes that are not a record", "a write of another size"])
    func aDatabaseWriteThatMightOverwriteAHeldOriginalWritesTheJournalOutFirst(_ case: String) throws {
        let pair = try Pair()
        defer { pair.close() }
        let capacity = 124 << 10
        var page: Int64 = 5
        var size = 4096
        switch `case` {
        case "a record split across two buffers":
            // A number that fills the buffer: its page starts the next one.
            #expect(pair.journal.write([UInt8](repeating: 1, count: capacity - 4), at: 512) == SQLITE_OK)
            Self.journal([5], to: pair.journal, at: 512 + Int64(capacity) - 4)
            #expect(pair.journal.onDisk.count == 512 + capacity, "the test's premise: the number went out with the first buffer")
            #expect(pair.database.write([UInt8](repeating: 9, count: 4096), at: 5 * 4096) == SQLITE_OK)
            #expect(pair.journal.onDisk.count == 512 + capacity, "page 6 wrote the journal out")
        case "a record whose checksum would start the next buffer":
            // The page would fill the buffer exactly: it must start the next one, with its
            // checksum, so that the page stays held until its whole record is written.
            #expect(pair.journal.write([UInt8](repeating: 1, count: capacity - 4100), at: 512) == SQLITE_OK)
            Self.journal([5], to: pair.journal, at: 512 + Int64(capacity) - 4100)
        case "bytes that are not a record":
            Self.journal([2], to: pair.journal, at: 1024)
            #expect(pair.journal.write([UInt8](repeating: 7, count: 28), at: 1024 + 4104) == SQLITE_OK)
            page = 9
        default:
            Self.journal([2], to: pair.journal)
            page = 9
            size = 8192
        }
        let before = pair.journal.onDisk.count
        #expect(pair.database.write([UInt8](repeating: 9, count: size), at: (page - 1) * Int64(size)) == SQLITE_OK)
        #expect(pair.journal.onDisk.count > before, "the journal's buffer was not written out")
    }

    /// Another database's calls, and reads of the journal's own database, never write the
    /// journal out (nor could fail on it).
    @Test(arguments: ["read the database", "write another database", "unlock another database", "delete another file"])
    func otherOperationsLeaveTheJournalsBufferAlone(_ operation: String) throws {
        let pair = try Pair()
        let other = try Pair(name: "other.db")
        defer {
            other.close()
            pair.close()
        }
        #expect(pair.database.write([UInt8](repeating: 1, count: 4096), at: 0) == SQLITE_OK)
        #expect(pair.journal.write([UInt8](repeating: 7, count: 512), at: 512) == SQLITE_OK)
        switch operation {
        case "read the database": #expect(pair.database.read(16, at: 0).code == SQLITE_OK)
        case "write another database": #expect(other.database.write([1], at: 0) == SQLITE_OK)
        case "unlock another database":
            #expect(other.database.methods.xLock(other.database.file, SQLITE_LOCK_SHARED) == SQLITE_OK)
            #expect(other.database.methods.xUnlock(other.database.file, SQLITE_LOCK_NONE) == SQLITE_OK)
        default:
            let file = pair.directory.appendingPathComponent("x").path
            TestSupport.write("x", to: URL(fileURLWithPath: file))
            #expect(pair.database.vfs.pointee.xDelete(pair.database.vfs, file, 0) == SQLITE_OK)
        }
        #expect(pair.journal.onDisk.isEmpty)
    }

    /// A write at offset 0 (the journal's header: zeroing it commits in PERSIST and
    /// exclusive modes) is never held: it reaches the file at once, after what was held,
    /// so that SQLite gets its result.
    @Test func aWriteOfTheHeaderGoesToTheFileAtOnce() throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(pair.journal.write([UInt8](repeating: 3, count: 512), at: 512) == SQLITE_OK)
        #expect(pair.journal.onDisk.isEmpty)
        #expect(pair.journal.write([UInt8](repeating: 0xD9, count: 28), at: 0) == SQLITE_OK)
        #expect(pair.journal.onDisk.count == 1024)
        #expect(pair.journal.onDisk.prefix(28) == Data(repeating: 0xD9, count: 28))
        #expect(pair.journal.onDisk.suffix(512) == Data(repeating: 3, count: 512))
    }

    /// Another connection's handle on the same database (opened under a name of its own,
    /// as SQLite opens each connection's) never writes the journal out, nor fails on it.
    @Test(arguments: ["write", "sync", "unlock"])
    func anotherConnectionsDatabaseHandleLeavesTheJournalAlone(_ operation: String) throws {
        let pair = try Pair()
        let path = pair.directory.appendingPathComponent("app.db").path
        let names = try #require(sqlite3_create_filename(path, path + "-journal", path + "-wal", 0, nil))
        let other = try BufferedFile(names, path: path, flags: SQLITE_OPEN_MAIN_DB, vfs: "sqlimport-journal-buffer")
        defer {
            other.close()
            sqlite3_free_filename(names)
            pair.close()
        }
        #expect(pair.journal.write([UInt8](repeating: 7, count: 512), at: 512) == SQLITE_OK)
        switch operation {
        case "write": #expect(other.write([UInt8](repeating: 1, count: 4096), at: 0) == SQLITE_OK)
        case "sync": #expect(other.sync() == SQLITE_OK)
        default:
            #expect(other.methods.xLock(other.file, SQLITE_LOCK_SHARED) == SQLITE_OK)
            #expect(other.methods.xUnlock(other.file, SQLITE_LOCK_NONE) == SQLITE_OK)
        }
        #expect(pair.journal.onDisk.isEmpty)
    }

    /// A write elsewhere in the journal (SQLite rewriting its header) lands after the
    /// bytes before it, never before.
    @Test func aWriteThatDoesNotContinueTheJournalComesAfterWhatIsHeld() throws {
        let pair = try Pair()
        defer { pair.close() }
        #expect(pair.journal.write([UInt8](repeating: 3, count: 512), at: 512) == SQLITE_OK)
        #expect(pair.journal.write([UInt8](repeating: 4, count: 12), at: 8) == SQLITE_OK)
        #expect(pair.journal.onDisk.count == 1024)
        #expect(pair.journal.onDisk.suffix(512) == Data(repeating: 3, count: 512))
        #expect(pair.journal.read(12, at: 8).data == Data(repeating: 4, count: 12))
    }

    /// The journal's writes fail with SQLITE_FULL (a full disk), so the buffer's write
    /// fails. The call that needed it fails and does nothing; the bytes are dropped, not
    /// kept for a later call to fail on; every later call on the journal fails until it is
    /// closed; meanwhile its database is not written, synced or truncated, and the journal
    /// is not deleted; another database is written as usual; after the close, all goes
    /// through again.
    @Test func aFailedWriteOfTheBufferPoisonsTheJournalUntilItIsClosed() throws {
        let pair = try Pair(vfs: Self.overFaults)
        defer { pair.close() }
        sqlimport_test_faults_fail_writes(pair.directory.lastPathComponent + "/app.db-journal", SQLITE_FULL, 0, nil)
        defer { sqlimport_test_faults_fail_writes(nil, 0, 0, nil) }
        let (database, journal) = (pair.database, pair.journal)
        #expect(journal.write([UInt8](repeating: 7, count: 512), at: 512) == SQLITE_OK, "held, so reported written")
        #expect(database.write([UInt8](repeating: 1, count: 4096), at: 0) & 0xFF == SQLITE_FULL)
        #expect(database.onDisk.isEmpty, "the database was written before its journal")
        #expect(journal.read(512, at: 512).code & 0xFF == SQLITE_FULL)
        #expect(journal.write([1, 2, 3, 4], at: 1024) & 0xFF == SQLITE_FULL)
        #expect(journal.sync() & 0xFF == SQLITE_FULL)
        #expect(database.write([UInt8](repeating: 1, count: 4096), at: 0) == Self.ioErrorWrite)
        #expect(database.sync() == Self.ioErrorWrite)
        #expect(database.methods.xTruncate(database.file, 0) == Self.ioErrorWrite)
        #expect(database.vfs.pointee.xDelete(database.vfs, journal.path, 0) == Self.ioErrorDelete)
        #expect(sqlimport_test_faults_failed_writes() == 1, "the dropped bytes were tried once, never again")

        let other = try Pair(vfs: Self.overFaults, name: "other.db")
        #expect(other.database.write([UInt8](repeating: 5, count: 4096), at: 0) == SQLITE_OK)
        #expect(other.database.sync() == SQLITE_OK)
        other.close()

        journal.close()
        #expect(database.write([UInt8](repeating: 1, count: 4096), at: 0) == SQLITE_OK)
        #expect(database.sync() == SQLITE_OK)
        #expect(database.onDisk == Data(repeating: 1, count: 4096))
    }

    /// A connection whose journal stops being writable (SQLITE_FULL) after `after` writes
    /// (its header, then the buffer's), after SQLite was told that the bytes in the buffer
    /// were written: the
    /// transaction goes on as SQLite lets it (a failed statement is rolled back alone, the
    /// next one runs, the commit is tried), then is rolled back. With a small cache, pages
    /// reach the database before the failure. The same connection must then see the rows
    /// exactly as they were (its cache must not keep a page whose original was lost), the
    /// file must hold them, and once the journal can be written again the connection
    /// commits as usual.
    @Test(arguments: ["OFF", "FULL"], ["DELETE", "PERSIST", "TRUNCATE"])
    func aBufferThatCannotBeWrittenLeavesTheDatabaseAndTheConnectionAsTheyWere(_ synchronous: String, _ journalMode: String) throws {
        for after in [1, 12] {
            try failTheJournal(after: after, synchronous: synchronous, journalMode: journalMode)
        }
    }

    private func failTheJournal(after: Int, synchronous: String, journalMode: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, before) = try JournalBufferTests.seededDatabase(directory)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        let db = try Self.open(path, vfs: Self.overFaults, "PRAGMA cache_size = 40; PRAGMA synchronous = \(synchronous); PRAGMA journal_mode = \(journalMode)")
        defer { sqlite3_close_v2(db) }
        func execute(_ sql: String) -> Int32 { sqlite3_exec(db, sql, nil, nil, nil) }
        func text(_ sql: String) -> String? { Self.text(db, sql) }
        let contents = JournalBufferTests.contentsSQL
        let context = "synchronous \(synchronous), journal_mode \(journalMode), failing after \(after) writes"
        // (Compared as Bools: the rows are 3 MB of text.)
        let readsTheRows = text(contents) == before
        #expect(readsTheRows)

        let name = directory.lastPathComponent + "/app.db"
        sqlimport_test_faults_fail_writes(name + "-journal", SQLITE_FULL, Int64(after), name)
        #expect(execute("BEGIN IMMEDIATE") == SQLITE_OK)
        // Small enough to stay in the buffer: reported written.
        #expect(execute(JournalBufferTests.rewriteEveryRow + " WHERE id <= 10") == SQLITE_OK, "\(context)")
        var codes: [Int32] = []
        for sql in [JournalBufferTests.rewriteEveryRow + " WHERE id > 1000", JournalBufferTests.rewriteEveryRow + " WHERE id BETWEEN 11 AND 20", "COMMIT"] {
            codes.append(execute(sql))
        }
        if sqlite3_get_autocommit(db) == 0 { codes.append(execute("ROLLBACK")) }
        let failed = sqlimport_test_faults_failed_writes()
        let databaseWritesBeforeTheFailure = sqlimport_test_faults_watched_before_failure()
        sqlimport_test_faults_fail_writes(nil, 0, 0, nil)
        #expect(failed > 0, "no write failed: the test proves nothing (\(context))")
        if after > 1 { #expect(databaseWritesBeforeTheFailure > 0, "no page reached the database before the failure (\(context))") }
        #expect(codes.contains { $0 != SQLITE_OK }, "\(codes), \(context)")

        let connectionSeesTheRowsAsTheyWere = text(contents) == before
        #expect(connectionSeesTheRowsAsTheyWere, "\(codes), \(context)")
        #expect(text("PRAGMA integrity_check") == "ok", "\(context)")
        let fileHoldsTheRowsAsTheyWere = try JournalBufferTests.contents(path) == before
        #expect(fileHoldsTheRowsAsTheyWere, "\(context)")
        #expect(execute("BEGIN IMMEDIATE; " + JournalBufferTests.rewriteEveryRow + " WHERE id <= 100; COMMIT") == SQLITE_OK, "\(context)")
        #expect(text("SELECT count(*) FROM items WHERE note LIKE '% changed'") == "100", "\(context)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) != original)
    }

    /// A connection opened through a VFS by name, with the pragmas given.
    static func open(_ path: String, vfs: String, _ pragmas: String) throws -> OpaquePointer {
        var connection: OpaquePointer?
        try #require(sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, vfs) == SQLITE_OK)
        let db = try #require(connection)
        #expect(sqlite3_exec(db, pragmas, nil, nil, nil) == SQLITE_OK)
        return db
    }

    static func text(_ db: OpaquePointer, _ sql: String) -> String? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let value = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: value)
    }

    /// With `synchronous = OFF` nothing syncs the journal after the header's zeroing that
    /// commits a transaction in PERSIST mode and in exclusive locking mode, so that write
    /// must reach the file before COMMIT returns: a crash right after it (copies of the
    /// files) keeps the transaction.
    @Test(arguments: ["PRAGMA journal_mode = PERSIST", "PRAGMA locking_mode = EXCLUSIVE"])
    func aCommitWithoutSyncsSurvivesACrashRightAfterIt(_ mode: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, before) = try JournalBufferTests.seededDatabase(directory)
        let db = try Self.open(path, vfs: "sqlimport-journal-buffer", "PRAGMA synchronous = OFF; PRAGMA cache_size = 40; \(mode)")
        defer { sqlite3_close_v2(db) }
        #expect(sqlite3_exec(db, "BEGIN IMMEDIATE; " + JournalBufferTests.rewriteEveryRow + "; COMMIT", nil, nil, nil) == SQLITE_OK)
        let committed = try #require(Self.text(db, JournalBufferTests.contentsSQL))
        #expect(committed != before)
        let crashed = directory.appendingPathComponent("crashed.db").path
        try FileManager.default.copyItem(atPath: path, toPath: crashed)
        if FileManager.default.fileExists(atPath: path + "-journal") {
            try FileManager.default.copyItem(atPath: path + "-journal", toPath: crashed + "-journal")
        }
        let keepsTheTransaction = try JournalBufferTests.contents(crashed) == committed
        #expect(keepsTheTransaction, "\(mode): the copy rolled the committed transaction back")
        #expect(try DatabaseQueue(path: crashed).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }

    /// In PERSIST mode with `synchronous = OFF`, the transaction commits by zeroing the
    /// journal's header. When that write fails, COMMIT must say so (as with SQLite's own
    /// VFS), and the database, opened again, is as it was: the journal stayed hot.
    @Test func aFailedCommitOfAPersistentJournalIsReportedAndRolledBack() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, before) = try JournalBufferTests.seededDatabase(directory)
        let pristine = directory.appendingPathComponent("pristine.db").path
        try FileManager.default.copyItem(atPath: path, toPath: pristine)
        let journal = directory.lastPathComponent + "/app.db-journal"
        func run(failingAfter after: Int64) throws -> (commit: Int32, journalWrites: Int64) {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-journal")
            try FileManager.default.copyItem(atPath: pristine, toPath: path)
            let db = try Self.open(path, vfs: Self.overFaults, "PRAGMA synchronous = OFF; PRAGMA cache_size = 40; PRAGMA journal_mode = PERSIST")
            defer { sqlite3_close_v2(db) }
            sqlimport_test_faults_fail_writes(journal, SQLITE_FULL, after, journal)
            defer { sqlimport_test_faults_fail_writes(nil, 0, 0, nil) }
            #expect(sqlite3_exec(db, "BEGIN IMMEDIATE; " + JournalBufferTests.rewriteEveryRow, nil, nil, nil) == SQLITE_OK)
            let commit = sqlite3_exec(db, "COMMIT", nil, nil, nil)
            return (commit, sqlimport_test_faults_watched_writes())
        }
        let clean = try run(failingAfter: Int64.max)
        #expect(clean.commit == SQLITE_OK)
        #expect(clean.journalWrites > 1)
        // The last write of the journal is the header's zeroing.
        let failed = try run(failingAfter: clean.journalWrites - 1)
        #expect(failed.commit != SQLITE_OK, "COMMIT reported success though the write that commits failed")
        let asItWas = try JournalBufferTests.contents(path) == before
        #expect(asItWas)
        #expect(try DatabaseQueue(path: path).read { try String.fetchOne($0, sql: "PRAGMA integrity_check") } == "ok")
    }
}
