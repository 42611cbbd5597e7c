import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// The mission's command on the seeds' schema, with every strategy.
@Suite struct UpsertTests {
    static let strategies: [WriteStrategyKind] = [.typed, .cached, .multirow, .auto]

    struct Item: Codable {
        var id: String
        var name: String
        var libraryID: Int
        var remoteID: String?
        var notes: String?
        var updatedAt: String
    }

    static func items(_ range: ClosedRange<Int>, nullRemoteEvery: Int = 0, day: Int = 1, suffix: String = "") -> [Item] {
        range.map { i in
            Item(
                id: "id-\(i)", name: "item \(i)\(suffix)", libraryID: i % 3,
                remoteID: nullRemoteEvery > 0 && i % nullRemoteEvery == 0 ? nil : "r\(i)",
                notes: i % 4 == 0 ? nil : "note \(i)", updatedAt: String(format: "2026-11-%02dT00:00:00Z", day))
        }
    }

    static func jsonl(_ items: [Item]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return items.map { String(decoding: try! encoder.encode($0), as: UTF8.self) }.joined(separator: "\n") + "\n"
    }

    /// A database with the seeds' schema and a folder for inputs.
    struct Fixture {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("app.db").path }

        init(schema: String = TestSupport.seedsSchema) throws {
            try TestSupport.createDatabase(database, schema: schema)
        }

        func input(_ items: [Item], name: String = "items.jsonl") -> String {
            TestSupport.write(UpsertTests.jsonl(items), to: directory.appendingPathComponent(name))
        }

        @discardableResult
        func run(_ input: String, strategy: WriteStrategyKind, _ configure: (inout ImportOptions) -> Void = { _ in }) throws -> OutcomeCounts {
            try TestSupport.runImport([input], database: database) { options in
                options.table = "items"
                options.upsert = ["libraryID", "remoteID"]
                options.strategy = strategy
                options.rowsPerBatch = 97  // many batches, and runs that straddle them
                configure(&options)
            }.counts
        }

