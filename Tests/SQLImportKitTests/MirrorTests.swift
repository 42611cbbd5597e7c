import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// The sync mirror (`--delete-missing`, `--scope`, `--max-delete`, `--tombstone`) on the
/// seeds' schema: a server export of one library, some rows gone, some changed, some new.
@Suite struct MirrorTests {
    static let schema = """
        CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL DEFAULT (lower(hex(randomblob(16)))), libraryID INTEGER NOT NULL, remoteID TEXT,
          name TEXT NOT NULL DEFAULT '',
          updatedAt TEXT NOT NULL DEFAULT '');
        CREATE UNIQUE INDEX items_identity ON items (libraryID, remoteID) WHERE remoteID IS NOT NULL;
        """

    struct Item: Equatable {
        var id: String
        var library: Int
        var remote: String?
        var name: String

        var json: String {
            #"{"id":"\#(id)","libraryID":\#(library),"remoteID":\#(remote.map { "\"\($0)\"" } ?? "null"),"name":"\#(name)","updatedAt":"t"}"#
        }
        var row: String { "\(id)|\(library)|\(remote ?? "NULL")|\(name)" }
    }

    /// Three libraries of `perLibrary` items with random UUID ids; a few have no remoteID
    /// (made on the device, not yet synced).
    static func server(perLibrary: Int, seed: UInt64 = 1) -> [Item] {
        var random = StrategyEquivalenceTests.Generator(state: seed)
        var items: [Item] = []
        for library in 1 ... 3 {
            for index in 0 ..< perLibrary {
                items.append(Item(id: random.uuid(), library: library, remote: index % 25 == 0 ? nil : "rm-\(random.uuid())", name: "n\(index)"))
            }
        }
        return items
    }

    struct Workspace {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("app.db").path }

        init(_ items: [Item]) throws {
            try TestSupport.createDatabase(database, schema: MirrorTests.schema)
            let base = write("base.jsonl", items)
            let load = try TestSupport.run([base, "--db", database, "--table", "items", "--upsert", "libraryID,remoteID"], in: directory)
            #expect(load.status == 0, "\(load.stderr)")
        }

        func write(_ name: String, _ items: [Item]) -> String {
            TestSupport.write(items.map(\.json).joined(separator: "\n") + (items.isEmpty ? "" : "\n"), to: directory.appendingPathComponent(name))
        }

        func mirror(_ items: [Item], _ arguments: [String], name: String = "export.jsonl") throws -> TestSupport.Output {
            try TestSupport.run(
                [write(name, items), "--db", database, "--table", "items", "--upsert", "libraryID,remoteID", "--delete-missing"] + arguments,
                in: directory)
        }

        func rows(library: Int? = nil) throws -> [String] {
            try DatabaseQueue(path: database).read { db in
                try Row.fetchAll(
                    db, sql: "SELECT id, libraryID, ifnull(remoteID, 'NULL') AS r, name FROM items \(library.map { "WHERE libraryID = \($0)" } ?? "") ORDER BY id"
                ).map { "\($0["id"] as String)|\($0["libraryID"] as Int)|\($0["r"] as String)|\($0["name"] as String)" }
            }
        }

