import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// `sqlimport export`: each format with and without compression (checked with the stock
/// `zstd` and `gzip`), the value encoding, the round trip back through import, and the
/// ways an export ends (closed pipe, failure, bad arguments).
@Suite struct ExportTests {
    // MARK: - Fixtures

    /// Three rows that exercise quoting, exact numbers, BLOBs, NULL and the empty string.
    static let schema = """
        CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, price REAL, photo BLOB, extra ANY) STRICT;
        INSERT INTO items VALUES (1, 'plain ✓', 0.1, x'00ff', NULL);
        INSERT INTO items VALUES (2, 'comma, "quote"' || char(10) || 'tab' || char(9) || 'end', 1e308, x'', 42);
        INSERT INTO items VALUES (3, '', NULL, NULL, 'text');
        """

    static let expected: [InputFormat: String] = [
        .jsonl: """
            {"id":1,"name":"plain ✓","price":0.1,"photo":{"$base64":"AP8="},"extra":null}
            {"id":2,"name":"comma, \\"quote\\"\\ntab\\tend","price":1e+308,"photo":{"$base64":""},"extra":42}
            {"id":3,"name":"","price":null,"photo":null,"extra":"text"}

            """,
        .json: """
            [
            {"id":1,"name":"plain ✓","price":0.1,"photo":{"$base64":"AP8="},"extra":null},
            {"id":2,"name":"comma, \\"quote\\"\\ntab\\tend","price":1e+308,"photo":{"$base64":""},"extra":42},
            {"id":3,"name":"","price":null,"photo":null,"extra":"text"}
            ]

            """,
        .csv: """
            id,name,price,photo,extra
            1,plain ✓,0.1,base64:AP8=,
            2,"comma, ""quote""
            tab\tend",1e+308,base64:,42
            3,"",,,text

            """,
        .tsv: """
            id\tname\tprice\tphoto\textra
            1\tplain ✓\t0.1\tbase64:AP8=\t
            2\t"comma, ""quote""
            tab\tend"\t1e+308\tbase64:\t42
            3\t""\t\t\ttext

            """,
    ]

    static func makeDatabase(in directory: URL, schema: String = ExportTests.schema) throws -> String {
        let path = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(path, schema: schema)
        return path
    }

    // MARK: - Formats and compression, end to end

    @Test(arguments: InputFormat.allCases, ["", ".zst", ".gz"])
    func exportWritesEachFormatToAFileThatTheStockToolsRead(_ format: InputFormat, _ compression: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let name = "items.\(format.rawValue)\(compression)"
        let result = try TestSupport.run(["export", "items", "--db", "app.db", "-o", name], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("\(name): 3 rows · \(format.rawValue)"))
        let path = directory.appendingPathComponent(name).path
        let text: String
        switch compression {
        case ".zst": text = try StockTool.output(["zstd", "-dcq", path])
        case ".gz": text = try StockTool.output(["gzip", "-dc", path])
        default: text = try String(contentsOfFile: path, encoding: .utf8)
        }
        #expect(text == Self.expected[format])
        // Nothing but the database and the output: the temporary file was renamed.
        #expect(try StockTool.listing(directory) == ["app.db", name])
    }

