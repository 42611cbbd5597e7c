import Foundation
import GRDB
import Testing

/// The cron contract: every error path of every subcommand ends with a code of README.md's
/// table, never 1 or a crash; each code has an end-to-end case; a closed or broken stdout
/// or stderr never changes the code; outputs are checked before the database is touched.
@Suite struct ExitCodeTests {
    /// README.md's table.
    static let documented: Set<Int32> = [0, 2, 64, 65, 66, 70, 73, 74, 75, 129, 130, 143]

    struct Workspace {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("app.db").path }
        init() throws {
            try TestSupport.createDatabase(database, schema: TestSupport.seedsSchema)
            _ = TestSupport.write(UpsertTests.jsonl(UpsertTests.items(1 ... 20)), to: directory.appendingPathComponent("items.jsonl"))
            _ = TestSupport.write(#"{"id":"x","libraryID":1,"remoteID":"r","name":5,"updatedAt":"t"}"# + "\n" + "{oops\n", to: directory.appendingPathComponent("bad.jsonl"))
            _ = TestSupport.write("not a snapshot", to: directory.appendingPathComponent("junk.sqlite.zst"))
            _ = TestSupport.write("hello", to: directory.appendingPathComponent("notadb.db"))
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("folder"), withIntermediateDirectories: true)
        }
        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> TestSupport.Output {
            try TestSupport.run(arguments, in: directory, environment: environment)
        }
        /// Runs `command` in bash with pipefail, so that a pipeline reports sqlimport's
        /// own status (written to a file: the process's may be cut short).
        func shell(_ command: String) throws -> (status: Int32, stderr: String) {
            let status = directory.appendingPathComponent("status.txt").path
            let run = try TestSupport.run(["-c", "set -o pipefail; \(command); echo $? > '\(status)'"], in: directory, executable: URL(fileURLWithPath: "/bin/bash"))
            let text = try String(contentsOfFile: status, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
            return (Int32(text) ?? -1, run.stderr)
        }
        func rows() throws -> Int { try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items")! } }
        func cleanUp() { TestSupport.remove(directory) }
    }

    /// Each case: the arguments and the code README.md gives for it.
    static let cases: [(arguments: [String], code: Int32)] = [
        (["import", "items.jsonl", "--table", "items", "--upsert", "id"], 0),
        (["import", "bad.jsonl", "--table", "items", "--upsert", "id", "--on-error", "skip"], 2),
        (["import", "items.jsonl", "--table", "items", "--upsert", "nosuch"], 64),
        (["import", "items.jsonl", "--table", "items", "--merge", "sometimes"], 64),
        (["import", "items.jsonl", "--table", "items", "--merge", "coalesce"], 64),
        (["import", "items.jsonl", "--db", "", "--table", "items"], 64),
        (["import", "items.jsonl", "--table", "temp.items"], 64),
        (["import", "bad.jsonl", "--table", "items", "--upsert", "id"], 65),
        (["import", "nosuch.jsonl", "--table", "items"], 66),
        (["import", "items.jsonl", "--db", "notadb.db", "--table", "items"], 73),
        (["import", "items.jsonl", "--table", "items", "--report", "nosuch/report.json"], 74),
        (["import", "items.jsonl", "--table", "items", "--on-error", "skip", "--rejects", "nosuch/rejects.jsonl"], 74),
        (["import", "items.jsonl", "--table", "items", "--db", "nosuch/app.db"], 73),
        (["export", "items", "--db", "nosuch/app.db"], 73),
        (["import", "items.jsonl", "--table", "items", "--db", "nosuch/app.db", "--dry-run"], 73),
        (["import", "items.jsonl", "--table", "items", "--db", "items.jsonl/app.db"], 73),
        (["import", "items.jsonl", "--table", "items", "--db", "nosuch/"], 73),
        (["import", "items.jsonl", "--table", "items", "--db", "folder"], 73),
        (["export", "items", "--db", "folder"], 73),
        (["snapshot", "--db", "folder", "-o", "s.sqlite.zst"], 73),
        (["inspect", "items", "--db", "folder"], 73),
        (["restore", "junk.sqlite.zst", "--db", "folder"], 73),
        (["restore", "junk.sqlite.zst", "--db", "folder", "--force"], 73),
        (["help", "nope"], 64),
        (["help", "import", "nope"], 64),
        (["inspect", "nosuch"], 64),
        (["inspect", "items", "--db", ""], 64),
        (["inspect", "items", "--db", "notadb.db"], 73),
        (["export", "nosuch"], 64),
        (["export", "--query", "SELEC 1"], 64),
        (["export", "--query", "SELECT * FROM nosuch"], 64),
        (["export", "--query", "DELETE FROM items"], 64),
        (["export", "--query", "SELECT * FROM items WHERE id = ?"], 64),
        (["export", "items", "-o", "out.unknown"], 64),
        (["export", "items", "--null", "NA"], 64),
        (["export", "items", "-o", "nosuch/out.jsonl"], 74),
        (["export", "--query", "SELECT sum(x) FROM (SELECT 9223372036854775807 AS x UNION ALL SELECT 1)"], 70),
        (["export", "items", "--db", "notadb.db"], 73),
        (["snapshot", "-o", "nosuch/s.sqlite.zst"], 74),
        (["snapshot", "--db", ""], 64),
        (["restore", "junk.sqlite.zst", "--db", "restored.db"], 65),
        (["restore", "nosuch.sqlite.zst", "--db", "restored.db"], 66),
    ]

    @Test func everyErrorPathEndsWithItsDocumentedCode() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        var seen: Set<Int32> = []
        for (arguments, code) in Self.cases {
            let withDatabase = arguments.contains("--db") ? arguments : arguments + ["--db", work.database]
            let run = try work.run(withDatabase)
            #expect(run.status == code, "\(arguments): \(run.stderr)")
            #expect(Self.documented.contains(run.status), "\(arguments): undocumented exit \(run.status)")
            if run.status != 0 && run.status != 2 {
                #expect(run.stderr.contains("rror"), "\(arguments): no message")
            }
            if arguments.contains("folder") { #expect(run.stderr.contains("folder is a folder") || run.stderr.contains("folder is not a SQLite database (it is a folder)"), "\(run.stderr)") }
            seen.insert(run.status)
        }
        // 75, 130 and 143 have their own end-to-end tests (CronRunTests, FaultTests, SnapshotTests).
        #expect(seen.isSuperset(of: [0, 2, 64, 65, 66, 70, 73, 74]))
    }

    @Test func anEmptyDatabasePathIsAUsageErrorInEverySubcommand() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        for arguments in [["import", "items.jsonl", "--table", "items"], ["inspect", "items"], ["export", "items"], ["snapshot"], ["restore", "junk.sqlite.zst"]] {
            let run = try work.run(arguments, environment: ["SQLIMPORT_DB": ""])
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("SQLIMPORT_DB is set but empty"), "\(arguments): \(run.stderr)")
        }
    }

    @Test func aMisspelledInputLeavesNoDatabaseBehind() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        let run = try work.run(["import", "itmes.jsonl", "--db", "new.db"])
        #expect(run.status == 66)
        #expect(!FileManager.default.fileExists(atPath: work.directory.appendingPathComponent("new.db").path))
        // The summary line names the database.
        let good = try work.run(["import", "items.jsonl", "--db", "new.db", "--upsert", "id"])
        #expect(good.status == 0)
        #expect(good.stderr.contains("new.db items: 20 read"), "\(good.stderr)")
    }

    @Test func aDatabaseInAFolderThatDoesNotExistNamesTheFolder() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        let run = try work.run(["import", "items.jsonl", "--db", "nosuch/deeper/app.db", "--table", "items", "--upsert", "id"])
        // 73, cannot open the database, as export exits for the same path (it was 74).
        #expect(run.status == 73)
        #expect(run.stderr.contains("the folder") && run.stderr.contains("nosuch/deeper does not exist") && run.stderr.contains("--db"), "\(run.stderr)")
        // Not the advice for a folder that exists and cannot be written.
        #expect(!run.stderr.contains("permissions"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.directory.appendingPathComponent("nosuch").path))
    }

    @Test func helpForANameThatIsNoSubcommandIsAUsageError() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        for arguments in [["help", "nope"], ["help", "import", "nope"]] {
            let run = try work.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.stderr.contains("no subcommand 'nope'") && run.stderr.contains("import, inspect, export, snapshot, restore"), "\(run.stderr)")
        }
        for arguments in [["help"], ["help", "import"], ["help", "export"]] {
            let run = try work.run(arguments)
            #expect(run.status == 0 && run.stdout.contains("USAGE: sqlimport"), "\(arguments): \(run.stderr)")
        }
    }

    @Test func aReportPathThatCannotBeWrittenStopsTheRunBeforeItWrites() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        let run = try work.run(["import", "items.jsonl", "--db", work.database, "--table", "items", "--upsert", "id", "--report", "nosuch/r.json"])
        #expect(run.status == 74)
        #expect(run.stderr.contains("nosuch/r.json") && run.stderr.contains("--report"), "\(run.stderr)")
        #expect(try work.rows() == 0)
    }

    @Test func aReportThatFailsAfterTheCommitSaysTheImportWasCommitted() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        // A report path that is a folder holding a file: its temporary file can be made,
        // but renaming it onto the folder fails, after the commit.
        let report = work.directory.appendingPathComponent("r.json").path
        try FileManager.default.createDirectory(atPath: report, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: report + "/inside", withIntermediateDirectories: true)
        let run = try work.run(["import", "items.jsonl", "--db", work.database, "--table", "items", "--upsert", "id", "--report", report])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("the import was committed; the report could not be written"), "\(run.stderr)")
        #expect(try work.rows() == 20)
    }

    /// A rejects file that cannot take more (here past a file size limit, as on a full
    /// disk) is an I/O error naming it, exit 74, not an internal error with Foundation's
    /// text (an adversarial review found exit 70).
    @Test func aRejectsFileThatCannotBeWrittenIsAnIOErrorNamingIt() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        try TestSupport.createDatabase(work.database, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER CHECK (v > 0), note TEXT)")
        let note = String(repeating: "n", count: 200)
        let lines = (1 ... 2000).map { #"{"id":\#($0),"v":-1,"note":"\#(note)"}"# }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: work.directory.appendingPathComponent("bad.jsonl"))
        // 64 KiB at most per file: the empty database fits, the 2,000 rejects do not.
        let run = try TestSupport.runShell(
            "ulimit -f 64; '\(TestSupport.executable.path)' bad.jsonl --db '\(work.database)' --table t --upsert id --on-error skip --rejects rejects.jsonl",
            in: work.directory)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("rejects.jsonl") && run.stderr.contains("--rejects") && run.stderr.contains("File too large"), "\(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain"), "\(run.stderr)")
        // The lines written before are whole: the cut-off last one is taken back.
        let kept = try String(contentsOf: work.directory.appendingPathComponent("rejects.jsonl"), encoding: .utf8)
        #expect(kept.hasSuffix("\n") && kept.count > 1000, "\(kept.suffix(80))")
        for line in kept.split(separator: "\n") {
            #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(line.suffix(80))")
        }
    }

    @Test func closedOrBrokenStandardStreamsKeepTheRunsExitCode() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        let binary = TestSupport.executable.path
        let base = "'\(binary)' import items.jsonl --db '\(work.database)' --table items --upsert id"
        for (command, code) in [
            ("\(base) 2>&-", 0),
            ("\(base) --report - >&- 2>&-", 74),
            ("\(base) 2>&1 | true", 0),
            ("\(base) --dry-run >&-", 0),
            // A closed standard input is no empty input (under --delete-missing, every
            // row would be missing).
            ("'\(binary)' import - --db '\(work.database)' --table items --upsert id <&-", 64),
            ("'\(binary)' import bad.jsonl --db '\(work.database)' --table items --upsert id 2>&-", 65),
        ] {
            #expect(try work.shell(command).status == code, "\(command)")
        }
    }

    /// A snapshot sent to standard output whose reader stopped printed an error and
    /// exited 0, as an export's `| head` does; closed at start (`>&-`), export and
    /// snapshot wrote into the /dev/null put in its place and exited 0; `-o -` made a
    /// snapshot file named `-`.
    @Test func aSnapshotOrExportThatStandardOutputDidNotTakeWholeFails() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        // About 2 MB that zstd cannot shrink: more than a pipe holds.
        let big = work.directory.appendingPathComponent("big.db").path
        try TestSupport.createDatabase(
            big, schema: "CREATE TABLE t (v BLOB); WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 2000) INSERT INTO t SELECT randomblob(1000) FROM s;")
        let binary = "'\(TestSupport.executable.path)'"
        for (command, code) in [
            ("\(binary) snapshot --db big.db -o /dev/stdout | head -c 100 > /dev/null", 74),
            ("\(binary) snapshot --db big.db -o - | head -c 100 > /dev/null", 74),
            ("\(binary) snapshot --db big.db -o /dev/stdout >&-", 74),
            ("\(binary) snapshot --db big.db -o - >&-", 74),
            ("\(binary) export items --db '\(work.database)' >&-", 74),
            ("\(binary) export items --db '\(work.database)' -o /dev/stdout >&-", 74),
            // The reader has all it wanted (docs/export.md).
            ("\(binary) export t --db big.db --format csv | head -c 100 > /dev/null", 0),
            ("\(binary) snapshot --db big.db -o - > piped.sqlite.zst", 0),
        ] {
            let run = try work.shell(command)
            #expect(run.status == code, "\(command): \(run.stderr)")
            if code == 74 { #expect(run.stderr.contains("standard output was closed"), "\(command): \(run.stderr)") }
        }
        #expect(!FileManager.default.fileExists(atPath: work.directory.appendingPathComponent("-").path))
        let restored = try work.run(["restore", "piped.sqlite.zst", "--db", "restored.db"])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try DatabaseQueue(path: work.directory.appendingPathComponent("restored.db").path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 2000)
    }

    @Test func nothingIsLostOrMixedQuietly() throws {
        let work = try Workspace()
        defer { work.cleanUp() }
        // A dotted file name keeps its dots: only known extensions are stripped.
        _ = TestSupport.write("carrier,name\n9E,Endeavor\n", to: work.directory.appendingPathComponent("airlines.2013-01.csv.gz.txt"))
        _ = TestSupport.write("carrier,name\n9E,Endeavor\n", to: work.directory.appendingPathComponent("airlines.2013-01.csv"))
        #expect(try work.run(["import", "airlines.2013-01.csv", "--db", work.database]).status == 0)
        #expect(try DatabaseQueue(path: work.database).read { try Int.fetchOne($0, sql: #"SELECT count(*) FROM "airlines.2013-01""#) } == 1)
        // A reject keeps the raw bytes: base64 where they are not UTF-8.
        let bad: [UInt8] = Array(#"{"id":"ok","libraryID":1,"name":"a","updatedAt":"t"}"#.utf8) + [0x0A] + [0x7B, 0xFF, 0xFE, 0x7D, 0x0A]
        _ = TestSupport.write(bytes: bad, to: work.directory.appendingPathComponent("bytes.jsonl"))
        let skipped = try work.run(["import", "bytes.jsonl", "--db", work.database, "--table", "items", "--upsert", "id", "--on-error", "skip", "--rejects", "r.jsonl"])
        #expect(skipped.status == 2, "\(skipped.stderr)")
        let rejects = try String(contentsOf: work.directory.appendingPathComponent("r.jsonl"), encoding: .utf8)
        #expect(rejects.contains(#""recordBase64":"e//+fQ==""#), "\(rejects)")
        // --dry-run with --report -: stdout holds the JSON report alone.
        let dry = try work.run(["import", "items.jsonl", "--db", work.database, "--table", "items", "--upsert", "id", "--dry-run", "--report", "-"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect((try? JSONSerialization.jsonObject(with: Data(dry.stdout.utf8))) != nil, "\(dry.stdout.prefix(200))")
        #expect(dry.stderr.contains("strategy:"), "\(dry.stderr)")
    }
}
