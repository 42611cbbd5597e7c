import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// The database fails, not the input: a full disk, a read-only file or folder, a lock held
/// by another connection, a corrupt file. Each is a `DatabaseFault` with a message that
/// says what to do, the documented exit code (74, 75, 73), and nothing half-applied.
@Suite(.serialized) struct FaultTests {
    typealias Workspace = CronRunTests.Workspace

    /// A workspace with the seeds' schema and 500 rows in it.
    static func seeded() throws -> Workspace {
        let workspace = try Workspace()
        let seed = workspace.file("seed.jsonl", CronRunTests.itemsJSONL(500))
        try TestSupport.runImport([seed], database: workspace.database) { $0.table = "items"; $0.upsert = ["id"] }
        return workspace
    }

    static func options(_ input: String, _ workspace: Workspace) -> ImportOptions {
        var options = ImportOptions(inputs: [input], databasePath: workspace.database)
        options.table = "items"
        options.upsert = ["libraryID", "remoteID"]
        return options
    }

    /// Runs `body` with the database's page count limited to its current size plus
    /// `extraPages`: SQLite then fails with SQLITE_FULL as on a full disk.
    static func withFullDisk(_ workspace: Workspace, extraPages: Int, _ body: (Database) throws -> Void) throws {
        try DatabaseQueue(path: workspace.database).inDatabase { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count")!
            try db.execute(sql: "PRAGMA max_page_count = \(pages + extraPages)")
            try body(db)
        }
    }

    // MARK: - Full disk