    @Test(arguments: InputFormat.allCases)
    func exportWritesEachFormatToStandardOutputPlainOrZstd(_ format: InputFormat) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let plain = try TestSupport.run(["export", "items", "--db", "app.db", "--format", format.rawValue], in: directory)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout == Self.expected[format])
        #expect(plain.stderr.isEmpty)
        // --zstd without a level, on standard output, through a shell redirect.
        let status = try StockTool.status(
            ["sh", "-c", #""$0" export items --db app.db --format \#(format.rawValue) --zstd --threads 2 > out.zst"#, TestSupport.executable.path],
            in: directory)
        #expect(status == 0)
        #expect(try StockTool.output(["zstd", "-dcq", directory.appendingPathComponent("out.zst").path]) == Self.expected[format])
    }

    /// Standard output that fills (a file the shell opened on a full disk): exit 74, and
    /// the message no longer claims that nothing was left behind, which only holds for
    /// `-o` files (a helper found 2 MB of partial JSONL behind that claim).
    @Test func aFullStandardOutputSaysWhatWasWrittenStays() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let result = try TestSupport.runShell("'\(TestSupport.executable.path)' export items --db app.db > /dev/full", in: directory)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("writing standard output failed") && result.stderr.contains("stays where standard output went"), "\(result.stderr)")
        #expect(!result.stderr.contains("Nothing was left behind"), "\(result.stderr)")
    }

    @Test func jsonLinesIsTheDefaultOnStandardOutput() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let result = try TestSupport.run(["export", "--query", "SELECT id, name FROM items WHERE id = 1"], in: directory, environment: ["SQLIMPORT_DB": "app.db"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "{\"id\":1,\"name\":\"plain ✓\"}\n")
    }

    /// `-o` through a symbolic link replaces the file it names, and the link stays; a
    /// FIFO or a descriptor (`/dev/stdout`) is written in place, without --force. (The
    /// temporary file was renamed over the path itself: the link became a file, a FIFO's
    /// reader got nothing, and as root `-o /dev/stdout` replaced the device node.)
    @Test func anOutputThroughALinkAFIFOOrADescriptorGoesWhereItPoints() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let query = ["--query", "SELECT id, name FROM items WHERE id = 1", "--db", "app.db"]
        let expected = "{\"id\":1,\"name\":\"plain ✓\"}\n"
        // A link.
        TestSupport.write("old\n", to: directory.appendingPathComponent("real.jsonl"))
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("link.jsonl").path, withDestinationPath: "real.jsonl")
        let linked = try TestSupport.run(["export"] + query + ["-o", "link.jsonl", "--force"], in: directory)
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory.appendingPathComponent("link.jsonl").path) == "real.jsonl")
        #expect(try String(contentsOf: directory.appendingPathComponent("real.jsonl"), encoding: .utf8) == expected)
        // A FIFO, read by another process.
        let fifo = directory.appendingPathComponent("pipe.jsonl").path
        #expect(mkfifo(fifo, 0o644) == 0)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/bin/sh")
        reader.arguments = ["-c", "cat '\(fifo)' > '\(directory.appendingPathComponent("from-pipe.txt").path)'"]
        try reader.run()
        let piped = try TestSupport.run(["export"] + query + ["-o", "pipe.jsonl"], in: directory)
        reader.waitUntilExit()
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(try String(contentsOf: directory.appendingPathComponent("from-pipe.txt"), encoding: .utf8) == expected)
        var info = stat()
        #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO)
        // A descriptor: standard output.
        let descriptor = try TestSupport.run(["export"] + query + ["-o", "/dev/stdout", "--format", "jsonl"], in: directory)
        #expect(descriptor.status == 0, "\(descriptor.stderr)")
        #expect(descriptor.stdout == expected)
        let snapshot = try TestSupport.run(["snapshot", "--db", "app.db", "-o", "/dev/stdout"], in: directory)
        // (The zstd frame's magic starts with "(", and the snapshot's name goes to stderr.)
        #expect(snapshot.status == 0 && snapshot.stdout.hasPrefix("(") && !snapshot.stdout.contains("/dev/stdout"), "\(snapshot.stderr)")
        #expect(snapshot.stderr.contains("/dev/stdout"))
        let fd = try TestSupport.run(["snapshot", "--db", "app.db", "-o", "/dev/fd/1"], in: directory)
        #expect(fd.status == 0 && fd.stdout.hasPrefix("("), "\(fd.stderr)")
        // A database is checked under its temporary name: restore names a file.
        #expect(try TestSupport.run(["snapshot", "--db", "app.db", "-o", "snap.sqlite.zst"], in: directory).status == 0)
        let restore = try TestSupport.run(["restore", "snap.sqlite.zst", "--db", "/dev/null"], in: directory)
        #expect(restore.status != 0 && restore.stderr.contains("it is a FIFO, a device or a descriptor, not a file"), "\(restore.stderr)")
    }

    /// `restore --force` through a link replaces the link's file and removes that file's
    /// WAL: it removed the WAL beside the link, so SQLite applied the old WAL to the
    /// restored file and the old rows came back, with exit 0.
    @Test func aRestoreThroughALinkRemovesTheLinkedFilesWAL() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let real = directory.appendingPathComponent("real")
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try snapshotOfOneRow(in: directory)
        // The live database in WAL mode, a committed row still in its WAL (a copy of the
        // files while the writer holds them, as a kill leaves them).
        let live = real.appendingPathComponent("live.db").path
        let queue = try DatabaseQueue(path: live)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v TEXT)")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute(sql: "INSERT INTO t VALUES ('old-live')")
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: live + suffix, toPath: real.appendingPathComponent("app.db\(suffix)").path)
            }
        }
        try FileManager.default.createSymbolicLink(atPath: directory.appendingPathComponent("app.db").path, withDestinationPath: "real/app.db")
        let restore = try TestSupport.run(["restore", "s.sqlite.zst", "--db", "app.db", "--force"], in: directory)
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory.appendingPathComponent("app.db").path) == "real/app.db")
        #expect(!FileManager.default.fileExists(atPath: real.appendingPathComponent("app.db-wal").path))
        #expect(try DatabaseQueue(path: directory.appendingPathComponent("app.db").path).read { try String.fetchAll($0, sql: "SELECT v FROM t") } == ["snapshot"])
    }

    /// The database file deleted after a crash, its WAL left beside it: restore without
    /// `--force` wrote the snapshot there and said "integrity_check ok", and the first
    /// open applied the old WAL to it (the rows of the deleted database; with a hot
    /// journal, a corrupt file). It is refused, naming the file; `--force` removes it.
    @Test func aRestoreOntoADeletedDatabasesLeftoverWALIsRefused() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        try snapshotOfOneRow(in: directory)
        let live = directory.appendingPathComponent("live.db").path
        let queue = try DatabaseQueue(path: live)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v TEXT)")
            try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            try db.execute(sql: "INSERT INTO t VALUES ('deleted database')")
            try FileManager.default.copyItem(atPath: live + "-wal", toPath: directory.appendingPathComponent("app.db-wal").path)
        }
        let refused = try TestSupport.run(["restore", "s.sqlite.zst", "--db", "app.db"], in: directory)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("app.db-wal lies beside app.db, which does not exist"), "\(refused.stderr)")
        #expect(refused.stderr.contains("--force"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("app.db").path))
        let forced = try TestSupport.run(["restore", "s.sqlite.zst", "--db", "app.db", "--force"], in: directory)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try DatabaseQueue(path: directory.appendingPathComponent("app.db").path).read { try String.fetchAll($0, sql: "SELECT v FROM t") } == ["snapshot"])
    }

    /// An import between two of its `--commit-every` checkpoints holds no lock of
    /// SQLite's (it leaves the database unlocked a moment for the app's writers), and a
    /// restore then replaced the file under it: the run's later commits went to the old
    /// file, exit 0. Its run lock (`RunLock`) says it runs: exit 75, nothing changed.
    @Test func aRestoreOverADatabaseARunIsImportingIsRefused() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        try snapshotOfOneRow(in: directory)
        let app = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(app, schema: "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('app');")
        let running = try RunLock.acquire(database: app, timeoutMilliseconds: 0, cancellation: nil)
        let refused = try TestSupport.run(["restore", "s.sqlite.zst", "--db", "app.db", "--force"], in: directory)
        #expect(refused.status == 75 && refused.stderr.contains("app.db is in use"), "\(refused.stderr)")
        #expect(try DatabaseQueue(path: app).read { try String.fetchAll($0, sql: "SELECT v FROM t") } == ["app"])
        running.release()
        let forced = try TestSupport.run(["restore", "s.sqlite.zst", "--db", "app.db", "--force"], in: directory)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try DatabaseQueue(path: app).read { try String.fetchAll($0, sql: "SELECT v FROM t") } == ["snapshot"])
        #expect(!FileManager.default.fileExists(atPath: RunLock.path(forDatabase: app)))
    }

    /// `restore --force` replaced a database that a process held in a transaction (its
    /// journal deleted under it, its COMMIT then a disk I/O error), or that a WAL
    /// connection held open (its next write went to the replaced file). Both hold a lock,
    /// which restore now tries first: exit 75, nothing changed.
    @Test(arguments: ["DELETE", "WAL"])
    func aRestoreOverADatabaseAnotherConnectionHoldsIsRefused(_ journalMode: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        try snapshotOfOneRow(in: directory)
        let app = directory.appendingPathComponent("app.db").path
        let queue = try DatabaseQueue(path: app)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = \(journalMode); CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('app')")
        }
        func restore() throws -> TestSupport.Output { try TestSupport.run(["restore", "s.sqlite.zst", "--db", "app.db", "--force"], in: directory) }
        if journalMode == "WAL" {
            // Open and idle, as an app's connection is between requests.
            let refused = try restore()
            #expect(refused.status == 75, "\(refused.stderr)")
            #expect(refused.stderr.contains("app.db is in use"))
        } else {
            try queue.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                let refused = try restore()
                #expect(refused.status == 75, "\(refused.stderr)")
                #expect(refused.stderr.contains("app.db is in use"))
                do {
                    try db.execute(sql: "INSERT INTO t VALUES ('app 2'); COMMIT")
                } catch {
                    try? db.execute(sql: "ROLLBACK")
                    Issue.record("the app's transaction failed after the restore: \(error)")
                }
            }
        }
        #expect(try queue.read { try String.fetchAll($0, sql: "SELECT v FROM t ORDER BY v") }.first == "app")
        try queue.close()
        let forced = try restore()
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try DatabaseQueue(path: app).read { try String.fetchAll($0, sql: "SELECT v FROM t") } == ["snapshot"])
    }

    /// `s.sqlite.zst` in `directory`: a snapshot of table `t` holding the row `snapshot`.
    func snapshotOfOneRow(in directory: URL) throws {
        try TestSupport.createDatabase(directory.appendingPathComponent("snap.db").path, schema: "CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('snapshot');")
        #expect(try TestSupport.run(["snapshot", "--db", "snap.db", "-o", "s.sqlite.zst"], in: directory).status == 0)
    }

    /// A database left with a hot journal (a killed writer) cannot be read by a read-only
    /// command until the journal is rolled back: the message blamed the file's permissions.
    @Test func aHotJournalIsNamedWithItsFixNotAsPermissions() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let live = directory.appendingPathComponent("live.db").path
        let queue = try DatabaseQueue(path: live)
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, pad TEXT)")
            try db.execute(sql: "WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 20000) INSERT INTO t SELECT value, printf('%.200d', value) FROM n")
        }
        // Mid-transaction, with a page cache too small to hold it: pages reach the file,
        // their originals are in the journal. A copy of both is what a kill leaves.
        try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA cache_size = 10")
            try db.execute(sql: "BEGIN")
            try db.execute(sql: "UPDATE t SET pad = upper(pad) || 'x'")
            for suffix in ["", "-journal"] {
                try FileManager.default.copyItem(atPath: live + suffix, toPath: directory.appendingPathComponent("app.db\(suffix)").path)
            }
            try db.execute(sql: "ROLLBACK")
        }
        for command in [["export", "t", "--db", "app.db", "-o", "t.jsonl"], ["snapshot", "--db", "app.db", "-o", "s.sqlite.zst"]] {
            let run = try TestSupport.run(command, in: directory)
            #expect(run.status == 74, "\(run.stderr)")
            #expect(run.stderr.contains("an interrupted write left the database's journal to roll back") && !run.stderr.contains("permissions"), "\(run.stderr)")
        }
    }

    @Test func zstdLevelAndWorkerThreadsStillMakeOneValidFrame() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let query = "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 20000) SELECT x, 'row ' || x AS name FROM c"
        let result = try TestSupport.run(["export", "--db", "app.db", "--query", query, "-o", "rows.csv", "--zstd=19", "--threads", "2"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let text = try StockTool.output(["zstd", "-dcq", directory.appendingPathComponent("rows.csv").path])
        let lines = text.split(separator: "\n")
        #expect(lines.count == 20001)
        #expect(lines.first == "x,name")
        #expect(lines.last == "20000,row 20000")
    }

    // MARK: - Value encoding

    @Test func csvKeepsTheEmptyStringApartFromNullAndQuotesTheNullText() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory, schema: """
            CREATE TABLE t (a TEXT, b INTEGER);
            INSERT INTO t VALUES ('', NULL), (NULL, 0), ('NA', 1);
            """)
        let plain = try TestSupport.run(["export", "t", "--db", "app.db", "--format", "csv"], in: directory)
        #expect(plain.stdout == "a,b\n\"\",\n,0\nNA,1\n")
        let withNull = try TestSupport.run(["export", "t", "--db", "app.db", "--format", "csv", "--null", "NA"], in: directory)
        #expect(withNull.stdout == "a,b\n\"\",NA\nNA,0\n\"NA\",1\n")
        let zeroIsNull = try TestSupport.run(["export", "t", "--db", "app.db", "--format", "tsv", "--null", "0"], in: directory)
        #expect(zeroIsNull.stdout == "a\tb\n\"\"\t0\n0\t\"0\"\nNA\t1\n")
    }

    /// SQLite keeps a BLOB in any column of a table that is not STRICT: a JSON Lines
    /// export of one comes back as the same bytes, not as the marker's text.
    @Test(arguments: [WriteStrategyKind.typed, .cached, .multirow])
    func aBlobInANonBlobColumnRoundTripsThroughJSONLines(_ strategy: WriteStrategyKind) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let schema = "CREATE TABLE f (id INTEGER PRIMARY KEY, uuid TEXT, n INTEGER, r REAL, d NUMERIC)"
        _ = try Self.makeDatabase(in: directory, schema: schema + """
            ; INSERT INTO f VALUES (1, x'00ff10', x'', x'01', x'02'), (2, 'text', 5, 0.5, 7);
            """)
        let exported = try TestSupport.run(["export", "f", "--db", "app.db", "-o", "f.jsonl"], in: directory)
        #expect(exported.status == 0, "\(exported.stderr)")
        let copy = directory.appendingPathComponent("copy.db").path
        try TestSupport.createDatabase(copy, schema: schema)
        let result = try TestSupport.run(["f.jsonl", "--db", copy, "--upsert", "id", "--strategy", strategy.rawValue], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        let sql = "SELECT id, typeof(uuid), hex(uuid), typeof(n), hex(n), typeof(r), hex(r), typeof(d), hex(d) FROM f ORDER BY id"
        let original = try DatabaseQueue(path: directory.appendingPathComponent("app.db").path).read { try Row.fetchAll($0, sql: sql) }
        let restored = try DatabaseQueue(path: copy).read { try Row.fetchAll($0, sql: sql) }
        #expect(restored == original)
        #expect(restored.first?[1] == "blob")
    }

    /// Export spells ±infinity `±1e999`; import reads exactly that spelling back as
    /// ±infinity, into a REAL column and an untyped one, from every format.
    @Test(arguments: InputFormat.allCases)
    func infinityRoundTripsAsOneE999(_ format: InputFormat) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        for type in ["REAL", ""] {
            let schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, v \(type))"
            let source = directory.appendingPathComponent("source\(type).db").path
            try TestSupport.createDatabase(source, schema: schema + "; INSERT INTO t VALUES (1, 1e999), (2, -1e999), (3, 1.5);")
            let file = "t\(type).\(format.rawValue)"
            let exported = try TestSupport.run(["export", "t", "--db", source, "-o", file], in: directory)
            #expect(exported.status == 0, "\(exported.stderr)")
            let copy = directory.appendingPathComponent("copy\(type).db").path
            try TestSupport.createDatabase(copy, schema: schema)
            let imported = try TestSupport.run([file, "--db", copy, "--table", "t", "--upsert", "id"], in: directory)
            #expect(imported.status == 0, "\(type) \(format): \(imported.stderr)")
            let sql = "SELECT id, typeof(v), v FROM t ORDER BY id"
            let original = try DatabaseQueue(path: source).read { try Row.fetchAll($0, sql: sql) }
            #expect(try DatabaseQueue(path: copy).read { try Row.fetchAll($0, sql: sql) } == original, "\(type) \(format)")
        }
    }

    /// A first column whose name begins with U+FEFF began the CSV with the bytes of a
    /// byte order mark, which import strips: the column was unknown, and the suggested
    /// `--ignore-unknown` stored NULL in it. One that begins with `[` or `{` made import
    /// read the file as JSON (exit 65, naming no fix). Such names are quoted now, and read
    /// back by name.
    @Test(arguments: [InputFormat.csv, .tsv], ["\u{FEFF}name", "[1]", "{}", " {a", "[true]"])
    func aFirstColumnNameImportWouldMisreadReadsBack(_ format: InputFormat, _ name: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let schema = "CREATE TABLE t (\(SQLIdentifier.quote(name)) TEXT, v INTEGER)"
        let source = directory.appendingPathComponent("source.db").path
        try TestSupport.createDatabase(source, schema: schema + "; INSERT INTO t VALUES ('a', 1);")
        let file = "t.\(format.rawValue)"
        #expect(try TestSupport.run(["export", "t", "--db", source, "-o", file], in: directory).status == 0)
        let copy = directory.appendingPathComponent("copy.db").path
        try TestSupport.createDatabase(copy, schema: schema)
        let imported = try TestSupport.run([file, "--db", copy, "--table", "t"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try DatabaseQueue(path: copy).read { try Row.fetchAll($0, sql: "SELECT * FROM t") } == [[name: "a", "v": 1]])
    }

    /// Import guesses the delimiter from the header (`,` `;` tab `|`): a one-column table
    /// whose name and values hold `;` read back as two `;` columns. Export now quotes any
    /// field holding a candidate, so every file reads back with its own delimiter.
    @Test(arguments: [InputFormat.csv, .tsv])
    func fieldsHoldingAnotherDelimiterReadBackAsOneColumn(_ format: InputFormat) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory, schema: #"CREATE TABLE s ("a;b" TEXT, "c|d" TEXT); INSERT INTO s VALUES ('p;q', 'x|y'), ('r;s', 'z|w');"#)
        let exported = try TestSupport.run(["export", "s", "--db", "app.db", "-o", "s.\(format.rawValue)"], in: directory)
        #expect(exported.status == 0, "\(exported.stderr)")
        let imported = try TestSupport.run(["s.\(format.rawValue)", "--db", "copy.db", "--table", "s"], in: directory)
        #expect(imported.status == 0, "\(imported.stderr)")
        let rows = try DatabaseQueue(path: directory.appendingPathComponent("copy.db").path).read { db in
            (try db.columns(in: "s").map(\.name), try Row.fetchAll(db, sql: "SELECT * FROM s").map { [$0[0] as String, $0[1] as String] })
        }
        #expect(rows.0 == ["a;b", "c|d"])
        #expect(rows.1 == [["p;q", "x|y"], ["r;s", "z|w"]])
    }

    @Test func aNullMarkerThatWouldBreakAFieldIsRefused() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, NULL);")
        for (format, marker) in [("csv", "a,b"), ("csv", "\"q\""), ("tsv", "a\tb"), ("csv", "x\ny")] {
            let refused = try TestSupport.run(["export", "t", "--db", "app.db", "--format", format, "--null", marker, "-o", "out.\(format)"], in: directory)
            #expect(refused.status == 64, "\(format) \(marker)")
            #expect(refused.stderr.contains("choose a plain marker"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("out.\(format)").path))
        }
    }

    /// `SELECT *` over a join has two `id` columns: an import keeps one of them, so the
    /// export refuses, in every format, and says how to name them.
    @Test(arguments: InputFormat.allCases)
    func aResultWithTwoColumnsOfOneNameIsRefused(_ format: InputFormat) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory, schema: """
            CREATE TABLE a (id INTEGER PRIMARY KEY, name TEXT); CREATE TABLE b (id INTEGER PRIMARY KEY, a_id INTEGER, Name TEXT);
            INSERT INTO a VALUES (1, 'A'); INSERT INTO b VALUES (7, 1, 'B');
            """)
        let refused = try TestSupport.run(
            ["export", "--db", "app.db", "--format", format.rawValue, "--query", "SELECT * FROM a JOIN b ON b.a_id = a.id"], in: directory)
        #expect(refused.status == 64)
        #expect(refused.stdout.isEmpty)
        #expect(refused.stderr.contains(#"more than one column named "id", "Name""#), "\(refused.stderr)")
        let named = try TestSupport.run(
            ["export", "--db", "app.db", "--format", format.rawValue, "--query", "SELECT a.id AS a_id, a.name, b.id AS b_id, b.Name AS b_name FROM a JOIN b ON b.a_id = a.id"],
            in: directory)
        #expect(named.status == 0, "\(named.stderr)")
    }

    @Test func jsonEscapesControlCharactersAndKeepsNulAndEmoji() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory, schema: "CREATE TABLE t (s TEXT);")
        try DatabaseQueue(path: directory.appendingPathComponent("app.db").path).write { db in
            // GRDB binds a String up to its first NUL: bind the bytes, cast to TEXT.
            try db.execute(sql: "INSERT INTO t VALUES (CAST(? AS TEXT))", arguments: [Data("a\u{0}b\u{1}\u{1F}\u{7F}\r\u{8}\u{C}\\/😀".utf8)])
        }
        let result = try TestSupport.run(["export", "t", "--db", "app.db"], in: directory)
        #expect(result.stdout == #"{"s":"a\u0000b\u0001\u001f"# + "\u{7F}" + #"\r\b\f\\/😀"}"# + "\n")
        let decoded = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: String]
        #expect(decoded?["s"] == "a\u{0}b\u{1}\u{1F}\u{7F}\r\u{8}\u{C}\\/😀")
    }

    @Test func textThatIsNotUTF8IsRefusedInJSONAndKeptAsBytesInCSV() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory, schema: "CREATE TABLE t (s TEXT); INSERT INTO t VALUES ('ok'), (CAST(x'61ff62' AS TEXT));")
        let json = try TestSupport.run(["export", "t", "--db", "app.db", "-o", "t.jsonl"], in: directory)
        #expect(json.status == 65)
        #expect(json.stderr.contains(#"row 2, column "s": the TEXT value is not valid UTF-8"#))
        #expect(try StockTool.listing(directory) == ["app.db"])
        let csv = try TestSupport.run(["export", "t", "--db", "app.db", "-o", "t.csv"], in: directory)
        #expect(csv.status == 0)
        #expect(try Data(contentsOf: directory.appendingPathComponent("t.csv")) == Data([0x73, 0x0A, 0x6F, 0x6B, 0x0A, 0x61, 0xFF, 0x62, 0x0A]))
    }

    // MARK: - Round trips through import

    /// Random rows with the values that break exporters: Int64's extremes, -0.0, 0.1,
    /// 1e308, 5e-324, NUL and emoji, empty strings, look-alikes of the BLOB marker,
    /// NULLs and BLOBs (including empty ones).
    static func randomRows(seed: UInt64, count: Int, anyColumn: Bool) -> [[DatabaseValue]] {
        var random = StrategyEquivalenceTests.Generator(state: seed)
        let integers: [Int64] = [.min, .max, 0, -1, 1]
        let reals: [Double] = [-0.0, 0.0, 0.1, 1e308, -1e308, .leastNonzeroMagnitude, 2.2250738585072014e-308, 1.0, 123456789.125]
        let pieces = ["", "a", "\u{0}", "😀", "é", "中", ",", "\"", "\n", "\r", "\t", "\\", "\u{1}", "\u{7F}", " ", "NA", "007", "42", "base64:AAE=", #"{"$base64":"AAE="}"#]
        func integer() -> DatabaseValue {
            Int.random(in: 0 ..< 3, using: &random) == 0 ? integers.randomElement(using: &random)!.databaseValue : Int64.random(in: .min ... .max, using: &random).databaseValue
        }
        func real() -> DatabaseValue {
            if Bool.random(using: &random) { return reals.randomElement(using: &random)!.databaseValue }
            while true {
                let value = Double(bitPattern: random.next())
                if value.isFinite { return value.databaseValue }
            }
        }
        func text() -> DatabaseValue {
            (0 ..< Int.random(in: 0 ... 4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined().databaseValue
        }
        func blob() -> DatabaseValue {
            Data((0 ..< Int.random(in: 0 ... 9, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }).databaseValue
        }
        let makers = [integer, real, text, blob] + (anyColumn ? [{ [integer, real, text, blob].randomElement(using: &random)!() }] : [])
        return (0 ..< count).map { row in
            [Int64(row + 1).databaseValue] + makers.map { make in Int.random(in: 0 ..< 6, using: &random) == 0 ? .null : make() }
        }
    }

    static func fill(_ path: String, schema: String, rows: [[DatabaseValue]]) throws {
        try TestSupport.createDatabase(path, schema: schema)
        try DatabaseQueue(path: path).write { db in
            for row in rows {
                // GRDB binds a String up to its first NUL: text goes in as bytes cast to TEXT.
                let marks = row.map { if case .string = $0.storage { "CAST(? AS TEXT)" } else { "?" } }
                let arguments = row.map { value -> DatabaseValue in
                    if case .string(let text) = value.storage { return Data(text.utf8).databaseValue }
                    return value
                }
                try db.execute(sql: "INSERT INTO t VALUES (\(marks.joined(separator: ", ")))", arguments: StatementArguments(arguments))
            }
        }
    }

    /// `TestSupport.dump`, plus every value's storage class and bytes in hex: GRDB reads
    /// text only up to a NUL, so the dump alone would miss a lost NUL.
    static func exactDump(_ path: String) throws -> String {
        let bytes = try DatabaseQueue(path: path).read { db in
            let columns = try db.columns(in: "t").map { SQLIdentifier.quote($0.name) }
            let values = columns.map { "typeof(\($0)) || ':' || hex(\($0))" }.joined(separator: " || '|' || ")
            return try String.fetchAll(db, sql: "SELECT \(values) FROM t ORDER BY id").joined(separator: "\n")
        }
        return try TestSupport.dump(path) + "\n" + bytes
    }

    /// Exports random rows of `schema`'s table `t` in `format`, imports them into an empty
    /// table of the same schema, and expects identical databases, for a few seeds.
    func expectRoundTrip(_ format: InputFormat, schema: String, anyColumn: Bool, suffix: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for seed in UInt64(1) ... 4 {
            let directory = TestSupport.temporaryDirectory()
            defer { TestSupport.remove(directory) }
            let source = directory.appendingPathComponent("source.db").path
            let copy = directory.appendingPathComponent("copy.db").path
            try Self.fill(source, schema: schema, rows: Self.randomRows(seed: seed, count: 150, anyColumn: anyColumn))
            try TestSupport.createDatabase(copy, schema: schema)
            var options = ExportOptions(databasePath: source, source: .table("t"))
            options.outputPath = directory.appendingPathComponent("t.\(format.rawValue)\(suffix)").path
            #expect(try Exporter(options: options).run().rows == 150, sourceLocation: sourceLocation)
            try TestSupport.runImport([options.outputPath!], database: copy) { $0.table = "t" }
            #expect(try Self.exactDump(copy) == Self.exactDump(source), "seed \(seed)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [InputFormat.jsonl, .json])
    func jsonExportImportedIntoTheSameSchemaGivesIdenticalRows(_ format: InputFormat) throws {
        try expectRoundTrip(
            format, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB, a ANY) STRICT;", anyColumn: true, suffix: "")
    }

    @Test(arguments: [InputFormat.csv, .tsv])
    func delimitedExportImportedIntoTheSameTypedSchemaGivesIdenticalRows(_ format: InputFormat) throws {
        // No ANY column: CSV has no types, so only declared types can bring them back.
        try expectRoundTrip(
            format, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, i INTEGER, r REAL, s TEXT, b BLOB) STRICT;", anyColumn: false, suffix: ".zst")
    }

    @Test func csvRealsAreCorrectlyRoundedWhereSQLitesConversionIsNot() throws {
        // SQLite 3.40 reads each of these texts as a neighbouring Double.
        let values = [1.1493914778300023e-306, -3.3065029793676625e-307, 1.0665362031820775e-306, -2.2606631148481385e-299]
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.makeDatabase(in: directory, schema: "CREATE TABLE r (x REAL) STRICT; CREATE TABLE n (x REAL);")
        for table in ["r", "n"] {
            let csv = TestSupport.write("x\n" + values.map(\.description).joined(separator: "\n"), to: directory.appendingPathComponent("\(table).csv"))
            try TestSupport.runImport([csv], database: database)
            #expect(try DatabaseQueue(path: database).read { try Double.fetchAll($0, sql: "SELECT x FROM \(table)") } == values)
        }
    }

    @Test func blobMarkersBecomeBytesOnlyInColumnsThatHoldBlobs() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.makeDatabase(in: directory, schema: """
            CREATE TABLE j (b BLOB, a ANY, t TEXT) STRICT;
            CREATE TABLE c (b BLOB, t TEXT, n NUMERIC, u);
            """)
        let json = TestSupport.write(#"""
            {"b":{"$base64":"AAE="},"a":{"$base64":""},"t":{"$base64":"AAE="}}
            {"b":null,"a":{"$base64":"not base64!"},"t":"base64:AAE="}
            {"b":{ "$base64" : "/+8=" },"a":{"$base64":"AAE=","x":1},"t":null}
            """#, to: directory.appendingPathComponent("j.jsonl"))
        let csv = TestSupport.write("b,t,n,u\nbase64:AAE=,base64:AAE=,base64:AAE=,base64:\nbase64:A,x,1,base64:/+8=\n", to: directory.appendingPathComponent("c.csv"))
        try TestSupport.runImport([json], database: database)
        try TestSupport.runImport([csv], database: database)
        let rows = try DatabaseQueue(path: database).read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM j").map { Array($0.databaseValues.map(TestSupport.describe)) }
                + Row.fetchAll(db, sql: "SELECT * FROM c").map { Array($0.databaseValues.map(TestSupport.describe)) }
        }
        #expect(rows == [
            ["x'0001'", "x''", #""{\"$base64\":\"AAE=\"}""#],
            ["NULL", #""{\"$base64\":\"not base64!\"}""#, #""base64:AAE=""#],
            ["x'ffef'", #""{\"$base64\":\"AAE=\",\"x\":1}""#, "NULL"],
            ["x'0001'", #""base64:AAE=""#, #""base64:AAE=""#, "x''"],
            [#""base64:A""#, #""x""#, "1", "x'ffef'"],
        ])
    }

    /// An export's BLOB column imported into a new table is a BLOB column of the same
    /// bytes: every value a marker made it TEXT, holding the markers' text (a helper's
    /// round trip). A column where a marker is one value among others stays TEXT.
    @Test(arguments: ["jsonl", "csv"])
    func blobMarkersMakeANewTablesColumnBLOB(_ format: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.makeDatabase(in: directory, schema: """
            CREATE TABLE files (name TEXT PRIMARY KEY, data BLOB, note ANY) STRICT;
            INSERT INTO files VALUES ('a', x'000102', x'ff'), ('b', x'', 'plain'), ('c', NULL, NULL);
            """)
        let export = try TestSupport.run(["export", "files", "--db", "app.db", "-o", "files.\(format)"], in: directory)
        #expect(export.status == 0, "\(export.stderr)")
        let back = try TestSupport.run(["files.\(format)", "--db", "new.db", "--upsert", "name"], in: directory)
        #expect(back.status == 0, "\(back.stderr)")
        let query = "SELECT name, typeof(data), hex(data) FROM files ORDER BY name"
        let new = directory.appendingPathComponent("new.db").path
        let rows = try DatabaseQueue(path: new).read { try Row.fetchAll($0, sql: query).map { Array($0.databaseValues.map(\.description)) } }
        #expect(rows == (try DatabaseQueue(path: database).read { try Row.fetchAll($0, sql: query).map { Array($0.databaseValues.map(\.description)) } }))
        #expect(rows.map { $0[1] } == ["\"blob\"", "\"blob\"", "\"null\""], "\(rows)")
        let types = try DatabaseQueue(path: new).read { try String.fetchAll($0, sql: "SELECT type FROM pragma_table_info('files') ORDER BY cid") }
        #expect(types == ["TEXT", "BLOB", "TEXT"])
    }

    // MARK: - How an export ends

    @Test func aClosedPipeEndsTheExportCleanlyWithStatusZero() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let process = Process()
        process.executableURL = TestSupport.executable
        process.arguments = ["export", "--db", "app.db", "--query", "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 300000) SELECT x FROM c"]
        process.currentDirectoryURL = directory
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let head = try output.fileHandleForReading.read(upToCount: 16) ?? Data()
        try output.fileHandleForReading.close()  // like `| head -c 16`
        process.waitUntilExit()
        #expect(String(decoding: head, as: UTF8.self).hasPrefix("{\"x\":1}\n{\"x\":2}"))
        #expect(process.terminationStatus == 0)
        #expect((try errors.fileHandleForReading.readToEnd() ?? Data()).isEmpty)
    }

    @Test func aFailedExportLeavesAnExistingOutputUntouchedAndNoTemporaryFile() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        TestSupport.write("old\n", to: directory.appendingPathComponent("out.jsonl"))
        // Integer overflow at row 150,000, after more than 1 MiB has been flushed.
        let query = """
            WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 200000)
            SELECT CASE WHEN x < 150000 THEN x ELSE abs(-9223372036854775807 - 1) END AS x FROM c
            """
        for output in ["out.jsonl", "out.jsonl.zst"] {
            let result = try TestSupport.run(["export", "--db", "app.db", "--query", query, "-o", output, "--force"], in: directory)
            #expect(result.status == 70, "\(result.stderr)")
            #expect(result.stderr.contains("integer overflow"))
        }
        #expect(try String(contentsOf: directory.appendingPathComponent("out.jsonl"), encoding: .utf8) == "old\n")
        #expect(try StockTool.listing(directory) == ["app.db", "out.jsonl"])
    }

    @Test(arguments: [
        (["export", "nope"], Int32(64), #"no table or view "nope" in the database (it has "items")"#),
        (["export"], Int32(64), "name a table, or pass --query"),
        (["export", "items", "--query", "SELECT 1"], Int32(64), "name a table, or pass --query"),
        (["export", "--query", "SELECT 1; SELECT 2"], Int32(64), "exactly one SQL statement"),
        (["export", "--query", "DELETE FROM items"], Int32(64), "read-only statement that returns rows"),
        (["export", "items", "-o", "items.txt"], Int32(64), "cannot tell the format from the name items.txt"),
        (["export", "items", "-o", "items.csv.gz", "--zstd"], Int32(64), "--zstd writes zstd, but items.csv.gz ends in .gz"),
        (["export", "items", "--threads", "2"], Int32(64), "--threads applies to zstd only"),
        (["export", "items", "--format", "xml"], Int32(64), "'xml' is invalid for '--format <format>'. Please provide one of 'jsonl', 'json', 'csv' or 'tsv'"),
        (["export", "items", "--db", "missing.db"], Int32(73), "no database at missing.db"),
        (["export", "items", "-o", "no/such/folder/items.csv"], Int32(74), "cannot create no/such/folder/items.csv"),
    ])
    func exportErrorsExitWithTheREADMECodes(_ arguments: [String], _ status: Int32, _ message: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try Self.makeDatabase(in: directory)
        let result = try TestSupport.run(arguments, in: directory, environment: ["SQLIMPORT_DB": "app.db"])
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func blobMarkerBase64MatchesFoundation() {
        var random = StrategyEquivalenceTests.Generator(state: 7)
        for length in 0 ..< 40 {
            let bytes = (0 ..< length).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            var encoded: [UInt8] = []
            bytes.withUnsafeBytes { BlobMarker.appendBase64($0, to: &encoded) }
            #expect(String(decoding: encoded, as: UTF8.self) == Data(bytes).base64EncodedString())
            #expect(encoded.withUnsafeBytes { BlobMarker.decodeBase64($0) } == bytes)
        }
        for invalid in ["A", "AAE", "A===", "AA=A", "AAE=AAAA", "AA E", "AA-_"] {
            #expect(Array(invalid.utf8).withUnsafeBytes { BlobMarker.decodeBase64($0) } == nil, "\(invalid)")
        }
    }
}

/// The stock command-line tools the tests check output with (`zstd`, `gzip`, `sh`).
enum StockTool {
    /// Runs `arguments` through `/usr/bin/env` and returns its exit status.
    static func status(_ arguments: [String], in directory: URL? = nil) throws -> Int32 {
        try run(arguments, in: directory).status
    }

    /// Runs `arguments` and returns its standard output as UTF-8; a failure is an issue.
    static func output(_ arguments: [String], in directory: URL? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(arguments, in: directory)
        #expect(result.status == 0, "\(arguments.joined(separator: " ")) failed", sourceLocation: sourceLocation)
        return String(decoding: result.stdout, as: UTF8.self)
    }

    static func run(_ arguments: [String], in directory: URL?) throws -> (status: Int32, stdout: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = try output.fileHandleForReading.readToEnd() ?? Data()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    /// The names in `directory`, hidden ones included, sorted.
    static func listing(_ directory: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
    }
}

extension ExportTests {
    /// As `zstd -T0`: a .zst export compresses on every core unless --threads says otherwise.
    @Test func aZstdExportUsesEveryCoreByDefault() throws {
        var options = ExportOptions(databasePath: "db", source: .table("t"))
        options.outputPath = "out.jsonl.zst"
        guard case .zstd(_, let workers) = try options.resolvedCompression() else { Issue.record("not zstd"); return }
        #expect(workers == ProcessInfo.processInfo.activeProcessorCount)
        options.zstdWorkers = 0
        guard case .zstd(_, let single) = try options.resolvedCompression() else { Issue.record("not zstd"); return }
        #expect(single == 0)
        options.outputPath = "out.jsonl.gz"
        #expect(throws: ExportError.self) { try options.resolvedCompression() }
    }
}