        func dump() throws -> String { try TestSupport.dump(database) }
        func cleanUp() { TestSupport.remove(directory) }
    }

    /// A table named `excluded` (any case) is updated as any other, under every merge
    /// policy, with a partial target and its primary-key clause, and an indexed column
    /// (a guarded one): SQLite looks a qualifier up in the table before the upsert's
    /// `excluded`, so `excluded."v"` named the stored value, every record was unchanged,
    /// and no row was ever updated. The index's predicate may name the table (`WHERE
    /// excluded.remote IS NOT NULL`): every record stopped with "no such column" under
    /// the statement's alias. The oracle: one plain upsert per record.
    @Test(arguments: strategies, ["remote", "excluded.remote", "\"EXCLUDED\" . remote"])
    func aTableNamedExcludedIsUpdatedAsAnyOther(_ strategy: WriteStrategyKind, predicateColumn: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let schema = """
            CREATE TABLE "Excluded" (id TEXT PRIMARY KEY, lib INTEGER, remote TEXT, v TEXT, ts INTEGER, tag TEXT);
            CREATE UNIQUE INDEX excluded_identity ON "Excluded" (lib, remote) WHERE \(predicateColumn) IS NOT NULL;
            CREATE INDEX excluded_tag ON "Excluded" (tag);
            INSERT INTO "Excluded" VALUES ('a', 1, 'r1', 'old', 5, 't1'), ('b', 1, 'r2', 'old', 5, 't1'), ('c', 1, NULL, 'old', 5, 't1');
            """
        let records = [
            #"{"id":"a","lib":1,"remote":"r1","v":"new","ts":6,"tag":"t2"}"#, #"{"id":"b","lib":1,"remote":"r2","v":null,"ts":4,"tag":"t1"}"#,
            #"{"id":"c","lib":1,"remote":null,"v":"new","ts":6,"tag":"t1"}"#, #"{"id":"d","lib":1,"remote":"r4","v":"new","ts":1,"tag":"t3"}"#,
        ]
        let input = TestSupport.write(records.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("e.jsonl"))
        for (policy, set) in [
            (MergePolicy.replace, "v = excluded.v, ts = excluded.ts, tag = excluded.tag"),
            (.coalesce, "v = coalesce(excluded.v, o.v), ts = coalesce(excluded.ts, o.ts), tag = coalesce(excluded.tag, o.tag)"),
            (.newer(column: "ts"), "v = excluded.v, ts = excluded.ts, tag = excluded.tag"),
        ] {
            let database = directory.appendingPathComponent("e.db").path
            let oracle = directory.appendingPathComponent("oracle.db").path
            for path in [database, oracle] {
                try? FileManager.default.removeItem(atPath: path)
                try TestSupport.createDatabase(path, schema: schema)
            }
            _ = try TestSupport.runImport([input], database: database) {
                $0.table = "excluded"
                $0.upsert = ["lib", "remote"]
                $0.strategy = strategy
                $0.merge = policy
                $0.nullKey = .insert
            }
            let newer = policy == .replace || policy == .coalesce ? "" : " WHERE o.ts IS NULL OR excluded.ts >= o.ts"
            try DatabaseQueue(path: oracle).write { db in
                for record in records {
                    let row = try JSONSerialization.jsonObject(with: Data(record.utf8)) as! [String: Any]
                    let values: [DatabaseValueConvertible?] = ["id", "lib", "remote", "v", "ts", "tag"].map { row[$0] is NSNull ? nil : row[$0] as? DatabaseValueConvertible }
                    let conflict = row["remote"] is NSNull ? "(id)" : "(lib, remote) WHERE remote IS NOT NULL"
                    try db.execute(
                        sql: "INSERT INTO \"Excluded\" AS o VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT \(conflict) DO UPDATE SET \(set)\(newer)",
                        arguments: StatementArguments(values))
                }
            }
            #expect(try TestSupport.dump(database) == TestSupport.dump(oracle), "\(policy)")
            #expect(try DatabaseQueue(path: database).read { try String.fetchOne($0, sql: "SELECT v FROM excluded WHERE id = 'a'") } == "new", "\(policy)")
        }
    }

    @Test(arguments: strategies)
    func rerunOfTheSameFileChangesNothing(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        let input = fixture.input(Self.items(1 ... 1000))
        let first = try fixture.run(input, strategy: strategy)
        #expect(first.read == 1000)
        #expect(first.inserted == 1000)
        #expect(first.updated == 0)
        let before = try fixture.dump()
        let second = try fixture.run(input, strategy: strategy)
        #expect(second.inserted == 0)
        #expect(second.updated == 0)
        #expect(second.unchanged == 1000)
        #expect(try fixture.dump() == before)
    }

    @Test(arguments: strategies)
    func deltaWithChangedAndNewKeysGivesExactCounts(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.run(fixture.input(Self.items(1 ... 1000)), strategy: strategy)
        // 10% changed, 10% new, 80% as they were.
        var delta = Self.items(1 ... 800)
        delta += Self.items(801 ... 900, day: 2, suffix: " (changed)")
        delta += Self.items(1001 ... 1100)
        let counts = try fixture.run(fixture.input(delta.shuffled(), name: "delta.jsonl"), strategy: strategy)
        #expect(counts.read == 1000)
        #expect(counts.inserted == 100)
        #expect(counts.updated == 100)
        #expect(counts.unchanged == 800)
        let renamed = try DatabaseQueue(path: fixture.database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items WHERE name LIKE '%(changed)'") }
        #expect(renamed == 100)
    }

    @Test(arguments: strategies)
    func newerPolicySkipsOlderRowsAndTieGoesToTheArrivingRow(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.run(fixture.input(Self.items(1 ... 300, day: 10)), strategy: strategy)
        var input = Self.items(1 ... 100, day: 5, suffix: " older")  // skipped
        input += Self.items(101 ... 200, day: 10, suffix: " tie")  // tie: applied
        input += Self.items(201 ... 300, day: 20, suffix: " newer")  // applied
        let counts = try fixture.run(fixture.input(input, name: "mixed.jsonl"), strategy: strategy) { $0.merge = .newer(column: "updatedAt") }
        #expect(counts.skipped == 100)
        #expect(counts.updated == 200)
        #expect(counts.inserted == 0)
        let names = try DatabaseQueue(path: fixture.database).read { try String.fetchAll($0, sql: "SELECT name FROM items ORDER BY CAST(substr(id, 4) AS INTEGER)") }
        #expect(names[0] == "item 1")
        #expect(names[150] == "item 151 tie")
        #expect(names[250] == "item 251 newer")
    }

    /// `newer:COL` compares as SQLite orders values, so a time written in another form
    /// than the stored one is not compared by time: `2026-11-30 10:00:00` sorts before
    /// `2026-11-30T09:00:00Z`, and the older record won without a word (helper-85). Such
    /// comparisons are counted (`newerMixedForms`) and warned about, naming the first pair;
    /// those of one form are not. And `newer:` on a key column, where every record wins,
    /// is refused.
    @Test(arguments: strategies)
    func newerComparisonsOfValuesOfOtherFormsAreCountedAndNamed(_ strategy: WriteStrategyKind) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("t.db").path
        try TestSupport.createDatabase(database, schema: """
            CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT, updatedAt);
            INSERT INTO t VALUES ('a', 'stored', '2026-11-30 10:00:00'), ('b', 'stored', '2026-11-30T10:00:00Z'), ('c', 'stored', 1764496800),
              ('d', 'stored', '2026-11-30T10:00:00.500Z'), ('e', 'stored', 5),
              ('f', 'stored', '01JDQ8Z3K4M5N6P7Q8R9S0T1V2'), ('g', 'stored', '0193f2a4-7b1c-7d3e-8f90-a1b2c3d4e5f6');
            """)
        let input = TestSupport.write(
            [#"{"id":"a","v":"older","updatedAt":"2026-11-30T09:00:00Z"}"#, #"{"id":"b","v":"newer","updatedAt":"2026-11-30T11:00:00Z"}"#,
             #"{"id":"c","v":"older","updatedAt":"2020-01-01"}"#, #"{"id":"d","v":"newer","updatedAt":"2026-11-30T11:00:00Z"}"#,
             #"{"id":"e","v":"newer","updatedAt":7.5}"#,
             // ULIDs and UUIDv7s sort as they are made: one form (helper-86).
             #"{"id":"f","v":"newer","updatedAt":"01JDQ9A1B2C3D4E5F6G7H8J9K0"}"#, #"{"id":"g","v":"newer","updatedAt":"0193f2a5-0c2d-7e4f-9a01-b2c3d4e5f6a7"}"#,
            ].joined(separator: "\n") + "\n",
            to: directory.appendingPathComponent("in.jsonl"))
        let summary = try TestSupport.runImport([input], database: database) {
            $0.table = "t"
            $0.upsert = ["id"]
            $0.merge = .newer(column: "updatedAt")
            $0.strategy = strategy
        }
        #expect(summary.counts.newerMixedForms == 3, "\(summary.counts)")
        let warning = summary.warnings.first { $0.contains("newer:updatedAt") } ?? ""
        #expect(warning.hasPrefix("3 record(s) were compared by --merge newer:updatedAt with a stored value of another form (first: '2026-11-30T09:00:00Z' against '2026-11-30 10:00:00')"), "\(summary.warnings)")
        let refused = try TestSupport.run([input, "--db", database, "--table", "t", "--upsert", "id", "--merge", "newer:ID"], in: directory)
        #expect(refused.status == 64 && refused.stderr.contains("--merge newer:ID names a column of --upsert"), "\(refused.stderr)")
    }

    /// A record of key columns alone has nothing to assign, but `newer` still decides: when
    /// the stored row is newer than what the record brings (the column's default), it is
    /// `skipped`, as on PostgreSQL and as the policy documents; it counted as `unchanged`.
    @Test(arguments: strategies)
    func aRecordOfKeyColumnsAloneThatTheStoredRowIsNewerThanIsSkipped(_ strategy: WriteStrategyKind) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        try TestSupport.createDatabase(
            directory.appendingPathComponent("app.db").path,
            schema: "CREATE TABLE t (id TEXT PRIMARY KEY, ts TEXT, v INTEGER); INSERT INTO t VALUES ('a', '2026', 1), ('b', NULL, 1), ('c', '2026', 1);")
        TestSupport.write(#"{"id":"a"}"# + "\n" + #"{"id":"b"}"# + "\n" + #"{"id":"c","ts":"2027"}"# + "\n", to: directory.appendingPathComponent("k.jsonl"))
        let run = try TestSupport.run(
            ["k.jsonl", "--db", "app.db", "--table", "t", "--upsert", "id", "--merge", "newer:ts", "--strategy", strategy.rawValue, "--report", "r.json"], in: directory)
        #expect(run.status == 0, "\(run.stderr)")
        let counts = try PostgresTargetTests.counts(directory.appendingPathComponent("r.json"))
        #expect(counts["skipped"] == 1 && counts["unchanged"] == 1 && counts["updated"] == 1, "\(counts)")
    }

    @Test(arguments: strategies)
    func rowsOutsideThePartialIndexAreIdempotentThroughThePrimaryKey(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        let input = fixture.input(Self.items(1 ... 500, nullRemoteEvery: 10))
        let first = try fixture.run(input, strategy: strategy)
        #expect(first.inserted == 500)
        #expect(first.outsidePartialIndex == 50)
        let before = try fixture.dump()
        let second = try fixture.run(input, strategy: strategy)
        #expect(second.inserted == 0)
        #expect(second.unchanged == 500)
        #expect(second.outsidePartialIndex == 50)
        #expect(try fixture.dump() == before)
    }

    @Test(arguments: strategies)
    func withoutAPrimaryKeyRowsOutsideThePredicateStopTheRunUnlessTheUserChooses(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture(schema: """
            CREATE TABLE items (name TEXT, libraryID INTEGER, remoteID TEXT);
            CREATE UNIQUE INDEX by_remote ON items (libraryID, remoteID) WHERE remoteID IS NOT NULL;
            """)
        defer { fixture.cleanUp() }
        let input = TestSupport.write(#"{"name":"a","libraryID":1,"remoteID":"x"}\#n{"name":"b","libraryID":1,"remoteID":null}"#, to: fixture.directory.appendingPathComponent("i.jsonl"))
        func run(_ policy: ImportOptions.NullKeyPolicy?) throws -> ImportSummary {
            try TestSupport.runImport([input], database: fixture.database) {
                $0.table = "items"
                $0.upsert = ["remoteID", "libraryID"]
                $0.strategy = strategy
                if let policy { $0.nullKey = policy }
            }
        }
        // By default: exit 65's error, naming the line and the flags, nothing committed.
        #expect { try run(nil) } throws: { "\($0)".contains("i.jsonl:2") && "\($0)".contains("--null-key insert") }
        #expect(try DatabaseQueue(path: fixture.database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items") } == 0)
        let skipped = try run(.skip)
        #expect(skipped.counts.nullKey == 1 && skipped.counts.rejected == 1 && skipped.counts.inserted == 1)
        let inserted = try run(.insert)
        #expect(inserted.counts.outsidePartialIndex == 1)
        #expect(inserted.counts.nullKey == 1 && inserted.counts.inserted == 1 && inserted.counts.unchanged == 1)
        #expect(inserted.fallbackKey == nil)
        #expect(inserted.warnings.contains { $0.contains("a re-run will insert them again") && $0.contains("i.jsonl:2") })
    }

    @Test(arguments: strategies)
    func coalesceKeepsStoredValuesWhereTheInputIsNull(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.run(fixture.input(Self.items(1 ... 10)), strategy: strategy)
        var update = Self.items(1 ... 10, suffix: " v2")
        for index in update.indices { update[index].notes = nil }
        let counts = try fixture.run(fixture.input(update, name: "u.jsonl"), strategy: strategy) { $0.merge = .coalesce }
        #expect(counts.updated == 10)
        let notes = try DatabaseQueue(path: fixture.database).read { try String?.fetchAll($0, sql: "SELECT notes FROM items ORDER BY CAST(substr(id, 4) AS INTEGER)") }
        #expect(notes[0] == "note 1")
        #expect(notes[3] == nil)  // was null already
        // Re-running the same coalesce changes nothing.
        let again = try fixture.run(fixture.input(update, name: "u.jsonl"), strategy: strategy) { $0.merge = .coalesce }
        #expect(again.unchanged == 10)
    }

    @Test(arguments: strategies)
    func ignoreKeepsExistingRowsAndCountsThemSkipped(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.run(fixture.input(Self.items(1 ... 10)), strategy: strategy)
        let counts = try fixture.run(fixture.input(Self.items(5 ... 15, suffix: " x"), name: "u.jsonl"), strategy: strategy) { $0.merge = .ignore }
        #expect(counts.inserted == 5)
        #expect(counts.skipped == 6)
        #expect(try DatabaseQueue(path: fixture.database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items WHERE name LIKE '% x'") } == 5)
    }

    @Test(arguments: strategies)
    func laterRecordWinsWhenAKeyAppearsTwiceInOneRun(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        let items = Self.items(1 ... 3) + Self.items(1 ... 3, suffix: " second") + Self.items(1 ... 1, suffix: " third")
        // Every record is written, in order, as one plain upsert per record would.
        let counts = try fixture.run(fixture.input(items), strategy: strategy)
        #expect(counts.inserted == 3)
        #expect(counts.updated == 4)
        #expect(counts.duplicateKeys == 4)
        let names = try DatabaseQueue(path: fixture.database).read { try String.fetchAll($0, sql: "SELECT name FROM items ORDER BY id") }
        #expect(names == ["item 1 third", "item 2 second", "item 3 second"])
        // Across batches the same.
        let other = try Fixture()
        defer { other.cleanUp() }
        let spread = try other.run(other.input(items), strategy: strategy) { $0.rowsPerBatch = 2 }
        #expect(spread.inserted == 3 && spread.updated == 4 && spread.duplicateKeys == 4)
        #expect(try other.dump() == (try fixture.dump()))
        // A re-run of the unchanged file writes each repeated key's row once per record
        // that changes it (item 1: first, second, third), and ends as the first run did.
        let again = try fixture.run(fixture.input(items), strategy: strategy)
        #expect(again.updated == 7 && again.unchanged == 0 && again.duplicateKeys == 4, "\(again)")
        #expect(try other.dump() == (try fixture.dump()))
        // --duplicate-keys error refuses the first repeat, in a batch or across batches,
        // naming its line, and commits nothing.
        for rowsPerBatch in [4096, 2] {
            let strict = try Fixture()
            defer { strict.cleanUp() }
            #expect {
                try strict.run(strict.input(items), strategy: strategy) { $0.duplicateKeys = .error; $0.rowsPerBatch = rowsPerBatch }
            } throws: { "\($0)".contains("items.jsonl:4") && "\($0)".contains("--duplicate-keys error") }
            #expect(try DatabaseQueue(path: strict.database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items") } == 0)
        }
    }

    @Test(arguments: strategies)
    func changingAnIndexedColumnIsWrittenLikeAnyOtherChange(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.run(fixture.input(Self.items(1 ... 300)), strategy: strategy) { $0.upsert = ["id"] }
        // 1...100 renamed (the index columns stay), 101...150 move to another library,
        // 151...160 lose their remoteID, and 161 moves away and back within one chunk.
        var delta = Self.items(1 ... 100, day: 2, suffix: " (renamed)")
        var moved = Self.items(101 ... 150, day: 2)
        for index in moved.indices { moved[index].libraryID += 10 }
        let dropped = (151 ... 160).map { #"{"id":"id-\#($0)","libraryID":\#($0 % 3),"name":"item \#($0)","remoteID":null,"updatedAt":"2026-11-02T00:00:00Z"}"# }
        var away = Self.items(161 ... 161, day: 2)
        away[0].libraryID = 99
        delta += moved
        let text = Self.jsonl(delta) + dropped.joined(separator: "\n") + "\n" + Self.jsonl(away + Self.items(161 ... 161, day: 3, suffix: " (back)"))
        let input = TestSupport.write(text, to: fixture.directory.appendingPathComponent("delta.jsonl"))
        let counts = try fixture.run(input, strategy: strategy) { $0.upsert = ["id"] }
        // 161 is updated twice: away, and back.
        #expect(counts.updated == 162)
        #expect(counts.duplicateKeys == 1)
        #expect(counts.inserted == 0)
        let queue = try DatabaseQueue(path: fixture.database)
        func value(_ sql: String) throws -> String? { try queue.read { try String.fetchOne($0, sql: sql) } }
        #expect(try value("SELECT count(*) FROM items WHERE libraryID >= 10") == "50")
        #expect(try value("SELECT count(*) FROM items WHERE remoteID IS NULL") == "10")
        #expect(try value("SELECT name FROM items WHERE id = 'id-161' AND libraryID = 161 % 3") == "item 161 (back)")
        #expect(try value("SELECT id FROM items INDEXED BY idx_items_sync_identity WHERE libraryID = 101 % 3 + 10 AND remoteID = 'r101'") == "id-101")
        #expect(try value("PRAGMA integrity_check") == "ok")
    }

    @Test(arguments: strategies)
    func aChangeOnlyInCaseOrInStorageClassIsAChange(_ strategy: WriteStrategyKind) throws {
        let fixture = try Fixture(schema: """
            CREATE TABLE items (id TEXT PRIMARY KEY, title TEXT COLLATE NOCASE, label TEXT COLLATE NOCASE, value ANY, amount ANY) STRICT;
            CREATE INDEX items_title ON items (title, amount);
            """)
        defer { fixture.cleanUp() }
        @discardableResult func write(_ text: String, _ name: String) throws -> OutcomeCounts {
            let input = TestSupport.write(text, to: fixture.directory.appendingPathComponent(name))
            return try fixture.run(input, strategy: strategy) { $0.upsert = ["id"] }
        }
        let record = #"{"id":"%@","title":"apple","label":"x","value":1,"amount":2}"#
        try write(["a", "b", "c", "d", "e"].map { record.replacingOccurrences(of: "%@", with: $0) }.joined(separator: "\n"), "a.jsonl")
        let counts = try write("""
            {"id":"a","title":"Apple","label":"x","value":1,"amount":2}
            {"id":"b","title":"apple","label":"X","value":1,"amount":2}
            {"id":"c","title":"apple","label":"x","value":1.0,"amount":2}
            {"id":"d","title":"apple","label":"x","value":1,"amount":2.0}
            {"id":"e","title":"apple","label":"x","value":1,"amount":2}
            """, "b.jsonl")
        #expect(counts.updated == 4)
        #expect(counts.unchanged == 1)
        let rows = try DatabaseQueue(path: fixture.database).read { db in
            try Row.fetchAll(db, sql: "SELECT id, title, label, typeof(value) AS v, typeof(amount) AS a FROM items ORDER BY id").map {
                "\($0["id"] as String) \($0["title"] as String) \($0["label"] as String) \($0["v"] as String) \($0["a"] as String)"
            }
        }
        #expect(rows == [
            "a Apple x integer integer", "b apple X integer integer", "c apple x real integer", "d apple x integer real",
            "e apple x integer integer",
        ])
    }

    @Test func aTableWithTriggersAssignsEveryColumnSoUpdateOfTriggersFireAsBefore() throws {
        let fixture = try Fixture(schema: TestSupport.seedsSchema + """
            CREATE TABLE log (id TEXT);
            CREATE TRIGGER items_remote AFTER UPDATE OF remoteID ON items BEGIN INSERT INTO log VALUES (new.id); END;
            """)
        defer { fixture.cleanUp() }
        try fixture.run(fixture.input(Self.items(1 ... 10)), strategy: .multirow) { $0.upsert = ["id"] }
        let renamed = fixture.input(Self.items(1 ... 10, day: 2, suffix: " (renamed)"), name: "renamed.jsonl")
        let counts = try fixture.run(renamed, strategy: .multirow) { $0.upsert = ["id"] }
        #expect(counts.updated == 10)
        let logged = try DatabaseQueue(path: fixture.database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM log") }
        #expect(logged == 10)
    }

    @Test func indexColumnsInForeignKeysAreAlwaysAssigned() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: """
                CREATE TABLE library (id INTEGER PRIMARY KEY);
                CREATE TABLE items (id TEXT PRIMARY KEY, libraryID INTEGER REFERENCES library (id), remoteID TEXT, name TEXT);
                CREATE INDEX items_identity ON items (libraryID, remoteID);
                CREATE INDEX items_name ON items (lower(name));
                """)
            #expect(try IndexedColumns.read(db, table: "items") == ["id", "remoteid"])
            try db.execute(sql: "CREATE TABLE tags (itemID TEXT REFERENCES items (id))")
            #expect(try IndexedColumns.read(db, table: "items") == [])
        }
    }

    @Test func columnsAbsentFromTheInputKeepTheirStoredValues() throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        try fixture.run(fixture.input(Self.items(1 ... 2)), strategy: .cached)
        let partial = TestSupport.write(#"{"id":"id-1","libraryID":1,"remoteID":"r1","name":"renamed","updatedAt":"2026-12-01"}"#, to: fixture.directory.appendingPathComponent("p.jsonl"))
        try fixture.run(partial, strategy: .multirow)
        let row = try DatabaseQueue(path: fixture.database).read { try Row.fetchOne($0, sql: "SELECT name, notes FROM items WHERE id = 'id-1'")! }
        #expect(row["name"] as String == "renamed")
        #expect(row["notes"] as String == "note 1")
    }

    @Test func tableWithoutMatchingKeyListsTheKeysThatExist() throws {
        let fixture = try Fixture()
        defer { fixture.cleanUp() }
        let input = fixture.input(Self.items(1 ... 2))
        #expect {
            try fixture.run(input, strategy: .auto) { $0.upsert = ["name"] }
        } throws: { error in
            let text = "\(error)"
            return text.contains("--upsert name matches no primary key") && text.contains("--upsert id  (primary key")
                && text.contains("--upsert libraryID,remoteID  (unique index idx_items_sync_identity, partial: WHERE remoteID IS NOT NULL)")
                && text.contains("--create-index")
        }
    }

    /// A table with no unique key is told to add one, not to "use one of them" (a helper).
    @Test func aTableWithoutAnyUniqueKeyIsToldToCreateOne() {
        let text = UpsertError.noMatchingKey(table: "t", requested: ["uid"], available: []).description
        #expect(text.hasSuffix("The table has no unique key at all.\nAdd --create-index to create a unique index on (uid)."), "\(text)")
    }

    @Test func createIndexAddsAUniqueIndexAndRefusesDuplicates() throws {
        let fixture = try Fixture(schema: "CREATE TABLE items (sku TEXT, name TEXT)")
        defer { fixture.cleanUp() }
        let first = TestSupport.write(#"{"sku":"a","name":"1"}\#n{"sku":"b","name":"2"}"#, to: fixture.directory.appendingPathComponent("a.jsonl"))
        let summary = try TestSupport.runImport([first], database: fixture.database) {
            $0.table = "items"
            $0.upsert = ["sku"]
            $0.createIndex = true
        }
        #expect(summary.createdIndex?.contains("CREATE UNIQUE INDEX") == true)
        let again = try TestSupport.runImport([first], database: fixture.database) { $0.table = "items"; $0.upsert = ["sku"] }
        #expect(again.counts.unchanged == 2)

        let other = try Fixture(schema: "CREATE TABLE items (sku TEXT, name TEXT); INSERT INTO items VALUES ('a', 'x'), ('a', 'y');")
        defer { other.cleanUp() }
        #expect {
            try TestSupport.runImport([first], database: other.database) { $0.table = "items"; $0.upsert = ["sku"]; $0.createIndex = true }
        } throws: { error in
            "\(error)".contains("already holds several rows with (sku) = (\"a\")")
        }
    }

    @Test func keysMatchInAnyOrderAndIgnoringCase() throws {
        let schema = try DatabaseQueue().write { db -> TableSchema in
            try db.execute(sql: TestSupport.seedsSchema)
            return try TableSchema.read(db, table: "items")!
        }
        #expect(try ConflictTarget.resolve(requested: ["REMOTEID", "libraryid"], in: schema).indexName == "idx_items_sync_identity")
        #expect(try ConflictTarget.resolve(requested: ["id"], in: schema).origin == .primaryKey)
    }

    @Test func rowidAliasAndUniqueConstraintsAreTargets() throws {
        let schema = try DatabaseQueue().write { db -> TableSchema in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b TEXT, UNIQUE (a, b))")
            return try TableSchema.read(db, table: "t")!
        }
        #expect(try ConflictTarget.resolve(requested: ["id"], in: schema).indexName == nil)
        #expect(try ConflictTarget.resolve(requested: ["b", "a"], in: schema).origin == .uniqueConstraint)
    }
}

