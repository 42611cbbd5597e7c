import Foundation
import GRDB
import Testing

/// Faults on the path between SQLite and the disk, injected one call at a time: every
/// write, sync, read, truncate and unlink that a large delta (with the page cache
/// spilling into the database mid-transaction) makes to the database, its journal or its
/// WAL can fail with ENOSPC, EIO, or come up short. Whatever fails, the run must end with
/// the database as it was (or, exit 0, fully updated), no hot journal and no journal file
/// left, readable by a read-only opener of the stock `sqlite3`, and a message that says
/// what happened.
///
/// The faults come from an `LD_PRELOAD` shim (`Tests/FaultShim/faultshim.c`), compiled
/// here with the machine's C compiler, around the built `sqlimport` binary.
@Suite(.serialized) struct FaultInjectionTests {
    static let rows = 4000

    /// The shim, compiled once; nil when no C compiler is found.
    static let shim: URL? = {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sqlimport-faultshim-\(getpid()).so")
        let source = TestSupport.packageRoot.appendingPathComponent("Tests/FaultShim/faultshim.c").path
        for compiler in ["cc", "clang", "gcc"] {
            let result = try? TestSupport.runShell(
                "command -v \(compiler) >/dev/null && \(compiler) -shared -fPIC -O1 -o '\(output.path)' '\(source)' -ldl", in: TestSupport.packageRoot)
            if result?.status == 0 { return output }
        }
        return nil
    }()

    struct Workspace {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("app.db").path }
        var pristine: String { directory.appendingPathComponent("pristine.db").path }

        /// Runs the delta under the shim with `faults` in the environment, on the files
        /// whose path contains `pattern` (the database's files by default).
        func runDelta(_ faults: [String: String], pattern: String? = nil) throws -> TestSupport.Output {
            var environment = faults
            environment["LD_PRELOAD"] = FaultInjectionTests.shim!.path
            environment["FAULT_PATTERN"] = pattern ?? database
            return try TestSupport.run(
                ["import", "delta.jsonl", "--db", database, "--table", "items", "--upsert", "id", "--cache-mib", "1", "--quiet"],
                in: directory, environment: environment)
        }

