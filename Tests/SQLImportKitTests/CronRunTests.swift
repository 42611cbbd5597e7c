import Foundation
import Synchronization
import GRDB
import GRDBSQLite
import Testing
@testable import SQLImportKit

/// Unattended runs: all-or-nothing, checkpoints and resume, rejects, exit codes,
/// signals, locks and concurrent readers. These run the built binary.
@Suite(.serialized) struct CronRunTests {
    static let schema = try! String(contentsOf: TestSupport.fixtures.appendingPathComponent("items.schema.sql"), encoding: .utf8)

    /// `count` seeds-schema records, ~2% with a null remoteID.
    static func itemsJSONL(_ count: Int, offset: Int = 0) -> String {
        var text = ""
        text.reserveCapacity(count * 120)
        for i in offset ..< offset + count {
            let remote = i % 50 == 7 ? "null" : "\"r\(i)\""
            text += #"{"id":"id-\#(i)","name":"item \#(i), \"quoted\" ✓","libraryID":\#(i % 7),"remoteID":\#(remote),"notes":"n\#(i % 13)","updatedAt":"2026-11-\#(10 + i % 9)"}"#
            text += "\n"
        }
        return text
    }

    struct Workspace {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("app.db").path }
        init() throws { try TestSupport.createDatabase(database, schema: CronRunTests.schema) }
        func file(_ name: String, _ text: String) -> String { TestSupport.write(text, to: directory.appendingPathComponent(name)) }
        func count() throws -> Int { try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items")! } }
        func integrity() throws -> String { try DatabaseQueue(path: database).read { try String.fetchOne($0, sql: "PRAGMA integrity_check")! } }
        /// Files left next to the database other than the database and inputs.
        func strayFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("app.db-") }
        }
        func cleanUp() { TestSupport.remove(directory) }
    }

    /// Starts the binary without waiting for it.
    static func launch(_ arguments: [String], in directory: URL) throws -> Process {
        let process = Process()
        process.executableURL = TestSupport.executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    // MARK: - Kills

    /// Another writer takes the lock between a checkpoint's COMMIT and the next BEGIN: the
    /// run stops (exit 75), and its report's counts are those committed. They lagged one
    /// checkpoint behind (80,000 reported, 85,000 in the table: a helper), the next BEGIN
    /// failing before the counts of the commit were kept.
    @Test func aLockTakenAtACheckpointLeavesTheCommittedCountsInTheReport() throws {
        let work = try Workspace()
        defer { TestSupport.remove(work.directory) }
        let input = work.file("in.jsonl", Self.itemsJSONL(1_000))
        let checkpoints = Mutex(0)
        // A connection of its own (GRDB would not leave its transaction open), set once
        // on the writing thread and closed after the run.
        final class LockHolder: @unchecked Sendable { var connection: OpaquePointer? }
        let holder = LockHolder()
        defer { sqlite3_close_v2(holder.connection) }
        var options = ImportOptions(inputs: [input], databasePath: work.database)
        options.table = "items"
        options.upsert = ["libraryID", "remoteID"]
        options.commitEvery = 300
        options.rowsPerBatch = 100
        options.busyTimeoutMilliseconds = 50
        options.betweenCheckpoints = {
            // After the second commit, another connection holds the write lock.
            guard checkpoints.withLock({ $0 += 1; return $0 }) == 2 else { return }
            sqlite3_open(work.database, &holder.connection)
            #expect(sqlite3_exec(holder.connection, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        }
        let importer = Importer(options: options)
        #expect(throws: (any Error).self) { _ = try importer.run() }
        let committed = try work.count()
        #expect(committed == 600)
        #expect(importer.partialSummary?.counts.read == committed && importer.partialSummary?.counts.inserted == committed, "\(String(describing: importer.partialSummary?.counts))")
    }

    @Test func sigkillMidImportLeavesTheDatabaseUnchanged() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let seed = workspace.file("seed.jsonl", Self.itemsJSONL(100))
        #expect(try TestSupport.run([seed, "--db", workspace.database, "--table", "items", "--upsert", "id"], in: workspace.directory).status == 0)
        let before = try TestSupport.dump(workspace.database)
        let big = workspace.file("big.jsonl", Self.itemsJSONL(300_000))
        for delay in [0.3, 0.8, 1.5] {
            let process = try Self.launch([big, "--db", workspace.database, "--table", "items", "--upsert", "libraryID,remoteID"], in: workspace.directory)
            Thread.sleep(forTimeInterval: delay)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            // Opening the database rolls the hot journal back.
            #expect(try workspace.integrity() == "ok")
            #expect(try TestSupport.dump(workspace.database) == before, "killed after \(delay) s")
        }
    }

    @Test func sigkillWithCommitEveryThenResumeEqualsACleanImport() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let big = workspace.file("big.jsonl", Self.itemsJSONL(200_000))
        let arguments = [big, "--db", workspace.database, "--table", "items", "--upsert", "libraryID,remoteID", "--commit-every", "20000"]
        let process = try Self.launch(arguments, in: workspace.directory)
        // Wait for at least one checkpoint, then kill.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, (try? workspace.count()) ?? 0 == 0 { Thread.sleep(forTimeInterval: 0.05) }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(try workspace.integrity() == "ok")
        let committed = try workspace.count()
        #expect(committed > 0)
        #expect(committed % 20000 == 0, "only whole checkpoints are committed")
        let progress = try DatabaseQueue(path: workspace.database).read { try Row.fetchOne($0, sql: "SELECT committed_rows, finished FROM _sqlimport_runs")! }
        #expect(progress["committed_rows"] as Int == committed)
        let resumed = try TestSupport.run(arguments + ["--resume", "--report", "-"], in: workspace.directory)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as! [String: Any]
        #expect(report["resumedRecords"] as? Int == committed)
        #expect((report["counts"] as! [String: Int])["inserted"] == 200_000 - committed)
        // The final database equals a clean import.
        let clean = try Workspace()
        defer { clean.cleanUp() }
        #expect(try TestSupport.run([big, "--db", clean.database, "--table", "items", "--upsert", "libraryID,remoteID"], in: clean.directory).status == 0)
        #expect(try DatabaseQueue(path: workspace.database).read { try String.fetchAll($0, sql: "SELECT id || name || libraryID || ifnull(remoteID, '-') FROM items ORDER BY id") }
            == DatabaseQueue(path: clean.database).read { try String.fetchAll($0, sql: "SELECT id || name || libraryID || ifnull(remoteID, '-') FROM items ORDER BY id") })
        #expect(try workspace.strayFiles().isEmpty)
    }

    /// The nightly case: last night's run was killed after a checkpoint, and tonight's
    /// export has the same size and the same first MiB (a value changed in place, the
    /// file's time even set back). --resume must not continue it at last night's offset.
    @Test func resumeStartsOverWhenTheInputChangedAndStrictResumeRefusesIt() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let lastNight = Self.itemsJSONL(20_000)
        let input = workspace.file("in.jsonl", lastNight)
        let fingerprint = try RunLog.Fingerprint(path: input)
        let time = try FileManager.default.attributesOfItem(atPath: input)[.modificationDate] as! Date
        // The interrupted run committed the first half.
        let half = Int64(lastNight.utf8.count / 2)
        try DatabaseQueue(path: workspace.database).write { db in
            try RunLog.ensureTable(db)
            try RunLog.save(db, target: "items", path: input, entry: RunLog.Entry(
                fingerprint: fingerprint, committedOffset: half, committedRows: 10_000, finished: false))
        }
        // Tonight: "item 5," becomes "ITEM 5," at the same length, past the first MiB? No:
        // in the first half, after the first MiB, so only a checksum of the prefix sees it.
        var tonight = Array(lastNight.utf8)
        let marker = Array(#""name":"item 9000,"#.utf8)
        let at = tonight.indices.first { tonight[$0 ..< min($0 + marker.count, tonight.count)].elementsEqual(marker) }!
        #expect(at > 1 << 20 && Int64(at) < half)
        tonight.replaceSubrange(at ..< at + marker.count, with: Array(#""name":"ITEM 9000,"#.utf8))
        try Data(tonight).write(to: URL(fileURLWithPath: input))
        try FileManager.default.setAttributes([.modificationDate: time], ofItemAtPath: input)

        let strict = try TestSupport.run(
            [input, "--db", workspace.database, "--table", "items", "--upsert", "id", "--commit-every", "1000", "--strict-resume"], in: workspace.directory)
        #expect(strict.status == 65)
        #expect(strict.stderr.contains("has changed since the interrupted run"), "\(strict.stderr)")
        #expect(try workspace.count() == 0)

        let resumed = try TestSupport.run(
            [input, "--db", workspace.database, "--table", "items", "--upsert", "id", "--commit-every", "1000", "--resume", "--report", "-"],
            in: workspace.directory)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("imported from its first record"), "\(resumed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as! [String: Any]
        #expect(report["restartedInputs"] as? [String] == [input])
        #expect(report["resumedRecords"] as? Int == 0)
        #expect(try workspace.count() == 20_000)
        let name = try DatabaseQueue(path: workspace.database).read { try String.fetchOne($0, sql: "SELECT name FROM items WHERE id = 'id-9000'") }
        #expect(name?.hasPrefix("ITEM 9000") == true)
        // The log now belongs to tonight's file: a later --resume has nothing to continue.
        let again = try TestSupport.run(
            [input, "--db", workspace.database, "--table", "items", "--upsert", "id", "--commit-every", "1000", "--resume"], in: workspace.directory)
        #expect(again.status == 0, "\(again.stderr)")
    }

    /// `--resume` on standard input: a cron job may always pass it (cron.md), and it was
    /// refused (exit 64) even with nothing to continue. What an interrupted run read from
    /// standard input cannot be compared with tonight's: it is read from its first
    /// record, as a changed file is (with --upsert; refused without, or under
    /// --strict-resume), and the interrupted run's records are not skipped.
    @Test func standardInputUnderResumeIsReadFromItsFirstRecord() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let flags = ["-", "--db", workspace.database, "--table", "items", "--upsert", "id", "--commit-every", "2", "--resume"]
        let records = Self.itemsJSONL(6).split(separator: "\n").map(String.init)
        let fresh = try TestSupport.run(flags, in: workspace.directory, stdin: Data((records.joined(separator: "\n") + "\n").utf8))
        #expect(fresh.status == 0, "\(fresh.stderr)")
        // Interrupted at line 5 after two checkpoints; tonight's stream differs in line 1.
        var broken = records
        broken[4] = #"{"id":"#
        let interrupted = try TestSupport.run(flags, in: workspace.directory, stdin: Data((broken.joined(separator: "\n") + "\n").utf8))
        #expect(interrupted.status == 65, "\(interrupted.stderr)")
        var tonight = records
        tonight[0] = tonight[0].replacingOccurrences(of: "item 0,", with: "ITEM 0,")
        let stdin = Data((tonight.joined(separator: "\n") + "\n").utf8)
        let strict = try TestSupport.run(flags + ["--strict-resume"], in: workspace.directory, stdin: stdin)
        #expect(strict.status == 65 && strict.stderr.contains("standard input (-) cannot be compared with what the interrupted run read"), "\(strict.stderr)")
        let resumed = try TestSupport.run(flags + ["--report", "-"], in: workspace.directory, stdin: stdin)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [String: Any]
        #expect(report?["restartedInputs"] as? [String] == ["-"] && report?["resumedRecords"] as? Int == 0, "\(resumed.stdout)")
        let first = try DatabaseQueue(path: workspace.database).read { try String.fetchOne($0, sql: "SELECT name FROM items WHERE id = 'id-0'") }
        #expect(first?.hasPrefix("ITEM 0,") == true)
    }

    /// An input read from its first record under --resume (changed, or standard input)
    /// before one whose records the interrupted run committed: that one is read from its
    /// first record too. Skipping them applied the earlier input's records after theirs,
    /// and a key both hold kept the earlier input's value, where one run keeps the
    /// later's (a helper's kill test: 1,902 of 22,750 rows).
    @Test(arguments: ["a.jsonl", "-"])
    func anInputAfterOneReadAgainIsReadAgainToo(_ first: String) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let a = { (name: String) in #"{"id":"id-1","name":"\#(name)","libraryID":1,"remoteID":"r1","updatedAt":"t"}"# + "\n" }
        TestSupport.write(a("a old"), to: workspace.directory.appendingPathComponent("a.jsonl"))
        let b = [#"{"id":"id-1","name":"from b","libraryID":1,"remoteID":"r1","updatedAt":"t"}"#, #"{"id":"id-2","name":"from b","libraryID":1,"remoteID":"r2","updatedAt":"t"}"#]
        TestSupport.write((b + [#"{"id":"#]).joined(separator: "\n") + "\n", to: workspace.directory.appendingPathComponent("b.jsonl"))
        let flags = [first, "b.jsonl", "--db", workspace.database, "--table", "items", "--upsert", "id", "--commit-every", "1", "--resume"]
        let interrupted = try TestSupport.run(flags, in: workspace.directory, stdin: Data(a("a old").utf8))
        #expect(interrupted.status == 65, "\(interrupted.stderr)")
        // b.jsonl unchanged (its bad line set aside tonight), a.jsonl changed.
        TestSupport.write(a("a new"), to: workspace.directory.appendingPathComponent("a.jsonl"))
        let resumed = try TestSupport.run(flags + ["--report", "-", "--on-error", "skip"], in: workspace.directory, stdin: Data(a("a new").utf8))
        #expect(resumed.status == 2, "\(resumed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as? [String: Any]
        #expect(report?["restartedInputs"] as? [String] == [first, "b.jsonl"] && report?["resumedRecords"] as? Int == 0, "\(resumed.stdout)")
        let names = try DatabaseQueue(path: workspace.database).read { try String.fetchAll($0, sql: "SELECT name FROM items ORDER BY id") }
        #expect(names == ["from b", "from b"], "\(names)")
    }

    /// The same, interrupted twice: a resumed run that reads x.jsonl first stops inside
    /// it, and the next --resume skipped what the first run had committed of a.jsonl and
    /// b.jsonl (their entries were reset only once reached), so x.jsonl's values won (a
    /// helper's review). Their entries are reset as soon as x.jsonl is read afresh.
    @Test func aResumeInterruptedBeforeTheInputsItReadsAgainStillReadsThemAgain() throws {
        let work = try StopAtThree()
        defer { work.cleanUp() }
        work.write("a.jsonl", "a", 1 ... 1)
        work.write("b.jsonl", "b", 1 ... 3)
        work.write("x.jsonl", "x", 1 ... 3)
        #expect(try work.run(["a.jsonl", "b.jsonl"]).status == 65)
        #expect(try work.run(["x.jsonl", "a.jsonl", "b.jsonl"]).status == 65)
        try work.letThrough()
        let last = try work.run(["x.jsonl", "a.jsonl", "b.jsonl"])
        #expect(last.status == 0, "\(last.stderr)")
        #expect(try work.rows() == ["1|b", "2|b", "3|b"])
    }

    /// The interrupted run's inputs given in another order: a finished input now after
    /// one it had not finished was skipped, and a key both hold kept the old order's
    /// value (a helper's review). It is read again; an input left out is warned about.
    @Test func aResumeWithTheInputsReorderedReadsTheMovedOneAgain() throws {
        let work = try StopAtThree()
        defer { work.cleanUp() }
        work.write("a.jsonl", "a", 1 ... 2)
        work.write("b.jsonl", "b", 1 ... 3)
        work.write("z.jsonl", "z", 9 ... 9)
        #expect(try work.run(["z.jsonl", "a.jsonl", "b.jsonl"]).status == 65)
        try work.letThrough()
        let resumed = try work.run(["b.jsonl", "a.jsonl"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains("--resume: a.jsonl was imported from its first record, as b.jsonl before it was read anew or not to its end"), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("--resume: z.jsonl was an input of the interrupted run and is not one of this run's"), "\(resumed.stderr)")
        #expect(try work.rows() == ["1|a", "2|a", "3|b", "9|z"])
    }

    /// A table whose trigger refuses the key 3, so that a run stops there after
    /// committing, record by record, what came before (as a kill would); inputs of
    /// `{"k":…,"v":…}` records; runs under `--commit-every 1 --resume`.
    struct StopAtThree {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("app.db").path }

        init() throws {
            try TestSupport.createDatabase(database, schema: """
                CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT);
                CREATE TRIGGER stop BEFORE INSERT ON t WHEN NEW.k = 3 BEGIN SELECT RAISE(ABORT, 'stop here'); END;
                """)
        }

        func write(_ name: String, _ v: String, _ keys: ClosedRange<Int>) {
            TestSupport.write(keys.map { #"{"k":\#($0),"v":"\#(v)"}"# + "\n" }.joined(), to: directory.appendingPathComponent(name))
        }

        func run(_ inputs: [String]) throws -> TestSupport.Output {
            try TestSupport.run(inputs + ["--db", database, "--table", "t", "--upsert", "k", "--commit-every", "1", "--resume"], in: directory)
        }

        /// Drops the trigger: the next run goes through.
        func letThrough() throws { try DatabaseQueue(path: database).write { try $0.execute(sql: "DROP TRIGGER stop") } }

        func rows() throws -> [String] {
            try DatabaseQueue(path: database).read { try String.fetchAll($0, sql: "SELECT k || '|' || v FROM t ORDER BY k") }
        }

        func cleanUp() { TestSupport.remove(directory) }
    }

    /// Two nights of `a.csv b.csv` (palmerpenguins, random UUID keys): the second stops
    /// inside `a.csv`, and its --resume skipped all of `b.csv`, because the log still held
    /// the first night's entry for it, finished and unchanged; `b.csv`'s values were
    /// never applied, with exit 2 and `resumedRecords` counting the first night's
    /// records. A run that starts afresh now forgets its inputs' old entries. An input
    /// given twice resumed its second reading at the first one's offset: refused. A
    /// changed input without --upsert named --strict-resume, which was not given.
    @Test func aResumeSkipsOnlyWhatTheInterruptedRunCommitted() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE penguins (id TEXT PRIMARY KEY, species TEXT, island TEXT, mass INTEGER) STRICT;")
        let penguins = try String(contentsOf: TestSupport.fixtures.appendingPathComponent("real/penguins.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst().prefix(120).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        let ids = penguins.map { _ in UUID().uuidString.lowercased() }
        func csv(_ mass: (Int) -> String) -> String {
            "id,species,island,mass\n" + penguins.indices.map { "\(ids[$0]),\(penguins[$0][0]),\(penguins[$0][1]),\(mass($0))" }.joined(separator: "\n") + "\n"
        }
        let a = TestSupport.write(csv { _ in "1" }, to: directory.appendingPathComponent("a.csv"))
        _ = TestSupport.write(csv { "\(1000 + $0)" }, to: directory.appendingPathComponent("b.csv"))
        let run = ["a.csv", "b.csv", "--db", database, "--table", "penguins", "--upsert", "id", "--commit-every", "20", "--resume"]
        #expect(try TestSupport.run(run, in: directory).status == 0)
        // Tonight's a.csv holds a bad record on line 91, after four checkpoints.
        _ = TestSupport.write(csv { $0 == 89 ? "oops" : "2" }, to: URL(fileURLWithPath: a))
        let stopped = try TestSupport.run(run, in: directory)
        #expect(stopped.status == 65 && stopped.stderr.contains("a.csv:91"), "\(stopped.stderr)")
        // The resume that sets the bad record aside: 80 records were committed before it.
        func resumeSettingTheBadRecordAside() throws -> [Int] {
            let resumed = try TestSupport.run(run + ["--on-error", "skip", "--report", "-"], in: directory)
            #expect(resumed.status == 2, "\(resumed.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(resumed.stdout.utf8)) as! [String: Any]
            #expect(report["resumedRecords"] as? Int == 80, "\(report)")
            return try DatabaseQueue(path: database).read { try Int.fetchAll($0, sql: "SELECT mass FROM penguins ORDER BY mass") }
        }
        let masses = try resumeSettingTheBadRecordAside()
        #expect(masses == Array(1000 ..< 1120), "\(masses.prefix(5))")

        // The interrupted run was given a.csv alone: b.csv's entry, a finished one of the
        // night before, is no progress of it (a review found b.csv skipped again).
        _ = TestSupport.write(csv { "\(2000 + $0)" }, to: directory.appendingPathComponent("b.csv"))
        _ = TestSupport.write(csv { _ in "5" }, to: URL(fileURLWithPath: a))
        #expect(try TestSupport.run(run, in: directory).status == 0)
        _ = TestSupport.write(csv { $0 == 89 ? "oops" : "6" }, to: URL(fileURLWithPath: a))
        #expect(try TestSupport.run(["a.csv"] + run.dropFirst(2), in: directory).status == 65)
        let afterBoth = try resumeSettingTheBadRecordAside()
        #expect(afterBoth == Array(2000 ..< 2120), "\(afterBoth.prefix(5))")

        let twice = try TestSupport.run(["a.csv", "b.csv", "a.csv"] + run.dropFirst(2), in: directory)
        #expect(twice.status == 64 && twice.stderr.contains("a.csv is given twice"), "\(twice.stderr)")

        // Without --upsert a changed input cannot start over: the fix is --upsert.
        _ = TestSupport.write(csv { $0 == 50 ? "oops" : "3" }, to: URL(fileURLWithPath: a))
        let plain = ["a.csv", "--db", database, "--table", "penguins", "--commit-every", "20", "--resume"]
        try DatabaseQueue(path: database).write { try $0.execute(sql: "DELETE FROM penguins; DELETE FROM _sqlimport_runs") }
        #expect(try TestSupport.run(plain, in: directory).status == 65)
        _ = TestSupport.write(csv { _ in "4" }, to: URL(fileURLWithPath: a))
        let changed = try TestSupport.run(plain, in: directory)
        #expect(changed.status == 65 && changed.stderr.contains("pass --upsert COLUMNS") && !changed.stderr.contains("strict-resume"), "\(changed.stderr)")
    }

    /// A log written before entries named their run cannot tell an earlier run's finished
    /// entry from the interrupted run's: with --upsert such inputs are read again rather
    /// than skipped (a review found `b.jsonl` skipped on an upgraded log). And resuming
    /// with an input the interrupted run never had, before ones it committed, reads
    /// those again.
    @Test func aResumeOnALogFromBeforeRunIdentifiersSkipsNoFinishedInput() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id TEXT PRIMARY KEY, v INTEGER);")
        let ids = (0 ..< 6).map { _ in UUID().uuidString }
        func write(_ name: String, _ v: Int) -> String {
            TestSupport.write(ids.map { #"{"id":"\#($0)","v":\#(v)}"# + "\n" }.joined(), to: directory.appendingPathComponent(name))
        }
        let a = write("a.jsonl", 1), b = write("b.jsonl", 2), c = write("c.jsonl", 3)
        let half = Int64(try String(contentsOfFile: a, encoding: .utf8).split(separator: "\n").prefix(3).map { $0.utf8.count + 1 }.reduce(0, +))
        try DatabaseQueue(path: database).write { db in
            try RunLog.ensureTable(db)
            // The interrupted run committed half of a.jsonl; b.jsonl's entry is an earlier
            // run's, finished (neither names its run).
            try RunLog.save(db, target: "t", path: "a.jsonl", entry: RunLog.Entry(
                fingerprint: try RunLog.Fingerprint(path: a), committedOffset: half, committedRows: 3, finished: false))
            try RunLog.save(db, target: "t", path: "b.jsonl", entry: RunLog.Entry(
                fingerprint: try RunLog.Fingerprint(path: b), committedOffset: Int64.max, committedRows: 6, finished: true))
            for id in ids.prefix(3) { try db.execute(sql: "INSERT INTO t VALUES (?, 1)", arguments: [id]) }
        }
        let run = ["--db", database, "--table", "t", "--upsert", "id", "--commit-every", "2", "--resume"]
        let resumed = try TestSupport.run(["a.jsonl", "b.jsonl"] + run, in: directory)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try DatabaseQueue(path: database).read { try Int.fetchAll($0, sql: "SELECT v FROM t") } == Array(repeating: 2, count: 6))

        // The interrupted run read b.jsonl (finished) and stopped in c.jsonl.
        try DatabaseQueue(path: database).write { db in
            try db.execute(sql: "DELETE FROM _sqlimport_runs")
            try RunLog.save(db, target: "t", path: "b.jsonl", entry: RunLog.Entry(
                fingerprint: try RunLog.Fingerprint(path: b), committedOffset: Int64.max, committedRows: 6, finished: true, runID: "r1"))
            try RunLog.save(db, target: "t", path: "c.jsonl", entry: RunLog.Entry(
                fingerprint: try RunLog.Fingerprint(path: c), committedOffset: half, committedRows: 3, finished: false, runID: "r1"))
        }
        let reordered = try TestSupport.run(["a.jsonl", "b.jsonl", "c.jsonl"] + run, in: directory)
        #expect(reordered.status == 0, "\(reordered.stderr)")
        // With --upsert the inputs after it are read again from their first records, as
        // one run of the list reads them (it warned, and applied a.jsonl after them).
        #expect(reordered.stderr.contains("--resume: b.jsonl was imported from its first record, as a.jsonl before it was"), "\(reordered.stderr)")
        #expect(try DatabaseQueue(path: database).read { try Int.fetchAll($0, sql: "SELECT v FROM t") } == Array(repeating: 3, count: 6))
    }

    /// SIGTERM, and SIGHUP (a closed terminal or ssh session), which used to kill the run
    /// at once: SQLite's journal kept the database safe, but nothing said so, and export
    /// and snapshot left their temporary files.
    @Test(arguments: [(SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func aSignalRollsBackPrintsTheSummaryAndExitsWithItsCode(_ signalNumber: Int32, _ status: Int32) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let process = Process()
        process.executableURL = TestSupport.executable
        process.arguments = ["-", "--db", workspace.database, "--table", "items", "--upsert", "id"]
        let input = Pipe()
        let errors = workspace.directory.appendingPathComponent("stderr.txt")
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        process.standardInput = input
        process.standardError = try FileHandle(forWritingTo: errors)
        // A harness started under nohup passes SIGHUP on ignored, and sqlimport keeps it so.
        if signalNumber == SIGHUP { signal(SIGHUP, SIG_DFL) }
        try process.run()
        input.fileHandleForWriting.write(Data(Self.itemsJSONL(10).utf8))
        Thread.sleep(forTimeInterval: 0.5)
        kill(process.processIdentifier, signalNumber)  // with standard input still open
        process.waitUntilExit()
        try? input.fileHandleForWriting.close()
        #expect(process.terminationReason == .exit && process.terminationStatus == status)
        let stderr = try String(contentsOf: errors, encoding: .utf8)
        #expect(stderr.contains("interrupted by signal \(signalNumber)"), "\(stderr)")
        #expect(stderr.contains("items: "))
        #expect(try workspace.count() == 0)
    }

    /// SIGTERM while the run waits for another writer's lock: SQLite's busy timeout slept
    /// through it, and the run exited 143 (or 75) only when `--busy-timeout` ran out (a
    /// helper). The wait now gives up at the signal.
    @Test func aSignalWhileWaitingForALockStopsTheRunAtOnce() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var holder: OpaquePointer?
        sqlite3_open(workspace.database, &holder)
        defer { sqlite3_close_v2(holder) }
        #expect(sqlite3_exec(holder, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK)
        let input = workspace.file("in.jsonl", Self.itemsJSONL(100))
        let process = Process()
        process.executableURL = TestSupport.executable
        process.arguments = [input, "--db", workspace.database, "--table", "items", "--upsert", "id", "--busy-timeout", "30000"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        Thread.sleep(forTimeInterval: 1)
        let signalled = Date()
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 143)
        #expect(Date().timeIntervalSince(signalled) < 10, "waited \(Date().timeIntervalSince(signalled)) s")
        sqlite3_exec(holder, "ROLLBACK", nil, nil, nil)
        #expect(try workspace.count() == 0)
    }

    /// export and inspect of a database another connection holds exclusively said
    /// "database is locked" without naming it (import did).
    @Test func exportAndInspectOfALockedDatabaseNameIt() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var holder: OpaquePointer?
        sqlite3_open(workspace.database, &holder)
        defer { sqlite3_close_v2(holder) }
        #expect(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK)
        for command in [["export", "items", "--busy-timeout", "100"], ["inspect", "items"]] {
            let run = try TestSupport.run(command + ["--db", workspace.database], in: workspace.directory)
            #expect(run.status == 75, "\(command): \(run.stderr)")
            #expect(run.stderr.contains("\(workspace.database): database is locked"), "\(command): \(run.stderr)")
        }
        sqlite3_exec(holder, "ROLLBACK", nil, nil, nil)
    }

    /// A signal during a first load's index builds (the last minutes of a large load) was
    /// not looked at until they ended, and then the run committed every row and exited
    /// 0. The build is interrupted now (`sqlite3_interrupt`), or the signal is seen when
    /// it ends, and the run rolls back like any other. Cancelled as the builds begin, and
    /// a moment into them.
    @Test(arguments: [0.0, 0.005])
    func aSignalWhileIndexesAreBuiltRollsTheFirstLoadBack(_ delay: Double) throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        try DatabaseQueue(path: workspace.database).write { db in
            try db.execute(sql: "CREATE INDEX items_name ON items (name); CREATE INDEX items_notes ON items (notes, updatedAt)")
        }
        var options = ImportOptions(inputs: [workspace.file("in.jsonl", Self.itemsJSONL(20_000))], databasePath: workspace.database)
        options.table = "items"
        options.upsert = ["libraryID", "remoteID"]
        let cancellation = Cancellation()
        options.cancellation = cancellation
        var phases: [ImportProgress.Phase] = []
        do {
            let summary = try Importer(options: options).run { progress in
                if phases.last != progress.phase { phases.append(progress.phase) }
                guard progress.phase == .buildingIndexes else { return }
                if delay == 0 {
                    cancellation.cancel(signal: SIGTERM)
                } else {
                    DispatchQueue.global().asyncAfter(deadline: .now() + delay) { cancellation.cancel(signal: SIGTERM) }
                }
            }
            Issue.record("the run committed: \(summary.counts)")
        } catch ImportError.interrupted(let signal) {
            #expect(signal == SIGTERM)
        }
        #expect(phases.contains(.buildingIndexes))
        #expect(try workspace.count() == 0)
        #expect(try workspace.integrity() == "ok")
        let indexes = try DatabaseQueue(path: workspace.database).read { try String.fetchAll($0, sql: "SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL ORDER BY name") }
        #expect(indexes == ["idx_items_sync_identity", "items_name", "items_notes"])
    }

    // MARK: - Overlapping runs and the app's writers

    /// `count` seeds-schema records of library 1 with random UUID keys, named `tag`.
    static func uuidItemsJSONL(_ count: Int, tag: String) -> String {
        (0 ..< count).map { _ in
            #"{"id":"\#(UUID().uuidString.lowercased())","name":"\#(tag)","libraryID":1,"remoteID":"\#(UUID().uuidString.lowercased())","updatedAt":"2026-11-28"}"#
        }.joined(separator: "\n") + "\n"
    }

    /// Starts the binary reading standard input, which the caller writes and closes.
    static func launchReadingStandardInput(_ arguments: [String], in directory: URL) throws -> (process: Process, input: FileHandle) {
        let process = Process()
        process.executableURL = TestSupport.executable
        process.arguments = ["-"] + arguments
        process.currentDirectoryURL = directory
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let input = Pipe()
        process.standardInput = input
        try process.run()
        return (process, input.fileHandleForWriting)
    }

    /// Waits until `condition` holds, for at most `seconds`.
    static func waitUntil(_ seconds: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    /// Runs a mirror of `first` into `items` with `run`, one that stops between two of
    /// its checkpoints while a run of the binary with `second` starts (with a long
    /// `--busy-timeout`), and again while one starts that gives up after 0.3 s.
    /// - Returns: the first's exit status, after its end, and the second's output.
    static func overlap(
        _ first: String, database: String, second: [String], in directory: URL, run: (ImportOptions) throws -> Void
    ) throws -> (waited: Int32, gaveUp: TestSupport.Output) {
        let checkpoints = Mutex(0)
        let refused = Mutex<TestSupport.Output?>(nil)
        let waiting = Mutex<Process?>(nil)
        var options = ImportOptions(inputs: [first], databasePath: database)
        options.table = "items"
        options.upsert = ["libraryID", "remoteID"]
        options.mirror.deleteMissing = true
        options.mirror.scope = ["libraryID"]
        options.mirror.maxDelete = .percent(100)
        options.commitEvery = 50
        options.rowsPerBatch = 50
        options.betweenCheckpoints = {
            switch checkpoints.withLock({ $0 += 1; return $0 }) {
            case 2:
                waiting.withLock { $0 = try? Self.launch(second + ["--busy-timeout", "60000"], in: directory) }
                Thread.sleep(forTimeInterval: 0.5)
            case 4:
                let output = try? TestSupport.run(second + ["--busy-timeout", "300"], in: directory)
                refused.withLock { $0 = output }
            default:
                break
            }
        }
        try run(options)
        let process = try #require(waiting.withLock { $0 })
        process.waitUntilExit()
        return (process.terminationStatus, try #require(refused.withLock { $0 }))
    }

    /// Two cron mirrors of one library that overlap, with `--commit-every`: the second
    /// took SQLite's write lock between the first one's checkpoints, and each took the
    /// other's committed rows for rows inserted since it began. Both exited 0 and the
    /// table kept both files' rows (340,000 of 200,000 and 200,000: helper-82). A run now
    /// holds the database's run lock from its first transaction to its last: the second
    /// waits, or exits 75 past `--busy-timeout`, and the table is the serial outcome.
    @Test func twoRunsOnOneDatabaseNeverInterleave() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let first = workspace.file("first.jsonl", Self.uuidItemsJSONL(600, tag: "first"))
        _ = workspace.file("second.jsonl", Self.uuidItemsJSONL(500, tag: "second"))
        let mirror = ["--db", workspace.database, "--table", "items", "--upsert", "libraryID,remoteID", "--delete-missing", "--scope", "libraryID",
                      "--max-delete", "100%", "--commit-every", "50"]
        let (waited, gaveUp) = try Self.overlap(first, database: workspace.database, second: ["second.jsonl"] + mirror, in: workspace.directory) {
            _ = try Importer(options: $0).run()
        }
        #expect(waited == 0)
        #expect(gaveUp.status == 75, "\(gaveUp.stderr)")
        #expect(gaveUp.stderr.contains("another sqlimport run (process \(getpid())) is writing to this database"), "\(gaveUp.stderr)")
        // The first file's rows, replaced by the second's: the serial outcome.
        let names = try DatabaseQueue(path: workspace.database).read { try String.fetchAll($0, sql: "SELECT DISTINCT name FROM items") }
        let rows = try workspace.count()
        #expect(names == ["second"] && rows == 500, "\(names), \(rows) rows")
        #expect(try workspace.strayFiles() == [])
    }

    /// The run lock is another user's to take too: a file made with the database's
    /// permissions (it was always 0644, the first user's), and one that another user
    /// left (a killed run) opened read-only, which `flock` needs no more than: the second
    /// user's run stopped with exit 74, "cannot make the run lock", in a folder and on a
    /// database that user may write (helper-84).
    @Test(.enabled(if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")))
    func anotherUserTakesTheRunLockThatARunLeft() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        chmod(workspace.directory.path, 0o777)
        chmod(workspace.database, 0o666)
        let held = try RunLock.acquire(database: workspace.database, timeoutMilliseconds: 0, cancellation: nil)
        var info = stat()
        #expect(stat(held.path, &info) == 0 && info.st_mode & 0o777 == 0o666, "mode \(String(info.st_mode & 0o777, radix: 8))")
        held.release()
        // What a killed run of root's leaves: its own file, readable by others only.
        let left = RunLock.path(forDatabase: workspace.database)
        _ = TestSupport.write("1\n", to: URL(fileURLWithPath: left))
        chmod(left, 0o644)
        _ = workspace.file("in.jsonl", Self.uuidItemsJSONL(10, tag: "nobody"))
        let asNobody = try TestSupport.run(
            ["--reuid=65534", "--regid=65534", "--clear-groups", TestSupport.executable.path, "in.jsonl", "--db", "app.db", "--table", "items", "--upsert", "libraryID,remoteID"],
            in: workspace.directory, executable: URL(fileURLWithPath: "/usr/bin/setpriv"))
        #expect(asNobody.status == 0, "\(asNobody.stderr)")
        #expect(try workspace.count() == 10)
    }

    /// `--commit-every` is there to let the app's writers in, but in rollback-journal
    /// mode the run began again at once after each commit, before a writer waiting in
    /// SQLite's busy handler woke: an app with a 5-second timeout failed with "database
    /// is locked" all through the run (helper-82). Every 2 seconds or so a checkpoint now
    /// leaves the database unlocked a little longer than the busy handler sleeps.
    @Test func anAppsWriterGetsInBetweenCheckpoints() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let running = try Self.launchReadingStandardInput(
            ["--db", workspace.database, "--table", "items", "--upsert", "libraryID,remoteID", "--commit-every", "20", "--busy-timeout", "30000"],
            in: workspace.directory)
        // The run never runs out of records while the app waits.
        let feeding = Atomic<Bool>(true)
        let feeder = Thread {
            while feeding.load(ordering: .relaxed) {
                running.input.write(Data(Self.uuidItemsJSONL(20, tag: "run").utf8))
                Thread.sleep(forTimeInterval: 0.01)
            }
            try? running.input.close()
        }
        feeder.start()
        defer { feeding.store(false, ordering: .relaxed) }
        // (A read while the run commits is refused: no busy timeout here.)
        #expect(Self.waitUntil(30) { ((try? workspace.count()) ?? 0) > 0 }, "the run committed nothing")
        var app: OpaquePointer?
        sqlite3_open(workspace.database, &app)
        defer { sqlite3_close_v2(app) }
        sqlite3_busy_timeout(app, 5000)
        let insert = "BEGIN IMMEDIATE; INSERT INTO items (id, libraryID, updatedAt) VALUES ('app', 9, 'now'); COMMIT;"
        let status = sqlite3_exec(app, insert, nil, nil, nil)
        let stillRunning = running.process.isRunning
        feeding.store(false, ordering: .relaxed)
        running.process.waitUntilExit()
        #expect(status == SQLITE_OK, "\(String(cString: sqlite3_errmsg(app)))")
        #expect(stillRunning)
        #expect(running.process.terminationStatus == 0)
        #expect(try DatabaseQueue(path: workspace.database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items WHERE id = 'app'") } == 1)
    }

    // MARK: - Bad records

    @Test func rejectsFilePointsAtTheRightLinesAndExitIs2() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var lines = Self.itemsJSONL(10).split(separator: "\n").map(String.init)
        lines[2] = #"{"id":"bad-json","name":"#  // unparseable
        lines[5] = #"{"id":"no-library","name":"x","remoteID":"q","updatedAt":"2026-01-01","libraryID":null}"#  // NOT NULL
        lines[8] = #"{"id":"wrong-type","name":"x","remoteID":"w","updatedAt":"2026-01-01","libraryID":"seven"}"#  // STRICT
        let input = workspace.file("in.jsonl", lines.joined(separator: "\n") + "\n")
        let rejects = workspace.directory.appendingPathComponent("rejects.jsonl").path
        for strategy in ["typed", "cached", "multirow"] {
            try? FileManager.default.removeItem(atPath: rejects)
            let result = try TestSupport.run([input, "--db", workspace.database, "--table", "items", "--upsert", "id", "--on-error", "skip", "--rejects", rejects, "--strategy", strategy], in: workspace.directory)
            #expect(result.status == 2, "\(strategy): \(result.stderr)")
            let records = try String(contentsOfFile: rejects, encoding: .utf8).split(separator: "\n").map {
                try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
            }
            #expect(records.map { $0["line"] as! Int } == [3, 6, 9], "\(strategy)")
            #expect(records.map { $0["record"] as! String } == [lines[2], lines[5], lines[8]])
            #expect(records.allSatisfy { ($0["input"] as! String) == input && $0["byteOffset"] is Int && $0["reason"] is String })
            #expect(try workspace.count() == 7)
        }
    }

    /// A resumed run skips the records the interrupted run committed, rejects included:
    /// those rejects still count (exit 2, `rejected`, `resumedRejects`) and their lines stay
    /// in the rejects file, while lines written after the last checkpoint are not doubled.
    /// (A helper found the resumed run exiting 0 with the rejects file emptied.)
    @Test func aResumedRunKeepsAndReportsTheRejectsOfTheCommittedPart() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var lines = Self.itemsJSONL(12).split(separator: "\n").map(String.init)
        lines[1] = "oops"
        lines[4] = "nope"
        let input = workspace.file("in.jsonl", lines.joined(separator: "\n") + "\n")
        let common = [input, "--db", workspace.database, "--table", "items", "--upsert", "id", "--commit-every", "3", "--resume", "--on-error", "skip",
            "--rejects", "rejects.jsonl"]
        // Stops at line 5 (its second reject) after committing lines 1 to 3.
        let stopped = try TestSupport.run(common + ["--max-errors", "1"], in: workspace.directory)
        #expect(stopped.status == 65, "\(stopped.stderr)")
        #expect(try workspace.count() == 2)
        let resumed = try TestSupport.run(common + ["--report", "report.json"], in: workspace.directory)
        #expect(resumed.status == 2, "\(resumed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: workspace.directory.appendingPathComponent("report.json"))) as! [String: Any]
        #expect((report["counts"] as! [String: Int])["rejected"] == 2)
        #expect(report["resumedRejects"] as? Int == 1)
        #expect(report["resumedRecords"] as? Int == 2)
        let rejected = try String(contentsOf: workspace.directory.appendingPathComponent("rejects.jsonl"), encoding: .utf8).split(separator: "\n").map {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["line"] as! Int
        }
        #expect(rejected == [2, 5])
        #expect(try workspace.count() == 10)
    }

    /// With two inputs, the rejects of a finished input are kept when the later one
    /// changed and is read again (a review found them dropped: exit 0, a row missing
    /// without a word).
    @Test func aResumedRunKeepsTheRejectsOfInputsBeforeOneThatChanged() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        var first = Self.itemsJSONL(4).split(separator: "\n").map(String.init)
        first[2] = "oops"
        let a = workspace.file("a.jsonl", first.joined(separator: "\n") + "\n")
        var second = Self.itemsJSONL(4, offset: 10).split(separator: "\n").map(String.init)
        second[1] = "bad"
        let b = workspace.file("b.jsonl", second.joined(separator: "\n") + "\n")
        let common = [a, b, "--db", workspace.database, "--table", "items", "--upsert", "id", "--commit-every", "2", "--resume", "--on-error", "skip",
            "--rejects", "rejects.jsonl"]
        let stopped = try TestSupport.run(common + ["--max-errors", "1"], in: workspace.directory)
        #expect(stopped.status == 65, "\(stopped.stderr)")
        second[1] = Self.itemsJSONL(1, offset: 11).trimmingCharacters(in: .newlines)
        _ = workspace.file("b.jsonl", second.joined(separator: "\n") + "\n")
        let resumed = try TestSupport.run(common + ["--report", "report.json"], in: workspace.directory)
        #expect(resumed.status == 2, "\(resumed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: workspace.directory.appendingPathComponent("report.json"))) as! [String: Any]
        #expect((report["counts"] as! [String: Int])["rejected"] == 1)
        let rejected = try String(contentsOf: workspace.directory.appendingPathComponent("rejects.jsonl"), encoding: .utf8).split(separator: "\n").map {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any])["input"] as! String
        }
        #expect(rejected == [a])
        #expect(try workspace.count() == 7)
    }

    /// `--report` and `--rejects` never replace the database, an input or each other
    /// (exit 64, nothing touched); a link is followed (the file it names gets the report,
    /// the link stays); a flag the parser refuses still writes the short-form report, so
    /// that the last run's report is not read as this one's. (A helper found the database
    /// and an input replaced, exit 0, and a stale report left by a bad flag.)
    @Test func theReportAndRejectsNeverReplaceWhatTheRunReads() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let input = workspace.file("in.jsonl", Self.itemsJSONL(20))
        let base = [input, "--db", workspace.database, "--table", "items", "--upsert", "id"]
        for extra in [["--report", workspace.database], ["--report", "in.jsonl"], ["--on-error", "skip", "--rejects", "in.jsonl"],
            ["--on-error", "skip", "--rejects", "same.json", "--report", "same.json"], ["--report", "./app.db-journal"]]
        {
            let refused = try TestSupport.run(base + extra, in: workspace.directory)
            #expect(refused.status == 64, "\(extra): \(refused.stderr)")
            let message = extra.contains("same.json") ? "--report and --rejects both name same.json" : "writing there would replace what is being read"
            #expect(refused.stderr.contains(message), "\(refused.stderr)")
        }
        #expect(try workspace.count() == 0)
        #expect(try String(contentsOfFile: input, encoding: .utf8) == Self.itemsJSONL(20))
        #expect(try workspace.integrity() == "ok")
        // Through a link: the link stays, the file it names holds the report.
        try FileManager.default.createSymbolicLink(atPath: workspace.directory.appendingPathComponent("link.json").path, withDestinationPath: "real.json")
        let linked = try TestSupport.run(base + ["--report", "link.json"], in: workspace.directory)
        #expect(linked.status == 0, "\(linked.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: workspace.directory.appendingPathComponent("link.json").path) == "real.json")
        let real = try JSONSerialization.jsonObject(with: Data(contentsOf: workspace.directory.appendingPathComponent("real.json"))) as! [String: Any]
        #expect(real["exitCode"] as? Int == 0)
        // A refused flag replaces the last report with the short form.
        let refused = try TestSupport.run(base + ["--merge", "bogus", "--report", "link.json"], in: workspace.directory)
        #expect(refused.status == 64)
        let short = try JSONSerialization.jsonObject(with: Data(contentsOf: workspace.directory.appendingPathComponent("real.json"))) as! [String: Any]
        #expect(short["exitCode"] as? Int == 64)
        #expect((short["error"] as? String)?.contains("--merge") == true, "\(short)")
        // ...but never over a file that is no report (the database, here).
        #expect(try TestSupport.run(base, in: workspace.directory).status == 0)
        let overDatabase = try TestSupport.run(base + ["--merge", "bogus", "--report", workspace.database], in: workspace.directory)
        #expect(overDatabase.status == 64)
        #expect(try workspace.count() == 20)
        #expect(try workspace.integrity() == "ok")
    }

    /// The report is written under a fresh name beside it, never under a fixed one: a
    /// run with `--report app.db` truncated and removed `app.db.tmp` (here the
    /// database, exit 0), and `report.json.tmp` as a link emptied the file it named.
    @Test func theReportsTemporaryFileNeverTouchesAnExistingFile() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let input = workspace.file("in.jsonl", Self.itemsJSONL(20))
        let victim = workspace.file("victim.txt", "keep me\n")
        try FileManager.default.createSymbolicLink(atPath: workspace.directory.appendingPathComponent("report.json.tmp").path, withDestinationPath: "victim.txt")
        let other = workspace.file("other.json.tmp", "also kept\n")
        let live = workspace.directory.appendingPathComponent("live.db.tmp").path
        try TestSupport.createDatabase(live, schema: CronRunTests.schema)
        try DatabaseQueue(path: live).write { try $0.execute(sql: "INSERT INTO items (id, libraryID, remoteID, updatedAt) VALUES ('precious', 9, 'p', '2026')") }
        for (database, report) in [(workspace.database, "report.json"), (workspace.database, "other.json"), (live, "live.db")] {
            let run = try TestSupport.run([input, "--db", database, "--table", "items", "--upsert", "id", "--report", report], in: workspace.directory)
            #expect(run.status == 0, "\(report): \(run.stderr)")
            let written = try JSONSerialization.jsonObject(with: Data(contentsOf: workspace.directory.appendingPathComponent(report))) as! [String: Any]
            #expect(written["exitCode"] as? Int == 0, "\(report)")
        }
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")
        #expect(try String(contentsOfFile: other, encoding: .utf8) == "also kept\n")
        #expect(try DatabaseQueue(path: live).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items WHERE id = 'precious' OR libraryID < 9") } == 21)
        let left = try FileManager.default.contentsOfDirectory(atPath: workspace.directory.path).filter { $0.contains(".report-") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func maxErrorsAbortsAndRollsBack() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let input = workspace.file("in.jsonl", Self.itemsJSONL(5) + "oops\nnope\n" + Self.itemsJSONL(5, offset: 5))
        let result = try TestSupport.run([input, "--db", workspace.database, "--table", "items", "--on-error", "skip", "--max-errors", "1"], in: workspace.directory)
        #expect(result.status == 65)
        #expect(result.stderr.contains("more than 1 records were rejected"))
        // The last reject is named once, with its position (it was named twice).
        #expect(result.stderr.contains("Last: \(input):7 (byte"), "\(result.stderr)")
        #expect(try workspace.count() == 0)
    }

    // MARK: - Report and exit codes

    @Test func reportCountsMatchTheDatabase() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let input = workspace.file("in.jsonl", Self.itemsJSONL(1000))
        let reportPath = workspace.directory.appendingPathComponent("report.json").path
        for _ in 0 ..< 2 {  // the second run replaces the first report
            #expect(try TestSupport.run([input, "--db", workspace.database, "--table", "items", "--upsert", "libraryID,remoteID", "--report", reportPath, "--quiet"], in: workspace.directory).status == 0)
        }
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: reportPath))) as! [String: Any]
        let counts = report["counts"] as! [String: Int]
        #expect(counts["read"] == 1000)
        #expect(counts["unchanged"] == 1000)
        #expect(counts["outsidePartialIndex"] == 20)
        #expect(try workspace.count() == 1000)
        #expect(report["exitCode"] as? Int == 0)
        #expect(report["strategy"] as? String == "multirow")
        #expect(report["fallbackKey"] as? [String] == ["id"])
        let inputs = report["inputs"] as! [[String: Any]]
        #expect(inputs[0]["format"] as? String == "jsonl")
        #expect(inputs[0]["bytes"] as? Int == Self.itemsJSONL(1000).utf8.count)
        #expect(report["rowsPerSecond"] is Double && report["megabytesPerSecond"] is Double && report["startedAt"] is String)
    }

    @Test func secondWriterHoldingTheLockGivesExit75() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let input = workspace.file("in.jsonl", Self.itemsJSONL(10))
        let holder = try DatabaseQueue(path: workspace.database)
        try holder.inDatabase { db in
            try db.execute(sql: "BEGIN IMMEDIATE")
            let result = try TestSupport.run([input, "--db", workspace.database, "--table", "items", "--busy-timeout", "300"], in: workspace.directory)
            #expect(result.status == 75, "\(result.stderr)")
            #expect(result.stderr.contains("database is locked"))
            #expect(result.stderr.contains("write lock"))
            try db.execute(sql: "ROLLBACK")
        }
        #expect(try workspace.count() == 0)
    }

    @Test func fileSizeLimitIsAnIOErrorWithExit74() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let input = workspace.file("in.jsonl", Self.itemsJSONL(20_000))
        let before = try TestSupport.dump(workspace.database)
        // RLIMIT_FSIZE makes writes past 256 KiB fail, as a full disk would.
        let command = "ulimit -f 256; exec '\(TestSupport.executable.path)' in.jsonl --db app.db --table items"
        let result = try TestSupport.runShell(command, in: workspace.directory)
        #expect(result.status == 74, "\(result.stderr)")
        #expect(try workspace.integrity() == "ok")
        #expect(try TestSupport.dump(workspace.database) == before)
        _ = input
    }

    // MARK: - Readers during an import

    @Test func concurrentReaderSeesTheOldStateOrTheNewNeverAMix() throws {
        let workspace = try Workspace()
        defer { workspace.cleanUp() }
        let seed = workspace.file("seed.jsonl", Self.itemsJSONL(1000))
        #expect(try TestSupport.run([seed, "--db", workspace.database, "--table", "items"], in: workspace.directory).status == 0)
        let big = workspace.file("big.jsonl", Self.itemsJSONL(100_000, offset: 1000))
        let observations = workspace.directory.appendingPathComponent("seen.txt").path
        // A separate reader process polls the row count until told to stop.
        let script = """
            import sqlite3, os, time
            seen = set(); stop = '\(workspace.directory.path)/stop'
            while not os.path.exists(stop):
                try:
                    c = sqlite3.connect('\(workspace.database)', timeout=30)
                    seen.add(c.execute('SELECT count(*) FROM items').fetchone()[0]); c.close()
                except sqlite3.OperationalError: pass
                time.sleep(0.005)
            open('\(observations)', 'w').write(' '.join(map(str, sorted(seen))))
            """
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reader.arguments = ["python3", "-c", script]
        try reader.run()
        let result = try TestSupport.run([big, "--db", workspace.database, "--table", "items"], in: workspace.directory)
        Thread.sleep(forTimeInterval: 0.2)
        FileManager.default.createFile(atPath: workspace.directory.appendingPathComponent("stop").path, contents: nil)
        reader.waitUntilExit()
        #expect(result.status == 0)
        let seen = try String(contentsOfFile: observations, encoding: .utf8).split(separator: " ").compactMap { Int($0) }
        #expect(Set(seen).isSubset(of: [1000, 101_000]), "a reader saw \(seen)")
        #expect(seen.contains(1000))
    }

    /// A CSV cut short mid-field (a half-copied file, a producer that died) was imported
    /// with exit 0 and no word: the report now warns that its last record has no line end.
    @Test func aCSVWhoseLastRecordHasNoLineEndIsWarnedAboutInTheReport() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let planes = try String(contentsOf: TestSupport.fixtures.appendingPathComponent("real/planes.csv"), encoding: .utf8)
        let whole = planes.split(separator: "\n", omittingEmptySubsequences: false).prefix(5).joined(separator: "\n") + "\n"
        TestSupport.write(String(whole.dropLast(8)), to: directory.appendingPathComponent("planes.csv"))
        TestSupport.write(whole, to: directory.appendingPathComponent("whole.csv"))
        let cut = try TestSupport.run(["planes.csv", "--db", "app.db", "--null", "NA", "--report", "cut.json"], in: directory)
        #expect(cut.status == 0, "\(cut.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("cut.json"))) as! [String: Any]
        #expect((report["warnings"] as? [String])?.contains { $0.hasPrefix("planes.csv:5: the last record has no line end") } == true, "\(report)")
        let written = try TestSupport.run(["whole.csv", "--db", "app.db", "--null", "NA", "--report", "whole.json"], in: directory)
        let wholeReport = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("whole.json"))) as! [String: Any]
        #expect(written.status == 0 && (wholeReport["warnings"] as? [String])?.contains { $0.contains("no line end") } == false, "\(wholeReport)")
    }

    /// The interrupted run's committed rejects stay counted when the resumed run stops
    /// before its own first checkpoint: its report said rejected 0 beside resumedRejects 3.
    @Test func aResumedRunThatStopsEarlyStillCountsTheRejectsItResumed() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let lines = (1 ... 40).map { #"{"id":\#($0),"v":\#([3, 13, 23, 33].contains($0) ? "\"bad\"" : String($0))}"# }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("feed.jsonl"))
        try TestSupport.createDatabase(directory.appendingPathComponent("app.db").path, schema: "CREATE TABLE feed (id INTEGER PRIMARY KEY, v INTEGER) STRICT;")
        let command = [
            "feed.jsonl", "--db", "app.db", "--upsert", "id", "--commit-every", "10", "--resume", "--on-error", "skip", "--rejects", "rej.jsonl",
            "--max-errors", "3", "--report", "rep.json",
        ]
        #expect(try TestSupport.run(command, in: directory).status == 65)
        let second = try TestSupport.run(command, in: directory)
        #expect(second.status == 65, "\(second.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("rep.json"))) as! [String: Any]
        let counts = report["counts"] as! [String: Int]
        #expect(report["resumedRejects"] as? Int == 3 && counts["rejected"] == 3, "\(report)")
    }

    /// A key of a record the interrupted run committed, repeated after the checkpoint: one
    /// uninterrupted run refuses it (`--duplicate-keys error`), but the resumed run took
    /// the committed row for one that existed before, overwrote it and exited 2. It now
    /// refuses it as one run does, and under the default counts the repeat.
    /// Five records a checkpoint commits, a record refused at the sixth, and a repeat of
    /// `b` after the checkpoint (also `PostgresTargetTests`).
    static let repeatAcrossACheckpoint = [
        #"{"id":"a","n":1}"#, #"{"id":"b","n":2}"#, #"{"id":"c","n":3}"#, #"{"id":"d","n":4}"#, #"{"id":"e","n":5}"#,
        #"{"id":"f","n":"bad"}"#, #"{"id":"g","n":7}"#, #"{"id":"b","n":99}"#, #"{"id":"h","n":8}"#,
    ].joined(separator: "\n") + "\n"

    @Test(arguments: ["error", "warn"])
    func aResumedRunSeesARepeatOfAKeyTheInterruptedRunCommitted(_ duplicateKeys: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write(Self.repeatAcrossACheckpoint, to: directory.appendingPathComponent("in.jsonl"))
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER) STRICT;")
        let command = ["in.jsonl", "--db", "app.db", "--table", "t", "--upsert", "id", "--commit-every", "5", "--resume", "--duplicate-keys", duplicateKeys, "--on-error", "skip"]
        // Stopped at the sixth record, after the checkpoint that committed five.
        #expect(try TestSupport.run(command + ["--max-errors", "0"], in: directory).status == 65)
        let resumed = try TestSupport.run(command + ["--max-errors", "1", "--report", "rep.json"], in: directory)
        let stored = try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT n FROM t WHERE id = 'b'") }
        if duplicateKeys == "error" {
            #expect(resumed.status == 65, "\(resumed.stderr)")
            #expect(resumed.stderr.contains("in.jsonl:8"), "\(resumed.stderr)")
            #expect(stored == 2)
        } else {
            #expect(resumed.status == 2, "\(resumed.stderr)")
            #expect(stored == 99)
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("rep.json"))) as! [String: Any]
            #expect((report["counts"] as! [String: Int])["duplicateKeys"] == 1, "\(report)")
        }
    }

    /// `--strict-resume` stopping on a changed input had already emptied `--rejects`
    /// (opened keeping only the lines of the inputs resumed); a later resume then counted
    /// rejects whose lines were gone. The run stops before the file is opened now.
    @Test func aStrictResumeThatStopsKeepsTheRejectsFile() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let lines = (1 ... 12).map { #"{"id":\#($0),"v":\#([2, 7, 8].contains($0) ? "\"bad\"" : String($0))}"# }
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        try TestSupport.createDatabase(directory.appendingPathComponent("app.db").path, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER) STRICT;")
        let command = ["in.jsonl", "--db", "app.db", "--table", "t", "--upsert", "id", "--commit-every", "5", "--resume", "--on-error", "skip", "--rejects", "rej.jsonl"]
        #expect(try TestSupport.run(command + ["--max-errors", "2"], in: directory).status == 65)
        let rejects = directory.appendingPathComponent("rej.jsonl").path
        let before = try String(contentsOfFile: rejects, encoding: .utf8)
        #expect(!before.isEmpty)
        let modified = try FileManager.default.attributesOfItem(atPath: input)[.modificationDate] as! Date
        try FileManager.default.setAttributes([.modificationDate: modified.addingTimeInterval(60)], ofItemAtPath: input)
        let strict = try TestSupport.run(command + ["--strict-resume"], in: directory)
        #expect(strict.status == 65, "\(strict.stderr)")
        #expect(strict.stderr.contains("has changed since the interrupted run"))
        #expect(try String(contentsOfFile: rejects, encoding: .utf8) == before)
    }

    /// A record the interrupted run set aside while writing (a STRICT type error) was
    /// counted both as committed (`committed_rows`, `resumedRecords`) and as a resumed
    /// reject: 5 + 1 for 5 records. Committed records are the ones applied.
    @Test func recordsRejectedWhileWritingAreNotCountedAsCommitted() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let lines = (1 ... 10).map { #"{"id":\#($0),"v":\#([2, 7, 8].contains($0) ? "\"bad\"" : String($0))}"# }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER) STRICT;")
        let command = ["in.jsonl", "--db", "app.db", "--table", "t", "--upsert", "id", "--commit-every", "5", "--resume", "--on-error", "skip", "--rejects", "rej.jsonl"]
        let interrupted = try TestSupport.run(command + ["--max-errors", "2"], in: directory)
        #expect(interrupted.status == 65)
        #expect(interrupted.stderr.contains("the 4 records committed at checkpoints before it stay"), "\(interrupted.stderr)")
        func committedRows() throws -> Int? { try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT committed_rows FROM _sqlimport_runs") } }
        #expect(try committedRows() == 4)
        let resumed = try TestSupport.run(command + ["--report", "rep.json"], in: directory)
        #expect(resumed.status == 2, "\(resumed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("rep.json"))) as! [String: Any]
        #expect(report["resumedRecords"] as? Int == 4 && report["resumedRejects"] as? Int == 1, "\(report)")
        #expect(try committedRows() == 7)
        #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 7)
    }
}
