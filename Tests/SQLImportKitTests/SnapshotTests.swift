import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// `sqlimport snapshot` and `sqlimport restore`, end to end: round trips, the stock `zstd`,
/// snapshots under a concurrent writer, damaged snapshots and interrupted runs.
@Suite struct SnapshotTests {
    /// Every kind of schema object, and values of every storage class.
    static let schema = """
        CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, photo BLOB);
        CREATE UNIQUE INDEX items_name ON items (name) WHERE price IS NOT NULL;
        CREATE TABLE log (itemID INTEGER, event TEXT) STRICT;
        CREATE TRIGGER items_log AFTER INSERT ON items BEGIN INSERT INTO log VALUES (new.id, 'insert'); END;
        CREATE VIEW cheap AS SELECT name FROM items WHERE price < 10;
        INSERT INTO items (name, price, photo) VALUES ('a', 0.1, x'00ff'), ('b' || char(0) || '😀', 1e308, NULL), ('', NULL, x'');
        WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
        INSERT INTO items (name, price) SELECT 'row ' || x, x / 8.0 FROM c;
        """

    static func makeDatabase(in directory: URL, name: String = "app.db") throws -> String {
        let path = directory.appendingPathComponent(name).path
        try TestSupport.createDatabase(path, schema: schema)
        return path
    }

    static func integrityCheck(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
    }

    // MARK: - Round trips