        func cleanUp() { TestSupport.remove(directory) }
    }

    /// Library 2's export tonight: 5% gone, 5% changed, 5% new.
    static func tonight(_ server: [Item], library: Int = 2, seed: UInt64 = 9) -> [Item] {
        var random = StrategyEquivalenceTests.Generator(state: seed)
        var export: [Item] = []
        for (index, item) in server.enumerated() where item.library == library {
            if index % 20 == 3 { continue }  // gone on the server
            var kept = item
            if index % 20 == 7 { kept.name += " (changed)" }
            export.append(kept)
            if index % 20 == 11 { export.append(Item(id: random.uuid(), library: library, remote: "rm-\(random.uuid())", name: "new")) }
        }
        return export
    }

    @Test(arguments: ["typed", "cached", "multirow"])
    func aScopedMirrorLeavesExactlyTheServersRowsForThatLibraryAndTheOthersAlone(strategy: String) throws {
        let server = Self.server(perLibrary: 2000)
        let workspace = try Workspace(server)
        defer { workspace.cleanUp() }
        let others = try workspace.rows(library: 1) + workspace.rows(library: 3)
        let export = Self.tonight(server)
        let result = try workspace.mirror(export, ["--scope", "libraryID", "--strategy", strategy, "--report", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try workspace.rows(library: 2) == export.map(\.row).sorted())
        #expect(try workspace.rows(library: 1) + workspace.rows(library: 3) == others)
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        let counts = report["counts"] as! [String: Int]
        #expect(counts["deleted"] == 100)
        #expect(report["deleteCandidates"] as? Int == 2000)
        // Tonight again: nothing to do.
        let again = try workspace.mirror(export, ["--scope", "libraryID", "--strategy", strategy, "--report", "-"], name: "again.jsonl")
        let againCounts = (try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as! [String: Any])["counts"] as! [String: Int]
        #expect(againCounts["deleted"] == 0 && againCounts["updated"] == 0 && againCounts["inserted"] == 0)
    }

    /// An input that another program truncates while it is read (an export rewritten in
    /// place) ended early without a word: exit 0, and `--delete-missing` deleted the rows
    /// of the records the file no longer held (helper-77). A regular file must end no
    /// sooner than its size when it was opened: the run stops, rolled back.
    @Test func anInputTruncatedWhileItIsReadStopsTheRunAndDeletesNothing() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let records = (0 ..< 200_000).map { #"{"id":"\#($0)","v":\#($0)}"# }.joined(separator: "\n") + "\n"
        let input = TestSupport.write(records, to: directory.appendingPathComponent("items.jsonl"))
        let database = directory.appendingPathComponent("app.db").path
        _ = try TestSupport.runImport([input], database: database) { $0.table = "items"; $0.upsert = ["id"] }
        var options = ImportOptions(inputs: [input], databasePath: database)
        options.table = "items"
        options.upsert = ["id"]
        options.mirror.deleteMissing = true
        options.mirror.maxDelete = .percent(100)
        var truncated = false
        // At a line's end, halfway: what is left reads as whole records.
        let bytes = Array(records.utf8)
        let cut = bytes[(bytes.count / 2)...].firstIndex(of: 0x0A)! + 1
        // The reader runs at most a few batches ahead of the writer, whose first batch
        // reports progress: the file is cut long before the reader reaches its end.
        #expect {
            try Importer(options: options).run { _ in
                if !truncated { truncated = truncate(input, cut) == 0 }
            }
        } throws: { error in
            "\(error)".contains("items.jsonl: the file ended after ") && "\(error)".contains("truncated or rewrote it while it was read")
        }
        #expect(truncated)
        #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM items") } == 200_000)
    }

    /// A scope field no record of the first batch has: the message says so (it said the
    /// input had no such field, which a later record may have), on both targets' path.
    @Test func aScopeFieldTheFirstRecordsLackIsNamedAsSuch() throws {
        let workspace = try Workspace([])
        defer { workspace.cleanUp() }
        let lines = (0 ..< 5_000).map { #"{"id":"i\#($0)","remoteID":"r\#($0)","name":"n"}"# } + [#"{"id":"x","libraryID":2,"remoteID":"x","name":"n"}"#]
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: workspace.directory.appendingPathComponent("late.jsonl"))
        let late = try TestSupport.run([input, "--db", workspace.database, "--table", "items", "--upsert", "id", "--delete-missing", "--scope", "libraryID"], in: workspace.directory)
        #expect(late.stderr.contains("--scope libraryID: the input's first records (its first batch) have no field libraryID"), "\(late.stderr)")
        let small = TestSupport.write(#"{"id":"a","libraryID":1,"remoteID":"r","name":"n"}"# + "\n", to: workspace.directory.appendingPathComponent("small.jsonl"))
        let never = try TestSupport.run([small, "--db", workspace.database, "--table", "items", "--upsert", "id", "--delete-missing", "--scope", "updatedAt"], in: workspace.directory)
        #expect(never.stderr.contains("--scope updatedAt: the input has no field updatedAt"), "\(never.stderr)")
    }

    /// `--scope` holds whatever the table is called: a table named `s` (the alias of the
    /// scope's subquery) had every row in scope, and the rows of other libraries were
    /// deleted; one named `g` (the deleted candidates' alias), or `S`, is no different. Nor
    /// is one named as the run's temporary tables are (`sqlimport_scope` stopped the run
    /// with exit 70: the temporary table hid it).
    @Test func aScopeHoldsWhateverTheTableIsCalled() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write(#"{"id":1,"lib":"a","v":"x"}"# + "\n", to: directory.appendingPathComponent("a.jsonl"))
        for table in ["items", "s", "S", "g", "sqlimport_scope", "SQLImport_Mirror_New", "sqlimport_mirror_gone"] {
            let database = directory.appendingPathComponent("\(table.lowercased())\(table == "S" ? "2" : "").db").path
            try TestSupport.createDatabase(
                database,
                schema: "CREATE TABLE \(SQLIdentifier.quote(table)) (id INTEGER PRIMARY KEY, lib TEXT, v TEXT); INSERT INTO \(SQLIdentifier.quote(table)) VALUES (1, 'a', 'x'), (2, 'a', 'x'), (3, 'b', 'x'), (4, 'b', 'x');")
            // A tombstone too, so that the deleted candidates are counted (`g`).
            TestSupport.write(#"{"id":1,"lib":"a","v":"x"}"# + "\n" + #"{"id":3,"lib":"b","v":"x","gone":true}"# + "\n", to: directory.appendingPathComponent("b.jsonl"))
            let result = try TestSupport.run(
                ["a.jsonl", "--db", database, "--table", table, "--upsert", "id", "--delete-missing", "--scope", "lib", "--max-delete", "100%", "--report", "r.json"],
                in: directory)
            #expect(result.status == 0, "\(table): \(result.stderr)")
            let ids = { try DatabaseQueue(path: database).read { try String.fetchOne($0, sql: "SELECT group_concat(id) FROM \(SQLIdentifier.quote(table))") } }
            #expect(try ids() == "1,3,4", "\(table)")
            let tombstoned = try TestSupport.run(
                ["b.jsonl", "--db", database, "--table", table, "--upsert", "id", "--delete-missing", "--scope", "lib", "--tombstone", "gone", "--max-delete", "100%", "--report", "r.json"],
                in: directory)
            #expect(tombstoned.status == 0, "\(table): \(tombstoned.stderr)")
            #expect(try ids() == "1", "\(table)")
        }
    }

    @Test func anUnscopedMirrorIsGuardedByMaxDelete() throws {
        let server = Self.server(perLibrary: 200)
        let workspace = try Workspace(server)
        defer { workspace.cleanUp() }
        let before = try workspace.rows()
        // Only library 2 in an unscoped mirror: two thirds of the table would go.
        let export = Self.tonight(server)
        let refused = try workspace.mirror(export, [])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("would delete 410 of 600 rows in scope (68.3%), more than --max-delete 10% allows; no row was deleted"), "\(refused.stderr)")
        // One library's export without --scope is the likely mistake (helper-85).
        #expect(refused.stderr.contains("if it holds only some of the table's rows (one library, one account), pass --scope COLUMN"), "\(refused.stderr)")
        #expect(try workspace.rows() == before)
        let tooFew = try workspace.mirror(export, ["--max-delete", "409"])
        #expect(tooFew.status == 65)
        let scoped = try workspace.mirror(export, ["--scope", "libraryID", "--max-delete", "1"])
        #expect(scoped.status == 65 && !scoped.stderr.contains("pass --scope"), "\(scoped.stderr)")
        let allowed = try workspace.mirror(export, ["--max-delete", "410"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try workspace.rows() == export.map(\.row).sorted())
    }

    /// `--max-delete P%` is a share of the rows in scope before the run. It was taken at
    /// the end: rows the run inserted into gaps below the largest rowid counted as rows
    /// from before (5 of 10 deleted under 40%: more than the limit let through), and rows
    /// its tombstones deleted did not count (2 of 10 refused under 20%).
    @Test func maxDeleteIsAShareOfTheRowsInScopeBeforeTheRun() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        func run(_ schema: String, _ lines: [String], _ options: [String]) throws -> (status: Int32, stderr: String, deleted: Int?, candidates: Int?, rows: Int) {
            let database = directory.appendingPathComponent("m-\(UUID().uuidString.prefix(8)).db").path
            try TestSupport.createDatabase(database, schema: schema)
            TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
            let result = try TestSupport.run(["in.jsonl", "--db", database, "--delete-missing", "--report", "r.json"] + options, in: directory)
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("r.json"))) as? [String: Any]
            let count = try DatabaseQueue(path: database).read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM \(options[1])")! }
            return (result.status, result.stderr, (report?["counts"] as? [String: Int])?["deleted"], report?["deleteCandidates"] as? Int, count)
        }
        // Ten codes at rowids 10 ... 100; five kept, five new ones at rowids 15 ... 55.
        let codes = """
            CREATE TABLE codes (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, label TEXT);
            WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 10) INSERT INTO codes SELECT i * 10, 'k' || i, 'x' FROM s;
            """
        let gapFilling = (1 ... 5).map { #"{"code":"k\#($0)","label":"x"}"# } + (1 ... 5).map { #"{"id":\#($0 * 10 + 5),"code":"n\#($0)","label":"new"}"# }
        let refused = try run(codes, gapFilling, ["--table", "codes", "--upsert", "code", "--max-delete", "40%"])
        #expect(refused.status == 65 && refused.stderr.contains("would delete 5 of 10 rows in scope (50.0%)"), "\(refused.stderr)")
        #expect(refused.rows == 10)
        let allowed = try run(codes, gapFilling, ["--table", "codes", "--upsert", "code", "--max-delete", "50%"])
        #expect(allowed.status == 0 && allowed.deleted == 5 && allowed.candidates == 10, "\(allowed)")
        #expect(allowed.rows == 10)
        // Ten items of library 'L' (a NOCASE scope, given as 'l'); five tombstones, three
        // kept: 2 of the 10 are missing, 20%.
        let items = """
            CREATE TABLE items (id TEXT PRIMARY KEY, library TEXT NOT NULL COLLATE NOCASE, remoteID TEXT, name TEXT);
            CREATE UNIQUE INDEX items_sync ON items (library, remoteID) WHERE remoteID IS NOT NULL;
            WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 10) INSERT INTO items SELECT 'id' || i, 'L', 'r' || i, 'n' FROM s;
            """
        let tombstones = (1 ... 5).map { #"{"id":"id\#($0)","library":"l","remoteID":"r\#($0)","_deleted":true}"# }
            + (6 ... 8).map { #"{"id":"id\#($0)","library":"l","remoteID":"r\#($0)","name":"n"}"# }
        let options = ["--table", "items", "--upsert", "library,remoteID", "--scope", "library", "--tombstone", "_deleted"]
        let withinLimit = try run(items, tombstones, options + ["--max-delete", "20%"])
        #expect(withinLimit.status == 0 && withinLimit.deleted == 7 && withinLimit.candidates == 10, "\(withinLimit)")
        #expect(withinLimit.rows == 3)
        let dryRun = try run(items, tombstones, options + ["--max-delete", "2", "--dry-run"])
        #expect(dryRun.status == 0 && dryRun.candidates == 10, "\(dryRun)")
        let pastIt = try run(items, tombstones, options + ["--max-delete", "1"])
        #expect(pastIt.status == 65 && pastIt.stderr.contains("would delete 2 of 10 rows in scope"), "\(pastIt.stderr)")
        #expect(pastIt.rows == 10)
        // The app's BEFORE DELETE trigger keeps five locked rows the tombstones name: they
        // are still there, counted once (review: counted twice, 3 of 15 passed under 20%).
        let locked = """
            CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT, locked INTEGER);
            CREATE TRIGGER keep BEFORE DELETE ON t WHEN old.locked = 1 BEGIN SELECT RAISE(IGNORE); END;
            WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 9) INSERT INTO t SELECT 'k' || i, 'v', i < 5 FROM s;
            """
        let kept = (0 ..< 5).map { #"{"id":"k\#($0)","gone":true}"# } + (0 ..< 7).map { #"{"id":"k\#($0)","v":"v","locked":\#($0 < 5 ? 1 : 0)}"# }
        let lockedOptions = ["--table", "t", "--upsert", "id", "--tombstone", "gone"]
        let guarded = try run(locked, kept, lockedOptions + ["--max-delete", "20%"])
        #expect(guarded.status == 65 && guarded.stderr.contains("would delete 3 of 10 rows in scope (30.0%)"), "\(guarded.stderr)")
        let through = try run(locked, kept, lockedOptions + ["--max-delete", "30%"])
        #expect(through.status == 0 && through.deleted == 3 && through.candidates == 10 && through.rows == 7, "\(through)")
        // A scope column named as the run's own table of deleted candidates names its
        // rowid column (review: "duplicate column name", exit 70).
        let clash = "CREATE TABLE items (id INTEGER PRIMARY KEY, sqlimport_r TEXT); INSERT INTO items VALUES (1, 'A'), (2, 'A'), (3, 'B');"
        let scoped = try run(clash, [#"{"id":1,"sqlimport_r":"A"}"#], ["--table", "items", "--upsert", "id", "--scope", "sqlimport_r", "--max-delete", "100%"])
        #expect(scoped.status == 0 && scoped.deleted == 1 && scoped.candidates == 2 && scoped.rows == 2, "\(scoped)")
    }

    @Test func anEmptyExportDeletesNothingUnlessAHundredPercentIsAllowed() throws {
        let workspace = try Workspace(Self.server(perLibrary: 50))
        defer { workspace.cleanUp() }
        let before = try workspace.rows()
        let scoped = try workspace.mirror([], ["--scope", "libraryID"])
        #expect(scoped.status == 0, "\(scoped.stderr)")
        #expect(try workspace.rows() == before)
        for limit in ["10%", "1000", "99%"] {
            let refused = try workspace.mirror([], ["--max-delete", limit])
            #expect(refused.status == 65, "\(limit)")
            #expect(refused.stderr.contains("the input holds no records"), "\(refused.stderr)")
            #expect(try workspace.rows() == before)
        }
        let emptied = try workspace.mirror([], ["--max-delete", "100%"])
        #expect(emptied.status == 0, "\(emptied.stderr)")
        // What remains are the unsynced rows, which an input without ids cannot name.
        #expect(try workspace.rows().allSatisfy { $0.contains("|NULL|") })
        #expect(try workspace.rows().count == 6)
    }

    @Test func rowsOutsideAPartialTargetAreCandidatesOnlyByAPrimaryKeyTheInputSupplies() throws {
        let server = Self.server(perLibrary: 100)
        let workspace = try Workspace(server)
        defer { workspace.cleanUp() }
        let unsynced = server.filter { $0.library == 2 && $0.remote == nil }
        #expect(unsynced.count == 4)
        // Without ids the export cannot name the unsynced rows: they are never candidates.
        let export = Self.tonight(server).filter { $0.remote != nil }
        let withoutIDs = workspace.directory.appendingPathComponent("noid.jsonl")
        _ = TestSupport.write(
            export.map { #"{"libraryID":\#($0.library),"remoteID":"\#($0.remote!)","name":"\#($0.name)","updatedAt":"t"}"# }.joined(separator: "\n") + "\n",
            to: withoutIDs)
        // (new rows need an id: the export's new items are left out of this file)
        let known = Set(server.compactMap(\.remote))
        _ = TestSupport.write(
            export.filter { known.contains($0.remote!) }.map { #"{"libraryID":\#($0.library),"remoteID":"\#($0.remote!)","name":"\#($0.name)","updatedAt":"t"}"# }
                .joined(separator: "\n") + "\n",
            to: withoutIDs)
        let result = try TestSupport.run(
            [withoutIDs.path, "--db", workspace.database, "--table", "items", "--upsert", "libraryID,remoteID", "--delete-missing", "--scope", "libraryID"],
            in: workspace.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try workspace.rows(library: 2)
        for item in unsynced { #expect(rows.contains(item.row)) }
        // With ids, an unsynced row the export lacks is missing like any other.
        let withIDs = try workspace.mirror(Self.tonight(server).filter { $0.id != unsynced[0].id }, ["--scope", "libraryID"])
        #expect(withIDs.status == 0, "\(withIDs.stderr)")
        #expect(try !workspace.rows(library: 2).contains(unsynced[0].row))
        #expect(try workspace.rows(library: 2).contains(unsynced[1].row))
    }

    @Test func tombstonesDeleteTheirRowsAndCountTheOnesAlreadyGone() throws {
        let server = Self.server(perLibrary: 10)
        let workspace = try Workspace(server)
        defer { workspace.cleanUp() }
        let gone = server[3]
        let lines = [
            #"{"id":"\#(gone.id)","libraryID":\#(gone.library),"remoteID":"\#(gone.remote!)","deleted":true}"#,
            #"{"libraryID":\#(server[4].library),"remoteID":"\#(server[4].remote!)","deleted":1}"#,
            #"{"id":"never-there","libraryID":1,"remoteID":"rm-none","deleted":true}"#,
            #"{"id":"\#(server[5].id)","libraryID":\#(server[5].library),"remoteID":"\#(server[5].remote!)","name":"kept","deleted":false}"#,
        ]
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: workspace.directory.appendingPathComponent("t.jsonl"))
        let result = try TestSupport.run(
            [input, "--db", workspace.database, "--table", "items", "--upsert", "libraryID,remoteID", "--tombstone", "deleted", "--report", "-"],
            in: workspace.directory)
        #expect(result.status == 0, "\(result.stderr)")
        let counts = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any])["counts"] as! [String: Int]
        #expect(counts["deleted"] == 2 && counts["tombstones"] == 3 && counts["tombstonesWithoutRow"] == 1 && counts["updated"] == 1, "\(counts)")
        let rows = try workspace.rows()
        #expect(rows.count == server.count - 2)
        #expect(!rows.contains(gone.row) && !rows.contains(server[4].row))
        #expect(rows.contains { $0.hasPrefix(server[5].id) && $0.hasSuffix("|kept") })
        // FIELD=VALUE
        let byValue = TestSupport.write(
            #"{"libraryID":\#(server[6].library),"remoteID":"\#(server[6].remote!)","state":"gone"}"# + "\n", to: workspace.directory.appendingPathComponent("v.jsonl"))
        let valued = try TestSupport.run(
            [byValue, "--db", workspace.database, "--table", "items", "--upsert", "libraryID,remoteID", "--tombstone", "state=gone"], in: workspace.directory)
        #expect(valued.status == 0, "\(valued.stderr)")
        #expect(try !workspace.rows().contains(server[6].row))
    }

    @Test func deletionsFollowForeignKeysCascadeAndRestrict() throws {
        let server = Self.server(perLibrary: 40)
        let workspace = try Workspace(server)
        defer { workspace.cleanUp() }
        let missing = server.filter { $0.library == 2 }.enumerated().filter { $0.offset % 20 == 3 }.map(\.element)
        try DatabaseQueue(path: workspace.database).write { db in
            try db.execute(sql: """
                CREATE TABLE notes (id INTEGER PRIMARY KEY, itemID TEXT REFERENCES items (id) ON DELETE CASCADE);
                CREATE TABLE pins (id INTEGER PRIMARY KEY, itemID TEXT REFERENCES items (id) ON DELETE RESTRICT);
                """)
            try db.execute(sql: "INSERT INTO notes (itemID) VALUES (?)", arguments: [missing[0].id])
        }
        let export = Self.tonight(server)
        try DatabaseQueue(path: workspace.database).write { try $0.execute(sql: "INSERT INTO pins (itemID) VALUES (?)", arguments: [missing[1].id]) }
        let before = try workspace.rows()
        let restricted = try workspace.mirror(export, ["--scope", "libraryID"])
        #expect(restricted.status == 65)
        #expect(restricted.stderr.contains(#"deleting row ("id") = ("\#(missing[1].id)") failed"#), "\(restricted.stderr)")
        #expect(try workspace.rows() == before)
        let skipped = try workspace.mirror(export, ["--scope", "libraryID", "--on-error", "skip", "--report", "-"])
        #expect(skipped.status == 2, "\(skipped.stderr)")
        let rows = try workspace.rows(library: 2)
        #expect(rows.contains(missing[1].row))
        #expect(!rows.contains(missing[0].row))
        #expect(try DatabaseQueue(path: workspace.database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM notes") } == 0)
    }

    @Test func aDryRunGivesTheExactNumbersAndThePlan() throws {
        let server = Self.server(perLibrary: 200)
        let workspace = try Workspace(server)
        defer { workspace.cleanUp() }
        let before = try workspace.rows()
        let result = try workspace.mirror(Self.tonight(server), ["--scope", "libraryID", "--dry-run", "--report", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        let counts = (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any])["counts"] as! [String: Int]
        #expect(counts["deleted"] == 10)
        #expect(result.stderr.contains("-- after the input (--delete-missing):"), "\(result.stderr)")
        #expect(try workspace.rows() == before)
    }

    /// A resumed mirror passes over what the interrupted run committed, as any resume
    /// does, and counts the rows those records landed on as seen. It applied them again,
    /// which was no no-op: a row two of them changed went back through the first one's
    /// value, which another row held by then (a UNIQUE failure, exit 65, on every
    /// resume), and its trigger fired again.
    @Test func aResumedMirrorCountsTheCommittedRowsAsSeenWithoutApplyingThemAgain() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: """
            CREATE TABLE t (id TEXT PRIMARY KEY, email TEXT UNIQUE);
            CREATE TABLE log (id TEXT, email TEXT);
            CREATE TRIGGER logged AFTER UPDATE OF email ON t BEGIN INSERT INTO log VALUES (NEW.id, NEW.email); END;
            CREATE TRIGGER stop BEFORE INSERT ON t WHEN NEW.id = 'stop' BEGIN SELECT RAISE(ABORT, 'stop here'); END;
            INSERT INTO t VALUES ('x', 'e1'), ('y', 'e0'), ('z', 'ez');
            """)
        TestSupport.write(Self.uniqueMove, to: directory.appendingPathComponent("export.jsonl"))
        let run = ["export.jsonl", "--db", database, "--table", "t", "--upsert", "id", "--delete-missing", "--max-delete", "100%", "--commit-every", "1", "--resume", "--report", "r.json"]
        #expect(try TestSupport.run(run, in: directory).status == 65)
        try DatabaseQueue(path: database).write { try $0.execute(sql: "DROP TRIGGER stop") }
        let resumed = try TestSupport.run(run, in: directory)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let (rows, log) = try DatabaseQueue(path: database).read { db in
            (try String.fetchAll(db, sql: "SELECT id || '|' || email FROM t ORDER BY id"), try String.fetchAll(db, sql: "SELECT id || '|' || email FROM log ORDER BY rowid"))
        }
        #expect(rows == ["stop|es", "x|e3", "y|e2"], "z alone deleted: \(rows)")
        #expect(log == ["x|e2", "x|e3", "y|e2"], "each change once: \(log)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("r.json"))) as? [String: Any]
        #expect(report?["resumedRecords"] as? Int == 3 && (report?["counts"] as? [String: Int])?["deleted"] == 1, "\(String(describing: report))")
    }

    /// What the records a resumed mirror passes over decided still holds (a helper's
    /// review): a record the database dropped before the last checkpoint still withholds
    /// the deletions (it was forgotten, and k20 deleted); the rows the interrupted run
    /// inserted are no rows from before the run in `--max-delete`'s base (they were, and
    /// 2 deletions of 10 rows passed as 2 of 34); and a resume after a `--max-delete`
    /// stop, with the higher limit the message asks for, is no empty input.
    @Test func aResumedMirrorKeepsWhatThePassedOverRecordsDecided() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        func table(_ name: String, rows: Int, triggers: String) throws -> String {
            let database = directory.appendingPathComponent(name).path
            try TestSupport.createDatabase(database, schema: """
                CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT UNIQUE, v TEXT);
                WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < \(rows))
                INSERT INTO t (k, v) SELECT 'k' || value, 'old' FROM n;
                \(triggers)
                """)
            return database
        }
        func keys(_ names: [String]) -> String { names.map { #"{"k":"\#($0)","v":"new"}"# + "\n" }.joined() }
        func run(_ database: String, _ input: String, _ extra: [String] = []) throws -> TestSupport.Output {
            try TestSupport.run(
                [input, "--db", database, "--table", "t", "--upsert", "k", "--delete-missing", "--resume", "--report", "r.json"] + extra, in: directory)
        }
        func report() throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("r.json"))) as? [String: Any] ?? [:]
        }
        func rows(_ database: String) throws -> Int { try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") ?? -1 } }
        func letThrough(_ database: String) throws { try DatabaseQueue(path: database).write { try $0.execute(sql: "DROP TRIGGER stop") } }

        TestSupport.write(keys((1 ... 19).map { "k\($0)" }), to: directory.appendingPathComponent("dropped.jsonl"))
        let dropped = try table("dropped.db", rows: 20, triggers: """
            CREATE TRIGGER ig BEFORE UPDATE ON t WHEN NEW.k = 'k2' BEGIN SELECT RAISE(IGNORE); END;
            CREATE TRIGGER stop BEFORE UPDATE ON t WHEN NEW.k = 'k15' BEGIN SELECT RAISE(ABORT, 'stop here'); END;
            """)
        #expect(try run(dropped, "dropped.jsonl", ["--commit-every", "4"]).status == 65)
        try letThrough(dropped)
        let withheld = try run(dropped, "dropped.jsonl", ["--commit-every", "4"])
        #expect(withheld.status == 0 && withheld.stderr.contains("--delete-missing deleted nothing: 1 record(s) were dropped"), "\(withheld.stderr)")
        #expect(try rows(dropped) == 20)

        TestSupport.write(keys((1 ... 8).map { "k\($0)" } + (100 ... 130).map { "n\($0)" }), to: directory.appendingPathComponent("grown.jsonl"))
        let grown = try table("grown.db", rows: 10, triggers: "CREATE TRIGGER stop BEFORE INSERT ON t WHEN NEW.k = 'n125' BEGIN SELECT RAISE(ABORT, 'stop here'); END;")
        #expect(try run(grown, "grown.jsonl", ["--commit-every", "4"]).status == 65)
        try letThrough(grown)
        let refused = try run(grown, "grown.jsonl", ["--commit-every", "4"])
        #expect(refused.status == 65 && refused.stderr.contains("2 of 10"), "one run's base, 10 rows: \(refused.stderr)")
        #expect(try DatabaseQueue(path: grown).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t WHERE k IN ('k9', 'k10')") } == 2)

        TestSupport.write(keys((1 ... 6).map { "k\($0)" }), to: directory.appendingPathComponent("six.jsonl"))
        let six = try table("six.db", rows: 10, triggers: "")
        #expect(try run(six, "six.jsonl", ["--commit-every", "2"]).status == 65)
        let raised = try run(six, "six.jsonl", ["--commit-every", "2", "--max-delete", "50%"])
        #expect(raised.status == 0, "\(raised.stderr)")
        let deleted = (try report()["counts"] as? [String: Int])?["deleted"]
        #expect(deleted == 4)
        #expect(try rows(six) == 6)

        // A row the app inserted after the run began (here after it stopped; between its
        // checkpoints alike) is kept: the resumed run took it for a row from before.
        TestSupport.write(keys((1 ... 19).map { "k\($0)" }), to: directory.appendingPathComponent("app.jsonl"))
        let app = try table("app.db", rows: 20, triggers: "CREATE TRIGGER stop BEFORE UPDATE ON t WHEN NEW.k = 'k15' BEGIN SELECT RAISE(ABORT, 'stop here'); END;")
        #expect(try run(app, "app.jsonl", ["--commit-every", "4"]).status == 65)
        try letThrough(app)
        try DatabaseQueue(path: app).write { try $0.execute(sql: "INSERT INTO t (k, v) VALUES ('by the app', 'app')") }
        #expect(try run(app, "app.jsonl", ["--commit-every", "4"]).status == 0)
        #expect(try DatabaseQueue(path: app).read { try String.fetchAll($0, sql: "SELECT k FROM t WHERE v <> 'new' ORDER BY k") } == ["by the app"])

        // A committed record with a NULL key column lands on the row of its primary key:
        // the resumed run looked it up by the key alone, found none, and deleted the row
        // (a helper's review).
        let nullKey = directory.appendingPathComponent("null.db").path
        try TestSupport.createDatabase(nullKey, schema: """
            CREATE TABLE t (id INTEGER PRIMARY KEY, email TEXT UNIQUE, v TEXT);
            INSERT INTO t VALUES (1, 'a', 'o'), (2, NULL, 'o'), (3, 'c', 'o'), (4, 'd', 'o'), (5, 'e', 'o');
            CREATE TRIGGER stop BEFORE UPDATE ON t WHEN NEW.id = 3 BEGIN SELECT RAISE(ABORT, 'stop here'); END;
            """)
        TestSupport.write(
            [#"{"id":2,"email":null,"v":"two"}"#, #"{"id":1,"email":"a","v":"one"}"#, #"{"id":3,"email":"c","v":"three"}"#, #"{"id":4,"email":"d","v":"four"}"#]
                .joined(separator: "\n") + "\n", to: directory.appendingPathComponent("null.jsonl"))
        let byEmail = ["null.jsonl", "--db", nullKey, "--table", "t", "--upsert", "email", "--delete-missing", "--max-delete", "100%", "--commit-every", "2", "--resume"]
        #expect(try TestSupport.run(byEmail, in: directory).status == 65)
        try letThrough(nullKey)
        #expect(try TestSupport.run(byEmail, in: directory).status == 0)
        #expect(try DatabaseQueue(path: nullKey).read { try Int.fetchAll($0, sql: "SELECT id FROM t ORDER BY id") } == [1, 2, 3, 4])

        // A key compared as its index compares it: under a NOCASE index "ABC" landed on
        // 'abc', which the resumed run looked up with the column's BINARY collation, did
        // not find, and deleted (a helper's review).
        let nocase = directory.appendingPathComponent("nocase.db").path
        try TestSupport.createDatabase(nocase, schema: """
            CREATE TABLE t (id INTEGER PRIMARY KEY, code TEXT, v TEXT); CREATE UNIQUE INDEX u ON t (code COLLATE NOCASE);
            INSERT INTO t (code, v) VALUES ('abc', 'x'), ('def', 'x'), ('ghi', 'x'), ('jkl', 'x');
            CREATE TRIGGER stop BEFORE INSERT ON t WHEN NEW.code = 'zzz' BEGIN SELECT RAISE(ABORT, 'stop here'); END;
            """)
        TestSupport.write(
            [#"{"code":"ABC","v":"1"}"#, #"{"code":"DEF","v":"1"}"#, #"{"code":"zzz","v":"1"}"#, #"{"code":"ghi","v":"2"}"#].joined(separator: "\n") + "\n",
            to: directory.appendingPathComponent("nocase.jsonl"))
        let byCode = ["nocase.jsonl", "--db", nocase, "--table", "t", "--upsert", "code", "--delete-missing", "--max-delete", "100%", "--commit-every", "2", "--resume"]
        #expect(try TestSupport.run(byCode, in: directory).status == 65)
        try letThrough(nocase)
        #expect(try TestSupport.run(byCode, in: directory).status == 0)
        #expect(try DatabaseQueue(path: nocase).read { try String.fetchAll($0, sql: "SELECT code FROM t ORDER BY id") } == ["abc", "def", "ghi", "zzz"])
    }

    /// Records that change one row twice, the second freeing a unique value the third
    /// takes for another row, then a record the table refuses until it is let through
    /// (`aResumedMirrorCountsTheCommittedRowsAsSeenWithoutApplyingThemAgain`).
    static let uniqueMove = [#"{"id":"x","email":"e2"}"#, #"{"id":"x","email":"e3"}"#, #"{"id":"y","email":"e2"}"#, #"{"id":"stop","email":"es"}"#]
        .joined(separator: "\n") + "\n"

    @Test func aKilledMirrorResumedDeletesNothingTheInterruptedRunHadSeen() throws {
        let server = Self.server(perLibrary: 60_000)
        let workspace = try Workspace(server)
        defer { workspace.cleanUp() }
        let export = Self.tonight(server)
        let input = workspace.write("export.jsonl", export)
        let arguments = [input, "--db", workspace.database, "--table", "items", "--upsert", "libraryID,remoteID", "--delete-missing", "--scope", "libraryID",
            "--commit-every", "5000"]
        let process = Process()
        process.executableURL = TestSupport.executable
        process.arguments = arguments
        process.currentDirectoryURL = workspace.directory
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Kill it between checkpoints, after at least one.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let committed = (try? DatabaseQueue(path: workspace.database).read { try Int.fetchOne($0, sql: "SELECT committed_rows FROM _sqlimport_runs") }) ?? nil
            if let committed, committed > 0 { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let resumed = try TestSupport.run(arguments + ["--resume"], in: workspace.directory)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try workspace.rows(library: 2) == export.map(\.row).sorted())
        #expect(try workspace.rows(library: 1).count == 60_000)
    }
}
