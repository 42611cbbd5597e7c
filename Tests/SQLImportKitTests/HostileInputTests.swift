import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// Input written to hurt: identifiers that try to escape their quotes, more columns than
/// SQLite allows, a single huge line, JSON nested 100,000 deep, decompression bombs. Each
/// is refused with an error (or stored exactly as data), never a crash, never unbounded
/// memory, and a refused run commits nothing. (SchemaTests covers hostile CSV headers and
/// file names; BrokenTextTests covers malformed text.)
@Suite struct HostileInputTests {
    /// A temporary folder with `db` holding `CREATE TABLE keep (v)` and one row, which
    /// no input may touch.
    struct Scratch {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("db").path }

        init(schema: String = "") throws {
            try TestSupport.createDatabase(database, schema: "CREATE TABLE keep (v); INSERT INTO keep VALUES ('intact');" + schema)
        }

        @discardableResult
        func file(_ name: String, _ text: String) -> String { TestSupport.write(text, to: directory.appendingPathComponent(name)) }

        func run(_ arguments: [String]) throws -> TestSupport.Output { try TestSupport.run(arguments + ["--db", "db"], in: directory) }

        func columns(_ table: String) throws -> [String] {
            try DatabaseQueue(path: database).read { try String.fetchAll($0, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]) }
        }

        func count(_ table: String) throws -> Int {
            try DatabaseQueue(path: database).read { db in try db.tableExists(table) ? Int.fetchOne(db, sql: "SELECT count(*) FROM \(SQLIdentifier.quote(table))")! : 0 }
        }

        /// `keep` still holds its row.
        func keepIsIntact() throws -> Bool {
            try DatabaseQueue(path: database).read { try String.fetchAll($0, sql: "SELECT v FROM keep") } == ["intact"]
        }

        func cleanUp() { TestSupport.remove(directory) }
    }

    // MARK: - Identifiers

    static let hostileNames = [#"a"b"#, #"x"; DROP TABLE keep; --"#, "semi;colon", "dash--dash", "back`tick", "[bracket]", "new\nline", "tab\tname", "'single'", "ROWID"]

    static func jsonKey(_ name: String) -> String {
        String(decoding: try! JSONEncoder().encode(name), as: UTF8.self)
    }

    /// JSON keys are data too: a new table gets exactly these columns.
    @Test func hostileJSONKeysBecomeExactlyThoseColumns() throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        let record = "{" + Self.hostileNames.enumerated().map { "\(Self.jsonKey($1)):\($0)" }.joined(separator: ",") + "}"
        let input = scratch.file("t.jsonl", record + "\n")
        try TestSupport.runImport([input], database: scratch.database)
        #expect(try scratch.columns("t") == Self.hostileNames)
        #expect(try scratch.keepIsIntact())
    }

    /// The conflict target, `--alter` and `--create-index` quote names too.
    @Test func hostileNamesWorkAsConflictTargetAddedColumnAndIndex() throws {
        let scratch = try Scratch(schema: #"CREATE TABLE t ("a""b" TEXT, "x""; DROP TABLE keep; --" INTEGER);"#)
        defer { scratch.cleanUp() }
        let key = Self.hostileNames[0], other = Self.hostileNames[1], added = "new\nline"
        let input = scratch.file("t.jsonl", (1 ... 3).map { "{\(Self.jsonKey(key)):\"k\($0)\",\(Self.jsonKey(other)):\($0),\(Self.jsonKey(added)):\"v\"}" }.joined(separator: "\n"))
        for _ in 0 ..< 2 {
            let summary = try TestSupport.runImport([input], database: scratch.database) {
                $0.upsert = [key]
                $0.alter = true
                $0.createIndex = true
            }
            #expect(summary.counts.read == 3)
        }
        #expect(try scratch.columns("t") == [key, other, added])
        #expect(try scratch.count("t") == 3)
        let index = try DatabaseQueue(path: scratch.database).read { try String.fetchOne($0, sql: "SELECT sql FROM sqlite_schema WHERE type = 'index'") }
        #expect(index == #"CREATE UNIQUE INDEX "sqlimport_t_a""b" ON "t" ("a""b") WHERE "a""b" IS NOT NULL"#)
        #expect(try scratch.keepIsIntact())
    }

    /// An empty record `{}` (or one whose every field `--ignore-unknown` drops) is a bad
    /// record like any other: set aside under `--on-error skip` (exit 2, the others
    /// stored), an error naming it and the flags otherwise. It stopped a skip run, which
    /// committed nothing (a schema-zoo fuzzer).
    @Test(arguments: ["typed", "cached", "multirow", "auto"])
    func anEmptyRecordIsSetAsideUnderOnErrorSkip(_ strategy: String) throws {
        let scratch = try Scratch(schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, u TEXT UNIQUE, v);")
        defer { scratch.cleanUp() }
        scratch.file("t.jsonl", #"{"u":"a","v":1}"# + "\n{}\n" + #"{"x":9}"# + "\n" + #"{"u":"b","v":2}"# + "\n")
        let skip = try scratch.run(["t.jsonl", "--table", "t", "--upsert", "u", "--ignore-unknown", "--on-error", "skip", "--rejects", "r.jsonl", "--strategy", strategy])
        #expect(skip.status == 2, "\(skip.stderr)")
        #expect(try scratch.count("t") == 2)
        let rejects = try String(contentsOf: scratch.directory.appendingPathComponent("r.jsonl"), encoding: .utf8)
        #expect(rejects.split(separator: "\n").count == 2 && rejects.contains("t.jsonl:2 (byte 16): the record has no field the table can store"), "\(rejects)")
        let abort = try scratch.run(["t.jsonl", "--table", "t", "--upsert", "u", "--ignore-unknown", "--strategy", strategy])
        #expect(abort.status == 65 && abort.stderr.contains("or --on-error skip to set such records aside"), "\(abort.stderr)")
        #expect(try scratch.keepIsIntact())
    }

    @Test(arguments: [
        ("a\u{0}b,c\n1,2\n", "contains a NUL byte"),
        ("a,,c\n1,2,3\n", "field 2 of the header on line 1 is empty"),
        ("a,b,a\n1,2,3\n", "fields 1 and 3 of the header on line 1 are both named \"a\""),
        ("id,ID\n1,2\n", "fields 1 and 2 of the header on line 1 are named \"id\" and \"ID\", one column to sqlimport"),
    ])
    func badCSVHeadersAreRefusedNamingTheField(_ csv: String, _ message: String) throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        scratch.file("t.csv", csv)
        let result = try scratch.run(["t.csv"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try scratch.count("t") == 0)
    }

    /// Records of one file may spell a key differently: two fields, one column.
    @Test func keysDifferingOnlyInCaseAcrossRecordsAreRefused() throws {
        let scratch = try Scratch(schema: "CREATE TABLE t (id INTEGER, name TEXT);")
        defer { scratch.cleanUp() }
        scratch.file("t.jsonl", "{\"id\":1,\"name\":\"a\"}\n{\"id\":2,\"NAME\":\"b\"}\n")
        let result = try scratch.run(["t.jsonl"])
        #expect(result.status == 65)
        #expect(result.stderr.contains(#"fields "name" and "NAME" both map to column "name""#), "\(result.stderr)")
        #expect(try scratch.count("t") == 0)
    }

    // MARK: - Wide and huge

    @Test(arguments: ["jsonl", "csv"])
    func moreColumnsThanSQLiteAllowsIsAClearError(_ format: String) throws {
        let scratch = try Scratch(schema: "CREATE TABLE narrow (k0 INTEGER);")
        defer { scratch.cleanUp() }
        let keys = (0 ..< 10_000).map { "k\($0)" }
        let text = format == "csv"
            ? keys.joined(separator: ",") + "\n" + keys.indices.map(String.init).joined(separator: ",") + "\n"
            : "{" + keys.enumerated().map { "\"\($1)\":\($0)" }.joined(separator: ",") + "}\n"
        scratch.file("wide.\(format)", text)
        for table in ["wide", "narrow"] {
            let result = try scratch.run(["wide.\(format)", "--table", table, "--alter"])
            #expect(result.status == 65, "\(result.stderr)")
            #expect(result.stderr.contains("SQLite allows at most 2000 columns"), "\(result.stderr)")
        }
        #expect(try scratch.columns("narrow") == ["k0"])
        #expect(try scratch.count("wide") == 0)
    }

    /// Peak resident memory of `command` in KiB, from `/usr/bin/time`; nil when it is missing.
    static func peakMemory(_ command: String, in directory: URL) throws -> (TestSupport.Output, Int?) {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else {
            return (try TestSupport.runShell(command, in: directory), nil)
        }
        let result = try TestSupport.runShell("/usr/bin/time -o peak.txt -f %M \(command)", in: directory)
        let text = try String(contentsOf: directory.appendingPathComponent("peak.txt"), encoding: .utf8)
        return (result, text.split(separator: "\n").last.flatMap { Int($0) })
    }

    /// The binary's peak memory on a one-line input, the baseline (higher under sanitizers).
    static func baselineMemory(in directory: URL) throws -> Int? {
        TestSupport.write("{\"id\":\"x\"}\n", to: directory.appendingPathComponent("tiny.jsonl"))
        return try peakMemory("'\(TestSupport.executable.path)' tiny.jsonl --db baseline.db --table t --dry-run -q", in: directory).1
    }

    @Test(arguments: ["jsonl", "csv", "json"])
    func hugeLineIsRefusedByMaxRecordBytesWithMemoryBounded(_ format: String) throws {
        let scratch = try Scratch(schema: "CREATE TABLE t (id TEXT, a TEXT);")
        defer { scratch.cleanUp() }
        let huge = String(repeating: "x", count: 20_000_000)
        switch format {
        case "csv": scratch.file("t.csv", "id,a\n1,ok\n2,\"\(huge)\"\n")
        case "json": scratch.file("t.json", "[{\"id\":\"1\",\"a\":\"ok\"},\n{\"id\":\"2\",\"a\":\"\(huge)\"}]")
        default: scratch.file("t.jsonl", "{\"id\":\"1\",\"a\":\"ok\"}\n{\"id\":\"2\",\"a\":\"\(huge)\"}\n")
        }
        let position = ["csv": "3 (byte 10)", "json": "2 (byte 22)", "jsonl": "2 (byte 20)"][format]!
        try Self.expectRefusedInBoundedMemory(
            "t.\(format) --db db --max-record-bytes 1048576", in: scratch,
            saying: "t.\(format):\(position): a single record is larger than 1048576 bytes")
    }

    /// Runs the binary on `arguments` and expects exit 65 with `message`, no row in `t`,
    /// and a peak memory within 16 MiB of the binary's on a one-line input.
    static func expectRefusedInBoundedMemory(_ arguments: String, in scratch: Scratch, saying message: String) throws {
        let baseline = try baselineMemory(in: scratch.directory)
        let (result, peak) = try peakMemory("'\(TestSupport.executable.path)' \(arguments)", in: scratch.directory)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(try scratch.count("t") == 0)
        if let peak, let baseline {
            #expect(peak < baseline + 16 * 1024, "peak \(peak) KiB, baseline \(baseline) KiB")
            print("HostileInputTests peak memory: \(peak) KiB (baseline \(baseline) KiB)")
        }
    }

    @Test(arguments: ["0", "-1", "4294967296"])
    func maxRecordBytesOutsideItsRangeIsAUsageError(_ value: String) throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        scratch.file("t.jsonl", "{\"a\":1}\n")
        let result = try scratch.run(["t.jsonl", "--max-record-bytes=\(value)"])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("--max-record-bytes must be between 1 and 2147483648"))
    }

    // MARK: - Deep

    @Test(arguments: [
        ("t.jsonl", "{\"a\":" + String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000) + "}\n", ""),
        ("t.jsonl", String(repeating: "[", count: 100_000) + "\n", ""),
        ("t.json", String(repeating: "[", count: 100_000), ""),
        ("t.json", "[" + String(repeating: "{\"a\":", count: 100_000), ""),
        ("t.jsonl", String(repeating: "{\"a\":", count: 100_000) + "1" + String(repeating: "}", count: 100_000) + "\n", "--flatten"),
    ])
    func jsonNested100000DeepIsRefusedNotAStackOverflow(_ name: String, _ text: String, _ flag: String) throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        scratch.file(name, text)
        let result = try scratch.run([name, "--table", "t"] + (flag.isEmpty ? [] : [flag]))
        #expect(result.status == 65, "\(result.stderr)")
        // (A `.jsonl` whose content starts with `[` is read as the JSON array it is.)
        #expect(result.stderr.contains("JSON nested deeper than 512 levels"), "\(result.stderr)")
        #expect(try scratch.count("t") == 0)
    }

    /// The limit is exact: a record object and 511 nested arrays is 512 levels.
    @Test func jsonNestedExactly512DeepIsAcceptedAnd513Refused() throws {
        let scratch = try Scratch()
        defer { scratch.cleanUp() }
        for (depth, status) in [(511, Int32(0)), (512, Int32(65))] {
            scratch.file("t.jsonl", "{\"a\":" + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}\n")
            let result = try scratch.run(["t.jsonl"])
            #expect(result.status == status, "\(depth): \(result.stderr)")
        }
        #expect(try scratch.count("t") == 1)
    }

    // MARK: - Decompression bombs

    /// A few KiB that expand to a 300 MB line: the reader stops at the record limit,
    /// having decompressed little more than the limit.
    @Test(arguments: ["zstd -q -19", "gzip -9"])
    func decompressionBombOfOneHugeLineIsRefusedWithMemoryBounded(_ compressor: String) throws {
        let scratch = try Scratch(schema: "CREATE TABLE t (id TEXT);")
        defer { scratch.cleanUp() }
        let make = try TestSupport.runShell(
            #"{ printf '{"id":"1"}\n{"id":"'; head -c 300000000 /dev/zero | tr '\0' x; printf '"}\n'; } | \#(compressor) > t.jsonl.z"#, in: scratch.directory)
        #expect(make.status == 0, "\(make.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: scratch.directory.appendingPathComponent("t.jsonl.z").path)[.size] as! Int
        #expect(size < 400_000, "the bomb is \(size) bytes")
        try Self.expectRefusedInBoundedMemory(
            "t.jsonl.z --db db --table t --format jsonl --max-record-bytes 1048576", in: scratch,
            saying: "t.jsonl.z:2 (byte 11): a single record is larger than 1048576 bytes")
    }

    /// A 300 MB record (one string) behind a few KiB of zstd, at the default record limit
    /// (256 MiB): it is refused when it reaches the limit, having cost less than 1.25
    /// times the limit (the input buffer grows in place; it used to take 2.1 times).
    @Test func aRecordThatReachesTheLimitCostsLessThanOneAndAQuarterTimesIt() throws {
        let scratch = try Scratch(schema: "CREATE TABLE t (id TEXT);")
        defer { scratch.cleanUp() }
        let make = try TestSupport.runShell(
            #"{ printf '{"id":"1"}\n{"id":"'; head -c 300000000 /dev/zero | tr '\0' x; printf '"}\n'; } | zstd -q -3 > big.jsonl.zst"#, in: scratch.directory)
        #expect(make.status == 0, "\(make.stderr)")
        let baseline = try Self.baselineMemory(in: scratch.directory)
        let (result, peak) = try Self.peakMemory("'\(TestSupport.executable.path)' big.jsonl.zst --db db --table t", in: scratch.directory)
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("big.jsonl.zst:2 (byte 11): a single record is larger than 268435456 bytes"), "\(result.stderr)")
        if let peak, let baseline {
            let limitKiB = 256 * 1024
            #expect(peak - baseline < limitKiB * 5 / 4, "peak \(peak) KiB, baseline \(baseline) KiB, limit \(limitKiB) KiB")
        }
    }

    /// 4 GiB of zeros in a 150 KB zstd file, at the default record limit (256 MiB): a line
    /// whose first byte cannot start a record is refused at that byte, before the rest
    /// of it is buffered (it used to take 550 MB to refuse it).
    @Test func aLineThatCannotBeARecordIsRefusedAtItsFirstByte() throws {
        let scratch = try Scratch(schema: "CREATE TABLE t (id TEXT);")
        defer { scratch.cleanUp() }
        let make = try TestSupport.runShell("head -c 4294967296 /dev/zero | zstd -q -1 -T2 > bomb.jsonl.zst", in: scratch.directory)
        #expect(make.status == 0, "\(make.stderr)")
        try Self.expectRefusedInBoundedMemory(
            "bomb.jsonl.zst --db db --table t", in: scratch, saying: "bomb.jsonl.zst:1 (byte 0): malformed record: expected a JSON object, found byte 0x0")
        // With --on-error skip the rest of such a line is read past, not kept, and the
        // records after it are applied, on their own lines.
        let mixed = try TestSupport.runShell(
            #"{ printf '{"id":"1"}\n'; head -c 50000000 /dev/zero; printf '\n{"id":"2"}\n   \n{"id":"3"}'; } > mixed.jsonl"#, in: scratch.directory)
        #expect(mixed.status == 0)
        let result = try scratch.run(["mixed.jsonl", "--table", "t", "--on-error", "skip", "--rejects", "rejects.jsonl"])
        #expect(result.status == 2, "\(result.stderr)")
        let rejects = try String(contentsOf: scratch.directory.appendingPathComponent("rejects.jsonl"), encoding: .utf8)
        #expect(rejects.contains(#""line":2"#) && rejects.contains("mixed.jsonl:2 (byte 11)"), "\(rejects.prefix(300))")
        #expect(try scratch.count("t") == 3)
    }

    /// 200 MB of blank lines (1 KiB each) after a good record and before a bad one: the
    /// whole stream is decompressed and read in bounded memory, and the error at its end
    /// rolls back the good record.
    @Test(arguments: ["zstd -q -1", "gzip -1"])
    func decompressionBombIsStreamedWithMemoryBoundedAndRolledBack(_ compressor: String) throws {
        let scratch = try Scratch(schema: "CREATE TABLE t (id TEXT);")
        defer { scratch.cleanUp() }
        let blank = String(repeating: " ", count: 1023)
        let make = try TestSupport.runShell(
            #"{ printf '{"id":"1"}\n'; yes '\#(blank)' | head -n 200000; printf 'oops\n'; } | \#(compressor) > t.jsonl.z"#, in: scratch.directory)
        #expect(make.status == 0, "\(make.stderr)")
        try Self.expectRefusedInBoundedMemory(
            "t.jsonl.z --db db --table t --format jsonl", in: scratch, saying: "t.jsonl.z:200002 (byte 204800011): malformed record")
    }

    /// A zstd frame may ask for a 2 GiB window; libzstd refuses more than 128 MiB, and the
    /// message said "corrupt" and suggested `zstd -t`, which fails the same way.
    @Test func zstdFrameNeedingAWindowOver128MiBIsRefusedNamingTheFix() throws {
        let scratch = try Scratch(schema: "CREATE TABLE t (id TEXT);")
        defer { scratch.cleanUp() }
        // From a pipe zstd cannot shrink the window to the input's size.
        let make = try TestSupport.runShell(#"printf '{"id":"1"}\n' | zstd -q --long=30 -c > t.jsonl.zst"#, in: scratch.directory)
        #expect(make.status == 0, "\(make.stderr)")
        let result = try scratch.run(["t.jsonl.zst", "--table", "t"])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.contains("t.jsonl.zst: the zstd frame needs a window larger than 128 MiB (it was written with --long=28 or more)"), "\(result.stderr)")
        #expect(result.stderr.contains("Decompress it first (zstd -d --long=31)"))
        #expect(try scratch.count("t") == 0)
    }
}