    @Test func snapshotThenRestoreGivesADatabaseWithTheSameDump() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.makeDatabase(in: directory)
        let snapshot = try TestSupport.run(["snapshot", "--db", "app.db", "-o", "app.sqlite.zst"], in: directory)
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        #expect(snapshot.stdout == "app.sqlite.zst\n")
        let restore = try TestSupport.run(["restore", "app.sqlite.zst", "--db", "restored.db"], in: directory)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(restore.stderr.contains("restored.db: restored from app.sqlite.zst"))
        let dump = try TestSupport.dump(database)
        #expect(dump.contains("trigger items_log") && dump.contains("view cheap") && dump.contains("index items_name"))
        #expect(try TestSupport.dump(directory.appendingPathComponent("restored.db").path) == dump)
        #expect(try StockTool.listing(directory) == ["app.db", "app.sqlite.zst", "restored.db"])
    }

    @Test func stockZstdDecompressesASnapshotIntoASoundDatabase() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.makeDatabase(in: directory)
        let result = try TestSupport.run(["snapshot", "--db", "app.db", "-o", "app.sqlite.zst", "--level", "9", "--threads", "0"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let path = directory.appendingPathComponent("app.sqlite.zst").path
        // The frame carries a checksum and the content size.
        let listing = try StockTool.output(["zstd", "-lv", path])
        #expect(listing.contains("XXH64"))
        #expect(try StockTool.status(["zstd", "-dq", path, "-o", directory.appendingPathComponent("plain.db").path]) == 0)
        let plain = directory.appendingPathComponent("plain.db").path
        #expect(try Self.integrityCheck(plain) == ["ok"])
        #expect(try TestSupport.dump(plain) == TestSupport.dump(database))
    }

    @Test func aWALDatabaseSnapshotsAndRestores() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.makeDatabase(in: directory)
        let pool = try DatabasePool(path: database)  // WAL mode, with a connection open
        try pool.write { try $0.execute(sql: "INSERT INTO items (name) VALUES ('only in the WAL')") }
        let snapshot = try TestSupport.run(["snapshot", "--db", "app.db", "-o", "s.sqlite.zst"], in: directory)
        #expect(snapshot.status == 0, "\(snapshot.stderr)")
        let restore = try TestSupport.run(["restore", "s.sqlite.zst", "--db", "restored.db"], in: directory)
        #expect(restore.status == 0, "\(restore.stderr)")
        let restored = directory.appendingPathComponent("restored.db").path
        #expect(try TestSupport.dump(restored) == pool.read { try TestSupport.dump($0) })
    }

    // MARK: - Names and overwriting

    @Test func theDefaultNameCarriesAUTCTimestamp() throws {
        #expect(Snapshotter.defaultName(at: Date(timeIntervalSince1970: 1_795_312_800)) == "sqlimport-20261122T020000Z.sqlite.zst")
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let result = try TestSupport.run(["snapshot", "--db", "app.db"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let name = result.stdout.trimmingCharacters(in: .newlines)
        #expect(name.wholeMatch(of: /sqlimport-\d{8}T\d{6}Z\.sqlite\.zst/) != nil, "\(name)")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(name).path))
    }

    @Test func snapshotAndRestoreRefuseToOverwriteWithoutForce() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.makeDatabase(in: directory)
        TestSupport.write("keep me", to: directory.appendingPathComponent("taken.sqlite.zst"))
        let refused = try TestSupport.run(["snapshot", "--db", "app.db", "-o", "taken.sqlite.zst"], in: directory)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("taken.sqlite.zst already exists; sqlimport does not overwrite snapshots"))
        #expect(try String(contentsOf: directory.appendingPathComponent("taken.sqlite.zst"), encoding: .utf8) == "keep me")
        let forced = try TestSupport.run(["snapshot", "--db", "app.db", "-o", "taken.sqlite.zst", "--force"], in: directory)
        #expect(forced.status == 0, "\(forced.stderr)")

        try TestSupport.createDatabase(directory.appendingPathComponent("other.db").path, schema: "CREATE TABLE x (y);")
        let before = try TestSupport.dump(directory.appendingPathComponent("other.db").path)
        let kept = try TestSupport.run(["restore", "taken.sqlite.zst", "--db", "other.db"], in: directory)
        #expect(kept.status == 64)
        #expect(kept.stderr.contains("other.db already exists; sqlimport does not overwrite databases"))
        #expect(try TestSupport.dump(directory.appendingPathComponent("other.db").path) == before)
        let replaced = try TestSupport.run(["restore", "taken.sqlite.zst", "--db", "other.db", "--force"], in: directory)
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try TestSupport.dump(directory.appendingPathComponent("other.db").path) == TestSupport.dump(database))
        #expect(try StockTool.listing(directory) == ["app.db", "other.db", "taken.sqlite.zst"])
    }

    /// `--force` replaces an output, never the file being read: a snapshot or an export
    /// onto the live database (or its journal), a restore onto its own snapshot.
    @Test func noCommandReplacesTheFileItReadsEvenWithForce() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.makeDatabase(in: directory)
        let before = try TestSupport.dump(database)
        for arguments in [
            ["snapshot", "--db", "app.db", "-o", "app.db", "--force"], ["snapshot", "--db", "app.db", "-o", "./app.db-journal", "--force"],
            ["export", "items", "--db", "app.db", "-o", "./app.db", "--format", "csv", "--force"],
            ["export", "items", "--db", database, "-o", "app.db", "--format", "jsonl", "--force"],
        ] {
            let refused = try TestSupport.run(arguments, in: directory)
            #expect(refused.status == 64, "\(arguments)")
            #expect(refused.stderr.contains("writing there would replace what is being read, even with --force"), "\(refused.stderr)")
        }
        #expect(try TestSupport.dump(database) == before)
        #expect(try TestSupport.run(["snapshot", "--db", "app.db", "-o", "s.zst"], in: directory).status == 0)
        let snapshot = try Data(contentsOf: directory.appendingPathComponent("s.zst"))
        let onItself = try TestSupport.run(["restore", "s.zst", "--db", "s.zst", "--force"], in: directory)
        #expect(onItself.status == 64, "\(onItself.stderr)")
        #expect(try Data(contentsOf: directory.appendingPathComponent("s.zst")) == snapshot)
    }

    /// Two snapshots joined (`cat a.zst b.zst`) are two valid zstd frames whose bytes
    /// make a sound-looking first database with the second appended: refused as damaged.
    @Test func twoSnapshotsJoinedAreRefusedAsDamaged() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        #expect(try TestSupport.run(["snapshot", "--db", "app.db", "-o", "a.zst"], in: directory).status == 0)
        let frame = try Data(contentsOf: directory.appendingPathComponent("a.zst"))
        try (frame + frame).write(to: directory.appendingPathComponent("ab.zst"))
        let joined = try TestSupport.run(["restore", "ab.zst", "--db", "r.db"], in: directory)
        #expect(joined.status == 65)
        #expect(joined.stderr.contains("a second database follows the first"), "\(joined.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("r.db").path))
        // Bytes past the pages that are no database (SQLite's chunk-size padding) are fine.
        let database = try Data(contentsOf: directory.appendingPathComponent("app.db"))
        try (database + Data(count: 65536)).write(to: directory.appendingPathComponent("padded.db"))
        #expect(try TestSupport.runShell("zstd -q padded.db -o padded.db.zst", in: directory).status == 0)
        let padded = try TestSupport.run(["restore", "padded.db.zst", "--db", "p.db"], in: directory)
        #expect(padded.status == 0, "\(padded.stderr)")
        // Other bytes there (a frame of something else appended) were restored with the
        // database, exit 0: the file was not the one snapshotted.
        var noise = Data(count: 5000)
        for index in noise.indices { noise[index] = UInt8(truncatingIfNeeded: index * 7 + 1) }
        try noise.write(to: directory.appendingPathComponent("noise"))
        #expect(try TestSupport.runShell("zstd -q noise -o noise.zst && cat a.zst noise.zst > tail.zst", in: directory).status == 0)
        let tail = try TestSupport.run(["restore", "tail.zst", "--db", "t.db"], in: directory)
        #expect(tail.status == 65 && tail.stderr.contains("bytes that are no database's follow its last page"), "\(tail.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("t.db").path))
    }

    @Test(arguments: [
        (["snapshot", "--db", "missing.db", "-o", "s.sqlite.zst"], Int32(73), "no database at missing.db"),
        (["snapshot", "--db", "app.db", "-o", "no/such/folder/s.sqlite.zst"], Int32(74), "cannot create no/such/folder/s.sqlite.zst"),
        (["snapshot", "--db", "app.db", "--level", "99"], Int32(64), "--level 99"),
        (["restore", "--db", "new.db"], Int32(64), "Missing expected argument '<snapshot>'"),
        (["restore", "app.db", "--db", "no/such/folder/new.db"], Int32(74), "cannot create no/such/folder/new.db"),
    ])
    func snapshotAndRestoreErrorsExitWithTheREADMECodes(_ arguments: [String], _ status: Int32, _ message: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let result = try TestSupport.run(arguments, in: directory)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try StockTool.listing(directory) == ["app.db"])
    }

    // MARK: - Damaged snapshots

    enum Damage: String, CaseIterable {
        case truncated, flippedBit, notZstd, notADatabase
    }

    @Test(arguments: Damage.allCases)
    func aDamagedSnapshotExits65AndLeavesTheTargetUntouched(_ damage: Damage) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        #expect(try TestSupport.run(["snapshot", "--db", "app.db", "-o", "good.sqlite.zst"], in: directory).status == 0)
        var data = try Data(contentsOf: directory.appendingPathComponent("good.sqlite.zst"))
        switch damage {
        case .truncated: data = data.prefix(data.count * 2 / 3)
        case .flippedBit: data[data.count / 2] ^= 0x04
        case .notZstd: data = Data(String(repeating: "not a snapshot\n", count: 100).utf8)
        case .notADatabase:
            let text = directory.appendingPathComponent("text")
            TestSupport.write(String(repeating: "not a database\n", count: 1000), to: text)
            _ = try StockTool.output(["zstd", "-q", "--rm", text.path, "-o", text.path + ".zst"])
            data = try Data(contentsOf: URL(fileURLWithPath: text.path + ".zst"))
            TestSupport.remove(URL(fileURLWithPath: text.path + ".zst"))
        }
        try data.write(to: directory.appendingPathComponent("bad.sqlite.zst"))
        let other = directory.appendingPathComponent("other.db").path
        try TestSupport.createDatabase(other, schema: "CREATE TABLE x (y); INSERT INTO x VALUES (1);")
        let before = try TestSupport.dump(other)

        for arguments in [["--db", "new.db"], ["--db", "other.db", "--force"]] {
            let result = try TestSupport.run(["restore", "bad.sqlite.zst"] + arguments, in: directory)
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("bad.sqlite.zst: "))
            #expect(result.stderr.contains("nothing was restored"))
        }
        #expect(try TestSupport.dump(other) == before)
        #expect(try StockTool.listing(directory) == ["app.db", "bad.sqlite.zst", "good.sqlite.zst", "other.db"])
    }

    @Test func aMissingSnapshotExits66() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try TestSupport.run(["restore", "missing.sqlite.zst", "--db", "new.db"], in: directory)
        #expect(result.status == 66)
        #expect(result.stderr.contains("missing.sqlite.zst: no such file"))
        #expect(try StockTool.listing(directory).isEmpty)
    }

    /// `restore -` reads the snapshot from standard input (documented in its help); a
    /// folder is named as a folder, not with import's hint to pass its `*.jsonl`.
    @Test func aSnapshotComesFromStandardInputAndAFolderIsNamedAsNoSnapshot() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.makeDatabase(in: directory)
        #expect(try TestSupport.run(["snapshot", "--db", "app.db", "-o", "app.sqlite.zst"], in: directory).status == 0)
        let piped = try TestSupport.run(
            ["restore", "-", "--db", "piped.db"], in: directory, stdin: try Data(contentsOf: directory.appendingPathComponent("app.sqlite.zst")))
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try TestSupport.dump(directory.appendingPathComponent("piped.db").path) == TestSupport.dump(database))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("backups"), withIntermediateDirectories: false)
        let folder = try TestSupport.run(["restore", "backups/", "--db", "new.db"], in: directory)
        #expect(folder.status == 66)
        #expect(folder.stderr.contains("backups/ is a folder, not a snapshot; pass the snapshot file in it (e.g. backups/app.sqlite.zst)"), "\(folder.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("new.db").path))
    }

    // MARK: - Concurrency and signals

    @Test(arguments: ["delete", "wal"])
    func snapshotsTakenWhileAnotherProcessWritesAreConsistent(_ journalMode: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        // Every import is one transaction of 200 rows of one batch, all with the same
        // version; a trigger counts the inserts. A consistent copy sees whole batches of
        // one version each, and a count that matches the trigger's.
        try DatabaseQueue(path: database).writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = \(journalMode)") }
        try TestSupport.createDatabase(database, schema: """
            CREATE TABLE items (id INTEGER PRIMARY KEY, batch INTEGER NOT NULL, version INTEGER NOT NULL);
            CREATE INDEX items_batch ON items (batch, version);
            CREATE TABLE stats (inserted INTEGER NOT NULL);
            INSERT INTO stats VALUES (0);
            CREATE TRIGGER items_count AFTER INSERT ON items BEGIN UPDATE stats SET inserted = inserted + 1; END;
            """)
        for batch in 0 ..< 4 {
            for version in 1 ... 2 {
                let lines = (0 ..< 200).map { #"{"id":\#(batch * 1000 + $0),"batch":\#(batch),"version":\#(version)}"# }
                TestSupport.write(lines.joined(separator: "\n"), to: directory.appendingPathComponent("b\(batch)v\(version).jsonl"))
            }
        }
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/sh")
        writer.arguments = ["-c", #"while [ ! -e stop ]; do for f in b*.jsonl; do "$0" import "$f" --db app.db --table items --upsert id -q || exit 1; done; done"#, TestSupport.executable.path]
        writer.currentDirectoryURL = directory
        try writer.run()
        defer {
            TestSupport.write("", to: directory.appendingPathComponent("stop"))
            writer.waitUntilExit()
        }
        // Wait for the first commit, so that the snapshots overlap with writes.
        // The poller waits for the writer's locks like any reader should (busy timeout).
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        let poller = try DatabaseQueue(path: database, configuration: configuration)
        let deadline = Date().addingTimeInterval(60)
        while try poller.read({ try Int.fetchOne($0, sql: "SELECT count(*) FROM items") ?? 0 }) == 0, Date() < deadline {
            usleep(20_000)
        }
        for number in 1 ... 4 {
            let name = "s\(number).sqlite.zst"
            let snapshot = try TestSupport.run(["snapshot", "--db", "app.db", "-o", name], in: directory)
            #expect(snapshot.status == 0, "\(snapshot.stderr)")
            let restore = try TestSupport.run(["restore", name, "--db", "r\(number).db"], in: directory)
            #expect(restore.status == 0, "\(restore.stderr)")
            let restored = directory.appendingPathComponent("r\(number).db").path
            #expect(try Self.integrityCheck(restored) == ["ok"])
            try DatabaseQueue(path: restored).read { db in
                let rows = try Int.fetchOne(db, sql: "SELECT count(*) FROM items") ?? -1
                #expect(rows > 0 && rows % 200 == 0, "\(rows) rows")
                #expect(try Int.fetchOne(db, sql: "SELECT inserted FROM stats") == rows)
                let torn = try Int.fetchOne(db, sql: "SELECT count(*) FROM (SELECT batch FROM items GROUP BY batch HAVING count(*) != 200 OR count(DISTINCT version) != 1)")
                #expect(torn == 0)
            }
        }
        TestSupport.write("", to: directory.appendingPathComponent("stop"))
        writer.waitUntilExit()
        #expect(writer.terminationStatus == 0)
        #expect(try StockTool.listing(directory).filter { $0.hasPrefix(".") }.isEmpty)
    }

    @Test(arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130)), (SIGHUP, Int32(129))])
    func anInterruptedRestoreRemovesItsTemporaryFile(_ signalNumber: Int32, _ status: Int32) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        #expect(try TestSupport.run(["snapshot", "--db", "app.db", "-o", "s.sqlite.zst"], in: directory).status == 0)
        let snapshot = try Data(contentsOf: directory.appendingPathComponent("s.sqlite.zst"))
        // A FIFO that delivers the first part of the snapshot, then nothing: the restore
        // waits in the middle, with its temporary file written in part.
        let fifo = directory.appendingPathComponent("slow.sqlite.zst").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let descriptor = open(fifo, O_RDWR)
        defer { close(descriptor) }
        _ = snapshot.prefix(snapshot.count / 2).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }

        let process = Process()
        process.executableURL = TestSupport.executable
        process.arguments = ["restore", "slow.sqlite.zst", "--db", "new.db"]
        process.currentDirectoryURL = directory
        // A harness started under nohup passes SIGHUP on ignored, and sqlimport keeps it so.
        if signalNumber == SIGHUP { signal(SIGHUP, SIG_DFL) }
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        func temporaryFiles() throws -> [String] { try StockTool.listing(directory).filter { $0.hasPrefix(".new.db.") } }
        while try temporaryFiles().isEmpty, Date() < deadline { usleep(20_000) }
        #expect(try temporaryFiles().count == 1)
        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == status)
        #expect(try StockTool.listing(directory) == ["app.db", "s.sqlite.zst", "slow.sqlite.zst"])
    }
}
