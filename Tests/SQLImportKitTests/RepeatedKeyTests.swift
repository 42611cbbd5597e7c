import Foundation
@testable import SQLImportKit
import GRDB
import Testing

/// Repeated keys in one input (found in review): a record is left unwritten only where
/// writing it and then the later record would leave the same row.
@Suite struct RepeatedKeyTests {
    struct Workspace {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("app.db").path }
        init(_ schema: String) throws { try TestSupport.createDatabase(database, schema: schema) }
        func run(_ lines: [String], _ arguments: [String]) throws -> TestSupport.Output {
            _ = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("t.jsonl"))
            return try TestSupport.run(["t.jsonl", "--db", database, "--table", "t"] + arguments, in: directory)
        }
        func rows() throws -> [String] {
            try DatabaseQueue(path: database).read { db in
                try Row.fetchAll(db, sql: "SELECT * FROM t ORDER BY 1").map { $0.databaseValues.map(\.description).joined(separator: "|") }
            }
        }
        func cleanUp() { TestSupport.remove(directory) }
    }

    static let schema = "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, email TEXT, ts INTEGER);"

    @Test func aLaterRecordWithFewerFieldsLeavesTheEarlierOnesFieldsInPlace() throws {
        let work = try Workspace(Self.schema)
        defer { work.cleanUp() }
        let run = try work.run([#"{"id":1,"name":"a","email":"x"}"#, #"{"id":1,"name":"b"}"#], ["--upsert", "id"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try work.rows() == [#"1|"b"|"x"|NULL"#])
    }

    /// In a TEXT key column the JSON integer 42 and the string "42" are one key.
    @Test func anIntegerAndItsDigitsAreOneKeyInATextColumn() throws {
        let work = try Workspace("CREATE TABLE t (code TEXT PRIMARY KEY, v TEXT);")
        defer { work.cleanUp() }
        let run = try work.run(
            [#"{"code":42,"v":"a"}"#, #"{"code":"42","v":"b"}"#, #"{"code":-9223372036854775808,"v":"c"}"#, #"{"code":"-9223372036854775808","v":"d"}"#],
            ["--upsert", "code", "--report", "-"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        #expect((report["counts"] as! [String: Int])["duplicateKeys"] == 2)
        #expect(try work.rows() == [#""-9223372036854775808"|"d""#, #""42"|"b""#])
    }

    /// A record after a tombstone that deleted its key's row makes a new row, no repeat
    /// (docs/import.md). Where repeats are counted by key, not by rowid (WITHOUT ROWID
    /// tables, dry runs), the key stayed known: counted, and `--duplicate-keys error`
    /// refused a valid input with exit 65 (a helper).
    @Test(arguments: ["", " WITHOUT ROWID"], [false, true])
    func aRecordAfterATombstoneThatDeletedItsRowIsNoRepeat(table: String, dryRun: Bool) throws {
        let work = try Workspace("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER)\(table);")
        defer { work.cleanUp() }
        // Many keys, so that removing one from the ledger moves others within it.
        let keys = (0 ..< 2_000).map { _ in UUID().uuidString }
        let lines = keys.map { #"{"k":"\#($0)","v":1}"# } + keys.prefix(500).map { #"{"k":"\#($0)","gone":true}"# }
            + keys.prefix(500).map { #"{"k":"\#($0)","v":2}"# } + keys.suffix(3).map { #"{"k":"\#($0)","v":3}"# }
        let run = try work.run(lines, ["--upsert", "k", "--tombstone", "gone", "--report", "-"] + (dryRun ? ["--dry-run"] : []))
        #expect(run.status == 0, "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
        let counts = report["counts"] as! [String: Int]
        #expect(counts["duplicateKeys"] == 3 && counts["deleted"] == 500, "\(counts)")
        let strict = try work.run(lines.dropLast(3), ["--upsert", "k", "--tombstone", "gone", "--duplicate-keys", "error"] + (dryRun ? ["--dry-run"] : []))
        #expect(strict.status == 0, "\(strict.stderr)")
        if !dryRun {
            #expect(try work.rows().count == 2_000)
            #expect(try DatabaseQueue(path: work.database).read { try Int.fetchOne($0, sql: "SELECT sum(v) FROM t") } == 2_500)
        }
    }

    /// The warning names the first repeat's key, read from its row just after the
    /// statement that met it: read at the end, a row a tombstone deleted printed `("k") =
    /// (?)`, one whose rowid a later record took `("k") = ("c")` for a repeat of "a" (a
    /// review), and then any deletion in the run left the values out, even of another
    /// row (helper-85).
    @Test func theRepeatWarningNamesTheKeyThoughItsRowIsDeletedLater() throws {
        let work = try Workspace("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER); INSERT INTO t VALUES ('old', 0);")
        defer { work.cleanUp() }
        let kept = try work.run([#"{"k":"a","v":1}"#, #"{"k":"a","v":2}"#], ["--upsert", "k"])
        #expect(kept.stderr.contains(#"(first: a record repeats ("k") = ("a"))"#), "\(kept.stderr)")
        let deleted = try work.run([#"{"k":"b","v":1}"#, #"{"k":"b","v":2}"#, #"{"k":"b","gone":true}"#], ["--upsert", "k", "--tombstone", "gone"])
        #expect(deleted.status == 0 && deleted.stderr.contains(#"(first: a record repeats ("k") = ("b"))"#), "\(deleted.stderr)")
        let reused = try work.run(
            [#"{"k":"x","v":0}"#, #"{"k":"y","v":1}"#, #"{"k":"y","v":2}"#, #"{"k":"y","gone":true}"#, #"{"k":"z","v":9}"#], ["--upsert", "k", "--tombstone", "gone"])
        #expect(reused.status == 0 && reused.stderr.contains(#"(first: a record repeats ("k") = ("y"))"#) && !reused.stderr.contains(#"("z")"#), "\(reused.stderr)")
        let other = try work.run([#"{"k":"c","v":1}"#, #"{"k":"c","v":2}"#, #"{"k":"old","gone":true}"#], ["--upsert", "k", "--tombstone", "gone"])
        #expect(other.status == 0 && other.stderr.contains(#"(first: a record repeats ("k") = ("c"))"#), "\(other.stderr)")
    }

    /// Removing a key from the ledger's open addressing keeps every other key findable,
    /// across a cluster of one home slot and around the end of the table.
    @Test func aKeyRemovedFromTheLedgerLeavesTheOthersFindable() {
        var model: [UInt64: UInt64] = [:]
        let ledger = KeyLedger(capacity: 16)
        var generator = SystemRandomNumberGenerator()
        for step in 0 ..< 5_000 {
            // Few distinct fingerprints, many sharing home slots 14 and 15 (wrapping).
            let fingerprint = UInt64.random(in: 0 ..< 4, using: &generator) * 16 + 14 + UInt64.random(in: 0 ..< 2, using: &generator)
                + (step % 3 == 0 ? UInt64.random(in: 1 ..< 40, using: &generator) : 0)
            if Bool.random(using: &generator) {
                ledger.remove(fingerprint)
                model[fingerprint] = nil
            } else {
                #expect(ledger.insert(fingerprint, position: UInt64(step)) == model[fingerprint])
                if model[fingerprint] == nil { model[fingerprint] = UInt64(step) }
            }
            #expect(ledger.count == model.count)
        }
    }

    @Test func newerAndIgnoreDecideBetweenRepeatsAsTheyDoBetweenRuns() throws {
        let newer = try Workspace(Self.schema)
        defer { newer.cleanUp() }
        #expect(try newer.run([#"{"id":1,"name":"new","ts":10}"#, #"{"id":1,"name":"old","ts":5}"#], ["--upsert", "id", "--merge", "newer:ts"]).status == 0)
        #expect(try newer.rows() == [#"1|"new"|NULL|10"#])
        let ignore = try Workspace(Self.schema)
        defer { ignore.cleanUp() }
        #expect(try ignore.run([#"{"id":1,"name":"first"}"#, #"{"id":1,"name":"second"}"#], ["--upsert", "id", "--merge", "ignore"]).status == 0)
        #expect(try ignore.rows() == [#"1|"first"|NULL|NULL"#])
    }

    /// A record a BEFORE UPDATE trigger drops (`RAISE(IGNORE)`) after it met its row was
    /// uncounted as a repeat, while `--duplicate-keys error` refused it as one, and a dry
    /// run counted it: now all three agree.
    @Test(arguments: [
        ([#"{"id":"a","v":"A","locked":1}"#, #"{"id":"a","v":"A2","locked":1}"#], 1),  // unchanged, then dropped
        ([#"{"id":"b","v":"B2","locked":1}"#, #"{"id":"b","v":"B3","locked":1}"#], 2),  // both dropped
    ])
    func aRepeatATriggerDropsIsCountedAsEveryModeCountsIt(_ lines: [String], _ ignored: Int) throws {
        let workspace = try Workspace(
            """
            CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT, locked INTEGER NOT NULL DEFAULT 0);
            CREATE TRIGGER keep BEFORE UPDATE ON t WHEN old.locked = 1 BEGIN SELECT RAISE(IGNORE); END;
            INSERT INTO t VALUES ('a', 'A', 1), ('b', 'B', 1);
            """)
        defer { workspace.cleanUp() }
        let before = try workspace.rows()
        for mode in [["--duplicate-keys", "warn"], ["--dry-run"]] {
            let run = try workspace.run(lines, ["--upsert", "id", "--report", "-"] + mode)
            #expect(run.status == 0, "\(mode): \(run.stderr)")
            let counts = (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any])["counts"] as! [String: Int]
            #expect(counts["duplicateKeys"] == 1, "\(mode): \(counts)")
            if mode[0] != "--dry-run" { #expect(counts["ignored"] == ignored, "\(counts)") }
        }
        let refused = try workspace.run(lines, ["--upsert", "id", "--duplicate-keys", "error"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(try workspace.rows() == before)
    }

    @Test func aRecordLackingAKeyColumnHasNoKey() throws {
        let work = try Workspace("CREATE TABLE t (name TEXT, libraryID INTEGER, remoteID TEXT, UNIQUE (libraryID, remoteID));")
        defer { work.cleanUp() }
        let lines = [#"{"libraryID":1,"remoteID":"r","name":"keyed"}"#, #"{"libraryID":1,"name":"a"}"#, #"{"libraryID":1,"name":"b"}"#]
        let refused = try work.run(lines, ["--upsert", "libraryID,remoteID"])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("t.jsonl:2") && refused.stderr.contains("--null-key"), "\(refused.stderr)")
        let inserted = try work.run(lines, ["--upsert", "libraryID,remoteID", "--null-key", "insert"])
        #expect(inserted.status == 0, "\(inserted.stderr)")
        #expect(try work.rows().count == 3)
    }

    @Test func duplicateKeysErrorStopsTheRunEvenWhenBadRecordsAreSetAside() throws {
        let work = try Workspace(Self.schema)
        defer { work.cleanUp() }
        // Different fields, so the first is written and the repeat is found by SQLite.
        let run = try work.run([#"{"id":1,"name":"a","email":"x"}"#, #"{"id":1,"name":"b"}"#], ["--upsert", "id", "--duplicate-keys", "error", "--on-error", "skip"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("t.jsonl:2") && run.stderr.contains("--duplicate-keys error"), "\(run.stderr)")
        #expect(try work.rows().isEmpty)
    }

    /// A chunk of a multi-row statement holding a record whose parent is missing and a
    /// later record with the same key and a parent: SQLite checks foreign keys at the end
    /// of a statement, so the first would pass there and be refused alone.
    @Test func repeatedKeysNeverShareAMultiRowStatement() throws {
        let schema = """
            CREATE TABLE parent (id INTEGER PRIMARY KEY);
            INSERT INTO parent VALUES (1);
            CREATE TABLE t (id TEXT PRIMARY KEY, parent_id INTEGER REFERENCES parent (id), v TEXT);
            """
        var results: [([String: Int], [String])] = []
        for strategy in ["cached", "multirow"] {
            let work = try Workspace(schema)
            defer { work.cleanUp() }
            let run = try work.run(
                [#"{"id":"a","parent_id":9,"v":"1"}"#, #"{"id":"a","parent_id":1,"v":"2"}"#],
                ["--upsert", "id", "--strategy", strategy, "--on-error", "skip", "--report", "-"])
            #expect(run.status == 2, "\(strategy): \(run.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as! [String: Any]
            results.append((report["counts"] as! [String: Int], try work.rows()))
        }
        #expect(results[0].0 == results[1].0 && results[0].1 == results[1].1, "\(results)")
        #expect(results[0].0["rejected"] == 1 && results[0].0["inserted"] == 1)
    }
}

/// Found in review: what a refused JSON Lines line and a changed input must not take
/// with them.
@Suite struct ReviewRegressionTests {
    @Test func goodLinesAfterALongRefusedLineAreKept() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let text = #"{"id":1}"# + "\n" + String(repeating: "x", count: 70_000) + "\n" + (2 ... 50).map { #"{"id":\#($0)}"# }.joined(separator: "\n") + "\n"
        _ = TestSupport.write(text, to: directory.appendingPathComponent("t.jsonl"))
        let run = try TestSupport.run(
            ["t.jsonl", "--db", "db", "--table", "t", "--max-record-bytes", "65536", "--on-error", "skip", "--rejects", "r.jsonl"], in: directory)
        #expect(run.status == 2, "\(run.stderr)")
        #expect(try DatabaseQueue(path: directory.appendingPathComponent("db").path).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 50)
        let rejects = try String(contentsOf: directory.appendingPathComponent("r.jsonl"), encoding: .utf8)
        #expect(rejects.contains(#""line":2"#), "\(rejects.prefix(200))")
    }

    @Test func aChangedInputIsNotRestartedWithoutUpsert() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id INTEGER, v TEXT);")
        let input = TestSupport.write((1 ... 100).map { #"{"id":\#($0),"v":"x"}"# }.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        try DatabaseQueue(path: database).write { db in
            try RunLog.ensureTable(db)
            try RunLog.save(db, target: "t", path: input, entry: RunLog.Entry(
                fingerprint: RunLog.Fingerprint(size: 1, checksum: 2, modifiedNanoseconds: 3, inode: 4), committedOffset: 10, committedRows: 1, finished: false))
        }
        let run = try TestSupport.run([input, "--db", database, "--table", "t", "--commit-every", "10", "--resume"], in: directory)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("has changed since the interrupted run"), "\(run.stderr)")
    }
}