/// The `auto` rule, as README.md and bench/README.md state it.
@Suite struct AutoStrategyTests {
    @Test func autoPicksByWhatTheLoadMustMaintain() {
        #expect(WriteStrategyKind.choose(tableWasEmpty: true, maintainsIndexes: true).kind == .cached)
        #expect(WriteStrategyKind.choose(tableWasEmpty: true, maintainsIndexes: false).kind == .multirow)
        #expect(WriteStrategyKind.choose(tableWasEmpty: false, maintainsIndexes: true).kind == .multirow)
    }

    @Test func firstLoadDefersSecondaryIndexesAndTheConflictTargetsIndex() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db").path
        try TestSupport.createDatabase(database, schema: TestSupport.seedsSchema)
        let input = TestSupport.write(UpsertTests.jsonl(UpsertTests.items(1 ... 50, nullRemoteEvery: 7)), to: directory.appendingPathComponent("i.jsonl"))
        try DatabaseQueue(path: database).write { try $0.execute(sql: "CREATE INDEX by_name ON items (name)") }
        let byID = try TestSupport.runImport([input], database: database) { $0.table = "items"; $0.upsert = ["id"] }
        // The unique index too: no record conflicted, so it never had to be built early.
        #expect(Set(byID.deferredIndexes) == ["by_name", "idx_items_sync_identity"])
        #expect(byID.strategy == "multirow")
        // The index is back, with its predicate, and the run is idempotent through it.
        let again = try TestSupport.runImport([input], database: database) { $0.table = "items"; $0.upsert = ["libraryID", "remoteID"] }
        #expect(again.deferredIndexes.isEmpty)
        #expect(again.counts.unchanged == 50)

