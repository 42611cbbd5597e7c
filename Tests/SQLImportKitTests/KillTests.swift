import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// SIGKILL at random points of a large `--upsert` import with the seeds' schema, in both
/// journal modes. After each kill: `PRAGMA integrity_check`, and the database is exactly
/// as before the run (one transaction) or holds exactly the committed checkpoints
/// (`--commit-every`). Then a re-run (with `--resume`) must leave what a clean import
/// leaves, compared as a text dump, and no file but the database.
///
/// CI runs a small size; `scripts/kill-test.sh` runs a large one. The size and the kill
/// points come from `SQLIMPORT_KILL_ROWS` (default 20,000), `SQLIMPORT_KILL_POINTS` (20
/// per test case) and `SQLIMPORT_KILL_SEED`.
@Suite(.serialized) struct KillTests {
    static let environment = ProcessInfo.processInfo.environment
    static let rows = environment["SQLIMPORT_KILL_ROWS"].flatMap(Int.init) ?? 20_000
    static let kills = environment["SQLIMPORT_KILL_POINTS"].flatMap(Int.init) ?? 20
    static let seed = environment["SQLIMPORT_KILL_SEED"].flatMap(UInt64.init) ?? 42
    /// Records per checkpoint: about ten checkpoints per run.
    static var commitEvery: Int { max(rows / 10, 1) }

    /// Record `i` of the seeds' schema in `version`: a random UUIDv4 `id` and a random
    /// `remoteID` (the same for every version of the record), as real apps have them, so
    /// that writes land all over the B-trees; ~2% have no remoteID, so they fall outside
    /// the partial index and upsert on the primary key instead.
    static func record(_ i: Int, version: Int) -> String {
        var generator = StrategyEquivalenceTests.Generator(state: UInt64(i) &* 0x9E37_79B9)
        let id = uuid(&generator)
        let remote = i % 50 == 7 ? "null" : "\"\(uuid(&generator).lowercased())\""
        return #"{"id":"\#(id)","name":"item \#(i) v\#(version) \"q\" ✓","libraryID":\#(i % 7),"remoteID":\#(remote),"notes":"n\#((i * version) % 13)","updatedAt":"2026-11-\#(10 + version)"}"#
    }

    /// A version-4 UUID from `generator`.
    static func uuid(_ generator: inout StrategyEquivalenceTests.Generator) -> String {
        var bytes = withUnsafeBytes(of: (generator.next(), generator.next())) { Array($0) }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
    }

    /// A folder with `template.db` (the seeds' schema, and version 1 of the first third of
    /// the records, so that the run updates some rows and inserts the others) and
    /// `big.jsonl` (version 2 of every record).
    struct Fixture {
        let directory = TestSupport.temporaryDirectory()
        var template: String { directory.appendingPathComponent("template.db").path }
        var input: String { directory.appendingPathComponent("big.jsonl").path }
        var database: String { directory.appendingPathComponent("app.db").path }

        init(journalMode: String) throws {
            try DatabaseQueue(path: template).writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA journal_mode = \(journalMode)")
                try db.execute(sql: CronRunTests.schema)
            }
            let old = (0 ..< KillTests.rows / 3).map { KillTests.record($0, version: 1) }.joined(separator: "\n")
            TestSupport.write(old, to: directory.appendingPathComponent("old.jsonl"))
            try TestSupport.runImport([directory.appendingPathComponent("old.jsonl").path], database: template) { $0.table = "items"; $0.upsert = ["id"] }
            TestSupport.write((0 ..< KillTests.rows).map { KillTests.record($0, version: 2) }.joined(separator: "\n") + "\n", to: URL(fileURLWithPath: input))
        }