    @Test(arguments: [WriteStrategyKind.typed, .cached, .multirow])
    func fullDiskIsAFaultAndLeavesTheDatabaseAsItWas(_ strategy: WriteStrategyKind) throws {
        let workspace = try Self.seeded()
        defer { workspace.cleanUp() }
        let before = try TestSupport.dump(workspace.database)
        let input = workspace.file("in.jsonl", CronRunTests.itemsJSONL(20_000, offset: 250))
        try Self.withFullDisk(workspace, extraPages: 20) { db in
            var options = Self.options(input, workspace)
            options.strategy = strategy
            #expect {
                try Importer(options: options).run(in: db)
            } throws: { error in
                guard let fault = error as? DatabaseFault, fault.kind == .full else { return false }
                return "\(fault)".contains("database or disk is full while writing the record at \(input):")
                    && "\(fault)".contains("Free disk space")
            }
        }
        #expect(try workspace.integrity() == "ok")
        #expect(try TestSupport.dump(workspace.database) == before)
    }

    /// Was exit 65 and "SQLite refused the record: disk I/O error", as if the record were bad.
    @Test func fullDiskDuringAStatementIsExit74NotABadRecord() throws {
        let workspace = try Self.seeded()
        defer { workspace.cleanUp() }
        let before = try TestSupport.dump(workspace.database)
        _ = workspace.file("in.jsonl", CronRunTests.itemsJSONL(20_000, offset: 250))
        // A 1 MiB page cache spills inside statements; RLIMIT_FSIZE then fails the write.
        let command = "ulimit -f 512; exec '\(TestSupport.executable.path)' in.jsonl --db app.db --table items --upsert libraryID,remoteID --cache-mib 1"
        let result = try TestSupport.runShell(command, in: workspace.directory)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("while writing the record at in.jsonl:"))
        #expect(!result.stderr.contains("refused the record"))
        #expect(try workspace.integrity() == "ok")
        #expect(try TestSupport.dump(workspace.database) == before)
        #expect(try workspace.strayFiles().isEmpty)
    }

    @Test func fullDiskWithCommitEveryKeepsWholeCheckpointsAndResumes() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let input = workspace.file("in.jsonl", CronRunTests.itemsJSONL(30_000))
        var options = Self.options(input, workspace)
        options.commitEvery = 2000
        try Self.withFullDisk(workspace, extraPages: 300) { db in
            #expect(throws: DatabaseFault.self) { try Importer(options: options).run(in: db) }
        }
        #expect(try workspace.integrity() == "ok")
        let committed = try workspace.count()
        #expect(committed > 0 && committed < 30_000 && committed % 2000 == 0, "\(committed)")
        let logged = try DatabaseQueue(path: workspace.database).read { try Int.fetchOne($0, sql: "SELECT committed_rows FROM _sqlimport_runs") }
        #expect(logged == committed)
        // Space is back: --resume finishes the run.
        options.resume = true
        let summary = try Importer(options: options).run()
        #expect(summary.resumedRecords == committed)
        #expect(summary.counts.inserted == 30_000 - committed)
        #expect(try workspace.count() == 30_000)
    }

    /// SQLite rolls the whole transaction back on an I/O error, and on a constraint or
    /// trigger that says ROLLBACK. The run went on (a multi-row chunk retried record by
    /// record, `--on-error skip` set the record aside), so every later record committed on
    /// its own: a failed run left thousands of rows behind. It now stops at once.
    @Test(arguments: [WriteStrategyKind.cached, .multirow, .typed])
    func transactionRolledBackBySQLiteStopsTheRunEvenWhenSkipping(_ strategy: WriteStrategyKind) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        try DatabaseQueue(path: workspace.database).write { db in
            try db.execute(sql: """
                CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
                CREATE TRIGGER no_bad BEFORE INSERT ON t WHEN NEW.v = 'bad' BEGIN SELECT RAISE(ROLLBACK, 'bad value'); END;
                INSERT INTO t VALUES (0, 'kept');
                """)
        }
        let before = try TestSupport.dump(workspace.database)
        let lines = (1 ... 2000).map { #"{"id":\#($0),"v":"\#($0 == 1500 ? "bad" : "ok")"}"# }
        let input = workspace.file("t.jsonl", lines.joined(separator: "\n"))
        #expect(throws: (any Error).self) {
            try TestSupport.runImport([input], database: workspace.database) {
                $0.strategy = strategy
                $0.onError = .skip
            }
        }
        #expect(try TestSupport.dump(workspace.database) == before)
    }

    // MARK: - Read-only

    @Test func readOnlyConnectionIsAFaultAndWritesNothing() throws {
        let workspace = try Self.seeded()
        defer { workspace.cleanUp() }
        let before = try Data(contentsOf: URL(fileURLWithPath: workspace.database))
        let input = workspace.file("in.jsonl", CronRunTests.itemsJSONL(100, offset: 1000))
        var configuration = Configuration()
        configuration.readonly = true
        _ = try DatabaseQueue(path: workspace.database, configuration: configuration).inDatabase { db in
            #expect {
                try Importer(options: Self.options(input, workspace)).run(in: db)
            } throws: { error in
                (error as? DatabaseFault)?.kind == .readOnly && "\(error)".contains("cannot be written")
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.database)) == before)
    }

    /// `chattr +i` needs CAP_LINUX_IMMUTABLE, which some containers lack (tests run as
    /// root, so permissions alone never stop a write).
    static let immutableFilesWork: Bool = {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sqlimport-chattr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: file) }
        guard let set = try? TestSupport.runShell("chattr +i '\(file.path)' 2>/dev/null", in: FileManager.default.temporaryDirectory), set.status == 0 else {
            return false
        }
        _ = try? TestSupport.runShell("chattr -i '\(file.path)'", in: FileManager.default.temporaryDirectory)
        return true
    }()

    @Test(.enabled(if: immutableFilesWork), arguments: ["app.db", "."])
    func immutableDatabaseOrFolderIsExit74AndWritesNothing(_ immutable: String) throws {
        let workspace = try Self.seeded()
        defer { workspace.cleanUp() }
        _ = workspace.file("in.jsonl", CronRunTests.itemsJSONL(100, offset: 1000))
        let before = try TestSupport.dump(workspace.database)
        _ = try TestSupport.runShell("chattr +i \(immutable)", in: workspace.directory)
        let result = try TestSupport.run(["in.jsonl", "--db", "app.db", "--table", "items", "--upsert", "id"], in: workspace.directory)
        _ = try TestSupport.runShell("chattr -i \(immutable)", in: workspace.directory)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("the database or its folder cannot be written"))
        #expect(try TestSupport.dump(workspace.database) == before)
        #expect(try workspace.strayFiles().isEmpty)
    }

    // MARK: - Locks

    /// In rollback-journal mode a reader's shared lock lets the run begin but not commit.
    @Test func readerBlockingTheCommitIsExit75AndNothingIsApplied() throws {
        let workspace = try Self.seeded()
        defer { workspace.cleanUp() }
        _ = workspace.file("in.jsonl", CronRunTests.itemsJSONL(1000, offset: 400))
        let before = try TestSupport.dump(workspace.database)
        let reader = try DatabaseQueue(path: workspace.database)
        try reader.inDatabase { db in
            try db.execute(sql: "BEGIN")
            _ = try Int.fetchOne(db, sql: "SELECT count(*) FROM items")
            let result = try TestSupport.run(
                ["in.jsonl", "--db", "app.db", "--table", "items", "--upsert", "id", "--busy-timeout", "200"], in: workspace.directory)
            #expect(result.status == 75, "\(result.stderr)")
            #expect(result.stderr.contains("database is locked"))
            #expect(result.stderr.contains("Retry later, or raise --busy-timeout"))
            try db.execute(sql: "COMMIT")
        }
        #expect(try TestSupport.dump(workspace.database) == before)
        #expect(try workspace.strayFiles().isEmpty)
    }

    // MARK: - Corruption

    /// Overwrites part of page `page` (1-based) of the database.
    static func damage(page: Int, of path: String) throws {
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64((page - 1) * 4096 + 200))
        try handle.write(contentsOf: Data(repeating: 0xFF, count: 3000))
        try handle.close()
    }

    /// A damaged page that the run would never read: only the up-front check finds it.
    @Test func corruptDatabaseIsRefusedBeforeAnyWriteWithExit73() throws {
        let workspace = try Self.seeded()
        defer { workspace.cleanUp() }
        let pages = try DatabaseQueue(path: workspace.database).read { try Int.fetchOne($0, sql: "PRAGMA page_count")! }
        try Self.damage(page: pages - 1, of: workspace.database)
        let before = try Data(contentsOf: URL(fileURLWithPath: workspace.database))
        _ = workspace.file("in.jsonl", CronRunTests.itemsJSONL(10, offset: 5000))
        let result = try TestSupport.run(["in.jsonl", "--db", "app.db", "--table", "items", "--upsert", "id"], in: workspace.directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("app.db is corrupt (PRAGMA quick_check: "))
        #expect(result.stderr.contains("sqlimport will not write to it and does not repair it"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.database)) == before)
    }

    /// Corruption the quick check cannot see (an index that disagrees with its table),
    /// found by SQLite while writing: exit 73 and a full rollback.
    @Test func corruptionFoundWhileWritingIsExit73AndRollsBack() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let queue = try DatabaseQueue(path: workspace.database)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, w TEXT); CREATE INDEX t_v ON t (v)")
            for id in 0 ..< 100 { try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?)", arguments: [id, "v\(id)", "w\(id)"]) }
        }
        // The index now claims to index w, but holds v's values.
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA writable_schema = ON")
            try db.execute(sql: "UPDATE sqlite_schema SET sql = 'CREATE INDEX t_v ON t (w)' WHERE name = 't_v'")
            try db.execute(sql: "PRAGMA writable_schema = OFF")
        }
        try queue.close()
        #expect(try DatabaseQueue(path: workspace.database).read { try String.fetchOne($0, sql: "PRAGMA quick_check") } == "ok")
        let before = try Data(contentsOf: URL(fileURLWithPath: workspace.database))
        _ = workspace.file("t.jsonl", (0 ..< 10).map { #"{"id":\#($0),"w":"new"}"# }.joined(separator: "\n"))
        let result = try TestSupport.run(["t.jsonl", "--db", "app.db", "--upsert", "id"], in: workspace.directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("app.db is corrupt (database disk image is malformed) while writing the record at t.jsonl:1"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.database)) == before)
        #expect(try workspace.strayFiles().isEmpty)
    }

    @Test func fileThatIsNotADatabaseIsExit73AndUntouched() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let garbage = Data("this is not a database, just text that is long enough to fill a header page....".utf8)
        try garbage.write(to: URL(fileURLWithPath: workspace.database))
        _ = workspace.file("in.jsonl", CronRunTests.itemsJSONL(10))
        let result = try TestSupport.run(["in.jsonl", "--db", "app.db", "--table", "items"], in: workspace.directory)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains("not a database"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: workspace.database)) == garbage)
    }
}