        let other = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(other) }
        let second = other.appendingPathComponent("db").path
        try TestSupport.createDatabase(second, schema: TestSupport.seedsSchema)
        let byIdentity = try TestSupport.runImport([input], database: second) { $0.table = "items"; $0.upsert = ["libraryID", "remoteID"] }
        // The conflict target's own index too (`CREATE UNIQUE INDEX`): no record repeats
        // a key, so it is built once after the load and the load is plain inserts.
        #expect(byIdentity.deferredIndexes == ["idx_items_sync_identity"])
        #expect(byIdentity.indexesBuiltEarly == nil)
        #expect(byIdentity.strategy == "multirow")
    }

    /// A first load into an empty table gives the outcome a load into a non-empty one
    /// gives, whether the duplicate stays (found when the deferred index is built at the
    /// end) or a later record would have resolved it (the first conflict builds the
    /// deferred unique indexes before it runs).
    @Test(arguments: [false, true])
    func aDuplicateOnAnotherUniqueIndexFailsAFirstLoadAsItFailsAnyLoad(_ laterRecordResolvesIt: Bool) throws {
        var items = UpsertTests.items(1 ... 10)
        items[5].remoteID = items[2].remoteID
        items[5].libraryID = items[2].libraryID  // same (libraryID, remoteID), different id
        if laterRecordResolvesIt {
            var moved = items[2]
            moved.remoteID = "moved"
            items.append(moved)  // id 3 again: an update that would end the duplicate
        }
        var outcomes: [Int32] = []
        for nonEmpty in [false, true] {
            let directory = TestSupport.temporaryDirectory()
            defer { TestSupport.remove(directory) }
            let database = directory.appendingPathComponent("db").path
            try TestSupport.createDatabase(database, schema: TestSupport.seedsSchema)
            if nonEmpty {
                let other = TestSupport.write(UpsertTests.jsonl(UpsertTests.items(100 ... 100)), to: directory.appendingPathComponent("o.jsonl"))
                _ = try TestSupport.runImport([other], database: database) { $0.table = "items"; $0.upsert = ["id"] }
            }
            let input = TestSupport.write(UpsertTests.jsonl(items), to: directory.appendingPathComponent("i.jsonl"))
            do {
                // Small batches: the later record is a real conflict, not superseded.
                _ = try TestSupport.runImport([input], database: database) { $0.table = "items"; $0.upsert = ["id"]; $0.rowsPerBatch = 4 }
                outcomes.append(0)
            } catch {
                #expect("\(error)".contains("idx_items_sync_identity") || "\(error)".contains("items.libraryID, items.remoteID"), "\(error)")
                outcomes.append(65)
            }
            let queue = try DatabaseQueue(path: database)
            #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items") } == (nonEmpty ? 1 : 0))
            #expect(try queue.read { try $0.indexes(on: "items").contains { $0.name == "idx_items_sync_identity" } })
        }
        #expect(outcomes == [65, 65])
    }

    @Test func duplicatesAgainstADeferredUniqueIndexAbortTheRun() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db").path
        try TestSupport.createDatabase(database, schema: TestSupport.seedsSchema)
        var items = UpsertTests.items(1 ... 10)
        items[5].remoteID = items[2].remoteID
        items[5].libraryID = items[2].libraryID
        let input = TestSupport.write(UpsertTests.jsonl(items), to: directory.appendingPathComponent("i.jsonl"))
        #expect {
            try TestSupport.runImport([input], database: database) { $0.table = "items"; $0.upsert = ["id"] }
        } throws: { error in
            "\(error)".contains("unique index \"idx_items_sync_identity\"")
        }
        let queue = try DatabaseQueue(path: database)
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items") } == 0)
        #expect(try queue.read { try $0.indexes(on: "items").contains { $0.name == "idx_items_sync_identity" } })
    }

    /// A unique index on a generated column as the target: the run printed its own
    /// statement ("cannot INSERT into generated column"), exit 64 with no fix named.
    @Test func aGeneratedColumnAsTheTargetIsRefusedNamingAnotherKey() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        try TestSupport.createDatabase(directory.appendingPathComponent("app.db").path, schema: """
            CREATE TABLE t (id INTEGER PRIMARY KEY, email TEXT, email_l TEXT GENERATED ALWAYS AS (lower(email)) STORED, v);
            CREATE UNIQUE INDEX ue ON t (email_l);
            """)
        TestSupport.write(#"{"email":"A@x","v":1}"# + "\n", to: directory.appendingPathComponent("in.jsonl"))
        let run = try TestSupport.run(["in.jsonl", "--db", "app.db", "--table", "t", "--upsert", "email_l"], in: directory)
        #expect(run.status == 64)
        #expect(run.stderr.contains(#"--upsert: column "email_l" of "t" is generated, so records cannot carry its value"#), "\(run.stderr)")
        #expect(!run.stderr.contains("INSERT INTO"))
    }
}