        /// Makes `app.db` a fresh copy of the template.
        func reset() throws {
            for suffix in ["", "-journal", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) }
            try FileManager.default.copyItem(atPath: template, toPath: database)
        }

        /// Files next to the database that should not outlive a run.
        func strayFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("app.db-") || $0.hasPrefix(".") }
        }

        /// After a kill, SQLite's own files may stay until the next write (a journal that
        /// never became hot is left as it is), and the run lock's until the next run
        /// (`RunLock`: no process holds it); anything else is a leak.
        func filesLeftByAKill() throws -> Set<String> {
            Set(try strayFiles()).subtracting(["app.db-journal", "app.db-wal", "app.db-shm", "app.db-sqlimport-lock"])
        }

        func cleanUp() { TestSupport.remove(directory) }
    }

    /// The seeds' table as text: its schema, then its rows sorted. `_sqlimport_runs` is
    /// left out (its times differ from run to run); tests check it apart.
    static func itemsDump(_ path: String) throws -> String {
        try DatabaseQueue(path: path).read { db in
            let schema = try String.fetchAll(db, sql: "SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_schema WHERE tbl_name = 'items' ORDER BY name")
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM items").map { $0.databaseValues.map(TestSupport.describe).joined(separator: "|") }
            return (schema + rows.sorted()).joined(separator: "\n")
        }
    }

    static func integrity(_ path: String) throws -> String {
        try DatabaseQueue(path: path).read { try String.fetchAll($0, sql: "PRAGMA integrity_check").joined(separator: "; ") }
    }

    /// Starts the binary on `arguments` and kills it after `delay` seconds; returns its
    /// exit status if it finished first (and lowers `horizon`, the longest delay worth
    /// drawing, to the time it took), nil if it was killed.
    static func runAndKill(_ arguments: [String], after delay: Double, in directory: URL, horizon: inout Double) throws -> Int32? {
        let start = Date()
        let process = try CronRunTests.launch(arguments, in: directory)
        let deadline = start.addingTimeInterval(delay)
        while process.isRunning, Date() < deadline { usleep(1000) }
        guard process.isRunning else {
            horizon = min(horizon, Date().timeIntervalSince(start))
            return process.terminationStatus
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        return nil
    }

    /// The dump and the duration of a clean run of `arguments` on a fresh copy.
    static func cleanRun(_ fixture: Fixture, _ arguments: [String]) throws -> (dump: String, seconds: Double) {
        try fixture.reset()
        let start = Date()
        let result = try TestSupport.run(arguments, in: fixture.directory)
        #expect(result.status == 0, "\(result.stderr)")
        return (try itemsDump(fixture.database), Date().timeIntervalSince(start))
    }

    @Test(arguments: ["delete", "wal"])
    func killedRunLeavesTheDatabaseUnchangedAndARerunEqualsACleanImport(_ journalMode: String) throws {
        let fixture = try Fixture(journalMode: journalMode)
        defer { fixture.cleanUp() }
        let arguments = [fixture.input, "--db", fixture.database, "--table", "items", "--upsert", "libraryID,remoteID", "-q"]
        let clean = try Self.cleanRun(fixture, arguments)
        let before = try Self.itemsDump(fixture.template)
        try fixture.reset()
        var random = StrategyEquivalenceTests.Generator(state: Self.seed)
        var killed = 0
        var point = 0
        var horizon = clean.seconds
        while killed < Self.kills, point < Self.kills * 3 {
            defer { point += 1 }
            let delay = Double.random(in: 0.01 ... 1, using: &random) * horizon
            let status = try Self.runAndKill(arguments, after: delay, in: fixture.directory, horizon: &horizon)
            #expect(try Self.integrity(fixture.database) == "ok", "kill \(point) after \(delay) s")
            if let status {
                // It finished before the kill: all of it is there.
                #expect(status == 0)
                #expect(try Self.itemsDump(fixture.database) == clean.dump, "run \(point) finished")
                try fixture.reset()
            } else {
                killed += 1
                // Unchanged; or, when the kill came after the commit but before the process
                // ended (a slow exit, as under AddressSanitizer), all of the input.
                let dump = try Self.itemsDump(fixture.database)
                #expect(dump == before || dump == clean.dump, "kill \(point) after \(String(format: "%.3f", delay)) s (seed \(Self.seed))")
                if dump == clean.dump { try fixture.reset() }
            }
            #expect(try fixture.filesLeftByAKill().isEmpty, "kill \(point)")
        }
        #expect(killed == Self.kills, "\(point) runs, \(killed) killed: most runs should be killed, not finish")
        let rerun = try TestSupport.run(arguments, in: fixture.directory)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try Self.itemsDump(fixture.database) == clean.dump)
        #expect(try fixture.strayFiles().isEmpty)
        print("KillTests \(journalMode): \(killed) of \(point) runs killed, \(Self.rows) records (a clean run takes \(String(format: "%.2f", clean.seconds)) s), seed \(Self.seed)")
    }

    @Test(arguments: ["delete", "wal"])
    func killedCheckpointedRunKeepsExactlyItsCheckpointsAndResumesToACleanImport(_ journalMode: String) throws {
        let fixture = try Fixture(journalMode: journalMode)
        defer { fixture.cleanUp() }
        let every = Self.commitEvery
        let arguments = [
            fixture.input, "--db", fixture.database, "--table", "items", "--upsert", "libraryID,remoteID", "--commit-every", "\(every)", "--resume", "-q",
        ]
        let clean = try Self.cleanRun(fixture, arguments)
        // What the database holds once the first `count` records are committed.
        var expected: [Int: String] = [0: try Self.itemsDump(fixture.template), Self.rows: clean.dump]
        let lines = try String(contentsOfFile: fixture.input, encoding: .utf8).split(separator: "\n")
        func expectedDump(committed count: Int) throws -> String {
            if let known = expected[count] { return known }
            let prefix = fixture.directory.appendingPathComponent("prefix.jsonl")
            TestSupport.write(lines.prefix(count).joined(separator: "\n"), to: prefix)
            let copy = fixture.directory.appendingPathComponent("expected.db").path
            try? FileManager.default.removeItem(atPath: copy)
            try FileManager.default.copyItem(atPath: fixture.template, toPath: copy)
            try TestSupport.runImport([prefix.path], database: copy) { $0.table = "items"; $0.upsert = ["libraryID", "remoteID"] }
            expected[count] = try Self.itemsDump(copy)
            try FileManager.default.removeItem(atPath: copy)
            return expected[count]!
        }

        try fixture.reset()
        var random = StrategyEquivalenceTests.Generator(state: Self.seed &+ 1)
        var killed = 0
        var point = 0
        var checkpoints: Set<Int> = []
        // A resumed run is shorter than a whole one, by how much depends on the build and
        // the machine: the longest delay drawn shrinks when a run finishes first and
        // grows back when one is killed.
        var horizon = clean.seconds
        while killed < Self.kills, point < Self.kills * 6 {
            defer { point += 1 }
            let delay = Double.random(in: 0.01 ... 1, using: &random) * horizon
            var unused = horizon
            let status = try Self.runAndKill(arguments, after: delay, in: fixture.directory, horizon: &unused)
            horizon = status == nil ? min(horizon * 1.1, clean.seconds) : max(horizon * 0.8, clean.seconds * 0.1)
            #expect(try Self.integrity(fixture.database) == "ok", "kill \(point)")
            let progress = try DatabaseQueue(path: fixture.database).read { db in
                try db.tableExists(RunLog.table) ? try Row.fetchOne(db, sql: "SELECT committed_rows, finished FROM \(RunLog.table)") : nil
            }
            let committed: Int = progress?["committed_rows"] ?? 0
            let finished: Bool = progress?["finished"] ?? false
            if status == nil { killed += 1 } else { #expect(status == 0) }
            #expect(committed % every == 0 || committed == Self.rows, "kill \(point): \(committed) records committed")
            // A kill between the last checkpoint and the final commit leaves every record
            // committed and the input not yet marked finished: --resume then finishes it.
            #expect(!finished || committed == Self.rows)
            #expect(try Self.itemsDump(fixture.database) == expectedDump(committed: committed), "kill \(point) after \(String(format: "%.3f", delay)) s with \(committed) committed (seed \(Self.seed))")
            #expect(try fixture.filesLeftByAKill().isEmpty, "kill \(point)")
            checkpoints.insert(committed)
            if finished { try fixture.reset() }  // start over, so that later kills land mid-run
        }
        #expect(killed == Self.kills, "\(point) runs, \(killed) killed")
        #expect(checkpoints.count >= 3, "kills should land at several checkpoints: \(checkpoints.sorted())")
        let resumed = try TestSupport.run(arguments, in: fixture.directory)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try Self.itemsDump(fixture.database) == clean.dump)
        #expect(try fixture.strayFiles().isEmpty)
        print("KillTests \(journalMode) --commit-every \(every): \(killed) of \(point) runs killed at checkpoints \(checkpoints.sorted()), seed \(Self.seed)")
    }
}
