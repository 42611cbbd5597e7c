import CSQLiteConfig
import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import SQLImportKit

/// Writeback hints (`WritebackHints.c`): a large transaction's database and journal get
/// them, and they go only to a descriptor that is the file's own.
@Suite struct WritebackHintTests {
    init() {
        #expect(SQLiteProcessSettings.startWritebackEarly())
    }

    /// 6000 rows of 1 KiB rewritten: about 6 MB of journal and as much written to the
    /// database (spilled from the 2 MB cache, then at commit), a hint per 2 MiB of each.
    @Test func aLargeTransactionsDatabaseAndJournalGetHints() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (path, _) = try JournalWriteJoiningTests.seededDatabase(directory, rows: 6000)
        try DatabaseQueue(path: path).writeWithoutTransaction { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            try db.execute(sql: JournalWriteJoiningTests.rewriteEveryRow)
            let journalHints = sqlimport_write_coalescing_vfs_writeback_hints(db.sqliteConnection, 1)
            #expect(journalHints >= 2, "the journal got \(journalHints) hints (-1: its descriptor was not found)")
            try db.execute(sql: "COMMIT")
            let databaseHints = sqlimport_write_coalescing_vfs_writeback_hints(db.sqliteConnection, 0)
            #expect(databaseHints >= 2, "the database got \(databaseHints) hints")
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM items WHERE note LIKE '% changed'") == 6000)
        }
    }

    /// The descriptor is read from the unix VFS's file object; it is used only when fstat
    /// shows it is the file opened under that name.
    @Test func theDescriptorFoundIsTheOpenedFilesAndNoOther() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let path = directory.appendingPathComponent("app.db").path
        let other = directory.appendingPathComponent("other.db").path
        TestSupport.write("other", to: URL(fileURLWithPath: other))
        let unix = try #require(sqlite3_vfs_find("unix"))
        let file = UnsafeMutableRawPointer.allocate(byteCount: Int(unix.pointee.szOsFile), alignment: 16)
            .bindMemory(to: sqlite3_file.self, capacity: 1)
        defer { file.deallocate() }
        let name = strdup(path)!
        defer { free(name) }
        var outFlags: Int32 = 0
        try #require(unix.pointee.xOpen(unix, name, file, SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &outFlags) == SQLITE_OK)
        defer { _ = file.pointee.pMethods.pointee.xClose(file) }

        let descriptor = sqlimport_unix_file_descriptor(file, path)
        #expect(descriptor >= 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)") == path)
        // The same object under another file's name: its descriptor is not that file's.
        #expect(sqlimport_unix_file_descriptor(file, other) == -1)
        #expect(sqlimport_unix_file_descriptor(file, nil) == -1)

        // An object whose descriptor slot holds another file's descriptor is refused too,
        // as a unixFile laid out differently would be.
        let otherHandle = try #require(FileHandle(forReadingAtPath: other))
        defer { try? otherHandle.close() }
        let fake = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
        defer { fake.deallocate() }
        fake.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
        fake.storeBytes(of: file.pointee.pMethods, as: UnsafePointer<sqlite3_io_methods>?.self)
        fake.storeBytes(of: otherHandle.fileDescriptor, toByteOffset: 3 * MemoryLayout<UnsafeRawPointer>.size, as: Int32.self)
        #expect(sqlimport_unix_file_descriptor(fake.assumingMemoryBound(to: sqlite3_file.self), path) == -1)
        #expect(sqlimport_unix_file_descriptor(fake.assumingMemoryBound(to: sqlite3_file.self), other) == otherHandle.fileDescriptor)
    }
}