        /// Writes the base and delta inputs, and loads the base into the pristine database
        /// (in WAL mode when asked); returns what a reader sees of it.
        func prepare(wal: Bool = false) throws -> (integrity: String, digest: String) {
            _ = TestSupport.write(FaultInjectionTests.records(changed: false), to: directory.appendingPathComponent("base.jsonl"))
            _ = TestSupport.write(FaultInjectionTests.records(changed: true), to: directory.appendingPathComponent("delta.jsonl"))
            try TestSupport.createDatabase(pristine, schema: TestSupport.seedsSchema)
            if wal { try DatabaseQueue(path: pristine).writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") } }
            let load = try TestSupport.run(["import", "base.jsonl", "--db", pristine, "--table", "items", "--upsert", "id", "--quiet"], in: directory)
            try #require(load.status == 0, "\(load.stderr)")
            return try FaultInjectionTests.readOnlyView(pristine, in: directory)
        }

        func reset() throws {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            try FileManager.default.copyItem(atPath: pristine, toPath: database)
            for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: pristine + suffix) {
                try FileManager.default.copyItem(atPath: pristine + suffix, toPath: database + suffix)
            }
        }
    }

    static func records(changed: Bool) -> String {
        var generator = StrategyEquivalenceTests.Generator(state: 99)
        var lines: [String] = []
        for index in 0 ..< rows {
            let id = UUID(uuid: withUnsafeBytes(of: (generator.next(), generator.next())) { Array($0) }.withUnsafeBytes { $0.load(as: uuid_t.self) })
            let name = (changed ? "changed " : "") + String(repeating: "n", count: 60) + "\(index)"
            lines.append(#"{"id":"\#(id.uuidString)","libraryID":\#(index % 3),"remoteID":"r\#(index)","name":"\#(name)","notes":"\#(String(repeating: changed ? "y" : "x", count: 200))","updatedAt":"2026-11-0\#(changed ? 2 : 1)"}"#)
        }
        if changed { lines.reverse() }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What a reader sees: a read-only opener (the stock `sqlite3` shell where the machine
    /// has it), the integrity check and a digest of the rows.
    static func readOnlyView(_ path: String, in directory: URL) throws -> (integrity: String, digest: String) {
        let sql = "PRAGMA integrity_check; SELECT count(*) || ':' || sum(length(name)) || ':' || sum(length(notes)) FROM items;"
        if let shell = try? TestSupport.runShell("command -v sqlite3 >/dev/null && sqlite3 -readonly '\(path)' \"\(sql)\"", in: directory),
            shell.status == 0 || shell.stderr.contains("Error")
        {
            if shell.status != 0 { return (shell.stderr, "") }
            let lines = shell.stdout.split(separator: "\n").map(String.init)
            return (lines.first ?? "", lines.last ?? "")
        }
        var configuration = Configuration()
        configuration.readonly = true
        return try DatabaseQueue(path: path, configuration: configuration).read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check") ?? "",
             try String.fetchOne(db, sql: "SELECT count(*) || ':' || sum(length(name)) || ':' || sum(length(notes)) FROM items") ?? "")
        }
    }

    static func counts(_ text: String) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: text.split(separator: "\n").compactMap { line -> (String, Int)? in
            let parts = line.split(separator: " ")
            return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? 0) : nil
        })
    }

    @Test(arguments: ["delete", "wal"])
    func everyFailedCallOfADeltaLeavesTheDatabaseAsItWasAndSaysSo(_ journalMode: String) throws {
        try #require(Self.shim != nil, "no C compiler (cc, clang or gcc) to build Tests/FaultShim/faultshim.c")
        let work = Workspace()
        defer { TestSupport.remove(work.directory) }
        let before = try work.prepare(wal: journalMode == "wal")
        try #require(before.integrity == "ok")

        // A run without a fault: the calls to fail, and the state a finished run leaves.
        try work.reset()
        let countsFile = work.directory.appendingPathComponent("counts.txt")
        let clean = try work.runDelta(["FAULT_COUNTS": countsFile.path])
        try #require(clean.status == 0, "\(clean.stderr)")
        let after = try Self.readOnlyView(work.database, in: work.directory)
        try #require(after.digest != before.digest)
        let calls = Self.counts(try String(contentsOf: countsFile, encoding: .utf8))
        #expect(calls["write", default: 0] > 300 && calls["sync", default: 0] > 0 && calls["read", default: 0] > 500, "\(calls)")

        var matrix: [String] = []
        var failedRuns = 0
        for op in ["write", "sync", "read", "truncate", "unlink"] {
            let count = calls[op, default: 0]
            guard count > 0 else { continue }
            let positions = Set([1, 2, count / 4, count / 2, 3 * count / 4, count - 1, count].filter { $0 >= 1 && $0 <= count }).sorted()
            let errors = op == "write" ? ["28", "5", "short"] : ["5"]
            for position in positions {
                for error in errors {
                    try work.reset()
                    let run = try work.runDelta(["FAULT_OP": op, "FAULT_AT": "\(position)", "FAULT_ERRNO": error])
                    let journalLeft = FileManager.default.fileExists(atPath: work.database + "-journal")
                    let view = try Self.readOnlyView(work.database, in: work.directory)
                    let context = "\(journalMode): \(op) #\(position) of \(count), errno \(error): exit \(run.status), \(run.stderr)"
                    let outcome: String
                    if run.status == 0 {
                        outcome = "committed"
                        #expect(view.digest == after.digest, "\(context)")
                    } else {
                        failedRuns += 1
                        outcome = "rolled back"
                        #expect([73, 74].contains(run.status), "\(context)")
                        #expect(view.digest == before.digest, "\(context)")
                        #expect(
                            (run.stderr.contains("rolled back") || run.stderr.contains("nothing was written"))
                                && !run.stderr.contains("could not be rolled back"), "\(context)")
                    }
                    #expect(!journalLeft, "\(context): a journal file is left")
                    #expect(view.integrity == "ok", "\(context): \(view.integrity)")
                    let state = view.digest == before.digest ? "as before" : view.digest == after.digest ? "updated" : "other (\(view.digest))"
                    matrix.append(
                        "| \(journalMode) | \(op) | \(position) of \(count) | \(error == "28" ? "ENOSPC" : error == "5" ? "EIO" : "short, then ENOSPC") | "
                            + "exit \(run.status) (\(outcome)) | \(journalLeft ? "journal left" : "none") | \(view.integrity == "ok" ? "ok" : "fails") | \(state) |")
                }
            }
        }
        #expect(failedRuns > 10, "the faults must make runs fail")
        if let path = ProcessInfo.processInfo.environment["SQLIMPORT_FAULT_MATRIX"] {
            let text = matrix.joined(separator: "\n") + "\n"
            if let handle = FileHandle(forWritingAtPath: path) {
                handle.seekToEndOfFile()
                handle.write(Data(text.utf8))
                try handle.close()
            } else {
                try text.write(toFile: path, atomically: true, encoding: .utf8)
            }
        }
    }

    /// The rollback journal is written in large writes from a buffer (`JournalBufferVFS.c`),
    /// after SQLite was told that the bytes in it were written: each write of the journal,
    /// failed in turn (ENOSPC, EIO, short), must still end with the database as it was, no
    /// journal left, and the message that says so.
    /// A report that failed to be written after the commit (a full disk) left the
    /// previous run's report standing, with its exit code 0 and its inputs: a wrapper
    /// reading it took this run for that one (a helper's fault injection). It is removed.
    @Test func aReportThatCannotBeWrittenTakesThePreviousOneAway() throws {
        let shim = try #require(Self.shim)
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write(#"{"id":1,"v":"a"}"# + "\n", to: directory.appendingPathComponent("in.jsonl"))
        let command = ["in.jsonl", "--db", "app.db", "--table", "t", "--upsert", "id", "--report", "rep.json", "--quiet"]
        #expect(try TestSupport.run(command, in: directory).status == 0)
        let report = directory.appendingPathComponent("rep.json").path
        #expect(FileManager.default.fileExists(atPath: report))
        let failed = try TestSupport.run(
            command, in: directory,
            environment: ["LD_PRELOAD": shim.path, "FAULT_PATTERN": "rep.json", "FAULT_OP": "write", "FAULT_AT": "1", "FAULT_ERRNO": "28"])
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(failed.stderr.contains("the import was committed; the report could not be written") && failed.stderr.contains("the previous report was removed"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: report))
    }

    /// A snapshot whose uncompressed copy could not be written (a full disk, a file size
    /// limit) said only "disk I/O error", naming neither the file nor the room it needs.
    @Test(arguments: ["28", "27", "5"])  // ENOSPC, EFBIG, EIO
    func aSnapshotWhoseCopyCannotBeWrittenNamesItsOutputAndLeavesNothing(_ errno: String) throws {
        let shim = try #require(Self.shim)
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write((1 ... 2000).map { #"{"id":\#($0),"v":"\#(String(repeating: "x", count: 200))"}"# }.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        #expect(try TestSupport.run(["in.jsonl", "--db", "app.db", "--table", "t", "--upsert", "id", "--quiet"], in: directory).status == 0)
        let failed = try TestSupport.run(
            ["snapshot", "--db", "app.db", "-o", "nightly.sqlite.zst"], in: directory,
            environment: ["LD_PRELOAD": shim.path, "FAULT_PATTERN": ".vacuum-", "FAULT_OP": "write", "FAULT_AT": "3", "FAULT_ERRNO": errno])
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(
            failed.stderr.contains("writing nightly.sqlite.zst failed") && failed.stderr.contains("uncompressed copy") && failed.stderr.contains("free space"),
            "\(failed.stderr)")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["app.db", "in.jsonl"], "\(left)")
    }

    /// A hot journal that SQLite could not roll back as the database opened (a
    /// read-only folder, a failing disk) was reported as a disk I/O error with "check
    /// the free space", and no word of the journal an operator must keep.
    @Test func aHotJournalThatCannotBeRolledBackAtOpenIsNamed() throws {
        let shim = try #require(Self.shim)
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        // An interrupted transaction: pages spilled to the database, the journal hot.
        let script = """
            import sqlite3, os
            c = sqlite3.connect('app.db', isolation_level=None)
            c.execute('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)')
            c.executemany('INSERT INTO t VALUES (?, ?)', [(i, 'x' * 200) for i in range(2000)])
            c.execute('PRAGMA cache_size = 1')
            c.execute('BEGIN')
            c.execute("UPDATE t SET v = 'y' || v")
            os._exit(0)
            """
        let made = try TestSupport.run(["-c", script], in: directory, executable: URL(fileURLWithPath: "/usr/bin/python3"))
        try #require(made.status == 0, "\(made.stderr)")
        let journal = directory.appendingPathComponent("app.db-journal").path
        try #require(FileManager.default.fileExists(atPath: journal))
        TestSupport.write(#"{"id":1,"v":"a"}"# + "\n", to: directory.appendingPathComponent("in.jsonl"))
        let failed = try TestSupport.run(
            ["in.jsonl", "--db", "app.db", "--table", "t", "--upsert", "id"], in: directory,
            environment: ["LD_PRELOAD": shim.path, "FAULT_PATTERN": "app.db", "FAULT_OP": "write", "FAULT_AT": "1", "FAULT_ERRNO": "5"])
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(failed.stderr.contains("holds an interrupted transaction") && failed.stderr.contains("Keep \(journal.replacingOccurrences(of: directory.path + "/", with: ""))"), "\(failed.stderr)")
        #expect(FileManager.default.fileExists(atPath: journal))
        // Without the fault, the next run rolls it back and applies the record.
        #expect(try TestSupport.run(["in.jsonl", "--db", "app.db", "--table", "t", "--upsert", "id"], in: directory).status == 0)
    }

    @Test func everyFailedWriteOfTheBufferedJournalLeavesTheDatabaseAsItWas() throws {
        try #require(Self.shim != nil, "no C compiler (cc, clang or gcc) to build Tests/FaultShim/faultshim.c")
        let work = Workspace()
        defer { TestSupport.remove(work.directory) }
        let before = try work.prepare()
        let journal = work.database + "-journal"

        try work.reset()
        let countsFile = work.directory.appendingPathComponent("counts.txt")
        let clean = try work.runDelta(["FAULT_COUNTS": countsFile.path], pattern: journal)
        try #require(clean.status == 0, "\(clean.stderr)")
        let after = try Self.readOnlyView(work.database, in: work.directory)
        let writes = Self.counts(try String(contentsOf: countsFile, encoding: .utf8))["write", default: 0]
        // The journal of this delta is megabytes: joined, a few dozen writes of up to 124 KiB.
        #expect(writes >= 8 && writes < 200, "\(writes) writes to the journal")

        // The first and last writes, and every fifth in between.
        let positions = (1 ... max(writes, 1)).filter { $0 <= 6 || $0 > writes - 6 || $0 % 5 == 0 }
        var failedRuns = 0
        for position in positions {
            for error in ["28", "5", "short"] {
                try work.reset()
                let run = try work.runDelta(["FAULT_OP": "write", "FAULT_AT": "\(position)", "FAULT_ERRNO": error], pattern: journal)
                let view = try Self.readOnlyView(work.database, in: work.directory)
                let context = "journal write #\(position) of \(writes), errno \(error): exit \(run.status), \(run.stderr)"
                if run.status == 0 {
                    #expect(view.digest == after.digest, "\(context)")
                } else {
                    failedRuns += 1
                    #expect([73, 74].contains(run.status), "\(context)")
                    #expect(view.digest == before.digest, "\(context)")
                    #expect(run.stderr.contains("rolled back") && !run.stderr.contains("could not be rolled back"), "\(context)")
                }
                #expect(!FileManager.default.fileExists(atPath: journal), "\(context): a journal file is left")
                #expect(view.integrity == "ok", "\(context): \(view.integrity)")
            }
        }
        #expect(failedRuns == 3 * positions.count, "every failed write of the journal must fail the run")
    }
}
