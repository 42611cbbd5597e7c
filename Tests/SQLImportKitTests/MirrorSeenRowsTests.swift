import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// `--delete-missing` keeps every row the input names, however SQLite came to number it
/// and whatever SQLite did with the record: found by adversarial testing (a helper who
/// did not write the mirror, with a plain-SQL oracle).
@Suite struct MirrorSeenRowsTests {
    struct Workspace {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("app.db").path }

        init(_ schema: String) throws { try TestSupport.createDatabase(database, schema: schema) }

        func run(_ lines: [String], _ arguments: [String], name: String = "in.jsonl") throws -> TestSupport.Output {
            let path = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent(name))
            return try TestSupport.run([path, "--db", database] + arguments, in: directory)
        }

        func rows(_ sql: String) throws -> [String] {
            try DatabaseQueue(path: database).read { db in
                try Row.fetchAll(db, sql: sql).map { row in
                    row.databaseValues.map { String.fromDatabaseValue($0) ?? $0.description }.joined(separator: "|")
                }
            }
        }

        func cleanUp() { TestSupport.remove(directory) }
    }

    @Test(arguments: ["5.0", "\"5.0\"", "\"+5\"", "\" 5\"", "5e0"])
    func aNewRowFillingARowidGapIsKeptWhateverTheKeysSpelling(spelling: String) throws {
        let workspace = try Workspace(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, sku TEXT); INSERT INTO t VALUES (1,'a'),(2,'b'),(3,'c'),(4,'d'),(6,'f'),(7,'g'),(8,'h'),(9,'i'),(10,'j'),(11,'k');")
        defer { workspace.cleanUp() }
        var lines = [(1, "a"), (2, "b"), (3, "c"), (4, "d"), (6, "f"), (7, "g"), (8, "h"), (9, "i"), (10, "j"), (11, "k")].map { #"{"id":\#($0.0),"sku":"\#($0.1)"}"# }
        lines.append(#"{"id":\#(spelling),"sku":"e"}"#)
        for strategy in ["typed", "cached", "multirow"] {
            let result = try workspace.run(lines, ["--table", "t", "--upsert", "id", "--delete-missing", "--strategy", strategy])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try workspace.rows("SELECT id, sku FROM t ORDER BY id") == (1 ... 11).map { "\($0)|\(Array("abcdefghijk")[$0 - 1])" }, "\(strategy)")
        }
    }

    @Test func aRowInsertedAfterATombstoneDeletedTheLastRowIsKept() throws {
        let workspace = try Workspace(
            "CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT); " + "INSERT INTO t VALUES " + (1 ... 10).map { "('u\($0)','v\($0)')" }.joined(separator: ",") + ";")
        defer { workspace.cleanUp() }
        // u10 holds the largest rowid; once it is gone SQLite numbers the next insert 10.
        let lines = (1 ... 9).map { #"{"id":"u\#($0)","v":"v\#($0)"}"# }
            + [#"{"id":"u10","v":"v10","gone":true}"#, #"{"id":"u11","v":"new"}"#]
        let result = try workspace.run(lines, ["--table", "t", "--upsert", "id", "--delete-missing", "--tombstone", "gone", "--report", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try workspace.rows("SELECT id FROM t ORDER BY rowid") == (1 ... 9).map { "u\($0)" } + ["u11"])
        // Deleted, then made again, by the same key.
        let again = (1 ... 9).map { #"{"id":"u\#($0)","v":"v\#($0)"}"# } + [#"{"id":"u11","v":"new","gone":true}"#, #"{"id":"u11","v":"back"}"#]
        let recreated = try workspace.run(again, ["--table", "t", "--upsert", "id", "--delete-missing", "--tombstone", "gone"], name: "again.jsonl")
        #expect(recreated.status == 0, "\(recreated.stderr)")
        #expect(try workspace.rows("SELECT id, v FROM t WHERE id = 'u11'") == ["u11|back"])
        #expect(try workspace.rows("SELECT count(*) FROM temp.sqlite_master") == ["0"], "the run's trigger is dropped")
    }

    @Test func aRecordATriggerIgnoresWithholdsDeletions() throws {
        let workspace = try Workspace(
            """
            CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT, locked INTEGER DEFAULT 0);
            CREATE TRIGGER keep_locked BEFORE UPDATE ON t WHEN old.locked BEGIN SELECT RAISE(IGNORE); END;
            INSERT INTO t (id, v, locked) VALUES ('u1','a',1), \((2 ... 10).map { "('u\($0)','v',0)" }.joined(separator: ","));
            """)
        defer { workspace.cleanUp() }
        let lines = [#"{"id":"u1","v":"A"}"#] + (2 ... 9).map { #"{"id":"u\#($0)","v":"x"}"# }
        let result = try workspace.run(lines, ["--table", "t", "--upsert", "id", "--delete-missing", "--max-delete", "100%", "--report", "-"])
        #expect(result.status == 0, "\(result.stderr)")
        // u10 is gone from the input, but u1's record was dropped: a dropped record may
        // name a row it never met (a BEFORE INSERT trigger drops it before its conflict),
        // so nothing is deleted, and the report says so. (u1's own record met its row
        // before the BEFORE UPDATE trigger dropped it: u1 was seen, and is no deletion.)
        #expect(try workspace.rows("SELECT id, v FROM t ORDER BY rowid").first == "u1|a")
        #expect(try workspace.rows("SELECT count(*) FROM t") == ["10"])
        let report = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
        #expect(report["deletionsWithheld"] as? Int == 1, "u10")
        #expect((report["counts"] as! [String: Int])["ignored"] == 1)
        #expect(result.stderr.contains("RAISE(IGNORE)"), "\(result.stderr)")
    }

    @Test func aScopeMatchesAnUntypedColumnFromCSVAndByTheColumnsCollation() throws {
        let workspace = try Workspace(
            """
            CREATE TABLE docs (id TEXT PRIMARY KEY, lib, title TEXT);
            INSERT INTO docs VALUES ('a',1,'A'),('b',1,'B'),('c',1,'C'),('z',2,'Z');
            CREATE TABLE notes (id TEXT PRIMARY KEY, lib TEXT COLLATE NOCASE, title TEXT);
            INSERT INTO notes VALUES ('a','lib-a','A'),('b','lib-a','B'),('c','lib-a','C'),('z','lib-b','Z');
            """)
        defer { workspace.cleanUp() }
        let csv = TestSupport.write("id,lib,title\na,1,A\nb,1,B\n", to: workspace.directory.appendingPathComponent("docs.csv"))
        let docs = try TestSupport.run(
            [csv, "--db", workspace.database, "--table", "docs", "--upsert", "id", "--delete-missing", "--scope", "lib", "--max-delete", "100%"],
            in: workspace.directory)
        #expect(docs.status == 0, "\(docs.stderr)")
        #expect(try workspace.rows("SELECT id FROM docs ORDER BY id") == ["a", "b", "z"])
        let notes = try workspace.run(
            [#"{"id":"a","lib":"LIB-A","title":"A"}"#, #"{"id":"b","lib":"LIB-A","title":"B"}"#],
            ["--table", "notes", "--upsert", "id", "--delete-missing", "--scope", "lib", "--max-delete", "100%"])
        #expect(notes.status == 0, "\(notes.stderr)")
        #expect(try workspace.rows("SELECT id FROM notes ORDER BY id") == ["a", "b", "z"])
    }

    @Test func aTableWhoseColumnsHideTheRowidIsRefused() throws {
        let workspace = try Workspace(
            #"CREATE TABLE t (id TEXT PRIMARY KEY, "rowid" INTEGER, "oid" INTEGER, "_rowid_" INTEGER, v TEXT); INSERT INTO t VALUES ('a',5,5,5,'x'),('b',5,5,5,'y');"#)
        defer { workspace.cleanUp() }
        let result = try workspace.run([#"{"id":"a","rowid":5,"oid":5,"_rowid_":5,"v":"x"}"#], ["--table", "t", "--upsert", "id", "--delete-missing", "--max-delete", "100%"])
        #expect(result.status == 64 || result.status == 65, "\(result.status)")
        #expect(result.stderr.contains("rowid, oid and _rowid_"), "\(result.stderr)")
        #expect(try workspace.rows("SELECT count(*) FROM t") == ["2"])
    }

    /// Under `--flatten` a nested tombstone field is named by its path; a tombstone field
    /// no record has is warned about (the record was upserted as a live row, silently).
    @Test func aNestedTombstoneFieldIsNamedByItsPath() throws {
        let workspace = try Workspace("CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT, isDeleted INTEGER NOT NULL DEFAULT 0); INSERT INTO t VALUES ('a','x',0),('b','y',0);")
        defer { workspace.cleanUp() }
        let lines = [#"{"id":"a","v":"x","sync":{"isDeleted":true}}"#, #"{"id":"b","v":"y","sync":{"isDeleted":false}}"#]
        let deleted = try workspace.run(lines, ["--table", "t", "--upsert", "id", "--flatten", "--tombstone", "sync.isDeleted"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(try workspace.rows("SELECT id FROM t") == ["b"])
        let unused = try workspace.run(lines, ["--table", "t", "--upsert", "id", "--flatten", "--tombstone", "deleted", "--report", "-"], name: "again.jsonl")
        #expect(unused.status == 0, "\(unused.stderr)")
        #expect(unused.stdout.contains("--tombstone deleted: no record has a field deleted"), "\(unused.stdout)")
    }

    /// A tombstone field that first appears after the first batch still deletes (the
    /// field was looked for in the first batch only, and the records were upserted live).
    @Test func aTombstoneFieldFirstSeenInALaterBatchDeletes() throws {
        let workspace = try Workspace("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (5, 'five');")
        defer { workspace.cleanUp() }
        let lines = (6 ..< 6006).map { #"{"id":\#($0),"name":"n"}"# } + [#"{"id":6001,"deleted":true}"#, #"{"id":5,"deleted":true}"#]
        let result = try workspace.run(lines, ["--table", "t", "--upsert", "id", "--tombstone", "deleted"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try workspace.rows("SELECT count(*), sum(id = 5), sum(id = 6001) FROM t") == ["5999|0|0"])
    }

    @Test(arguments: ["deleted=true", "deleted=TRUE", "deleted=1", "deleted"])
    func aTombstoneValueOfTrueMatchesAJSONBoolean(flag: String) throws {
        let workspace = try Workspace("CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT); INSERT INTO t VALUES ('a','x'),('b','y');")
        defer { workspace.cleanUp() }
        let result = try workspace.run([#"{"id":"a","v":"x","deleted":true}"#, #"{"id":"b","v":"y","deleted":false}"#], ["--table", "t", "--upsert", "id", "--tombstone", flag])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try workspace.rows("SELECT id FROM t") == ["b"])
    }

    /// A tombstone field is true when it is `true`, `1` or `"yes"` (docs/mirror.md), in
    /// JSON as in CSV: any non-zero JSON number deleted its row (2, -1, 0.5, an epoch), where
    /// the same value in CSV did not (a helper).
    @Test(arguments: ["jsonl", "csv"])
    func aTombstoneIsTrueOnlyAsDocumentedWhateverTheFormat(format: String) throws {
        let values: [(json: String, csv: String, deletes: Bool)] = [
            ("true", "true", true), ("1", "1", true), (#""YES""#, "YES", true), ("1.0", "1", true),
            ("2", "2", false), ("-1", "-1", false), ("0.5", "0.5", false), ("1700000000", "1700000000", false),
            ("0", "0", false), (#""on""#, "on", false), (#""y""#, "y", false),
        ]
        let ids = values.map { _ in UUID().uuidString }
        let workspace = try Workspace(
            "CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT); INSERT INTO t VALUES " + ids.map { "('\($0)', 'x')" }.joined(separator: ",") + ";")
        defer { workspace.cleanUp() }
        let lines = format == "csv"
            ? ["id,v,gone"] + zip(ids, values).map { "\($0),x,\($1.csv)" }
            : zip(ids, values).map { #"{"id":"\#($0)","v":"x","gone":\#($1.json)}"# }
        let result = try workspace.run(lines, ["--table", "t", "--upsert", "id", "--tombstone", "gone", "--report", "-"], name: "in.\(format)")
        #expect(result.status == 0, "\(result.stderr)")
        let kept = Set(try workspace.rows("SELECT id FROM t"))
        for (id, value) in zip(ids, values) {
            #expect(kept.contains(id) != value.deletes, "\(format) \(value.json)")
        }
    }

    /// A deletion a trigger refuses (`RAISE(ABORT)`) was explained as a foreign key of
    /// another table, which there was none of, and a tombstone's refused deletion named
    /// its key's columns without their values (a helper).
    @Test func aDeletionATriggerRefusesIsNamedAsSuchWithItsKey() throws {
        let workspace = try Workspace("""
            CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER); INSERT INTO t VALUES (1, 1), (2, 2), (3, 3);
            CREATE TRIGGER nodel BEFORE DELETE ON t WHEN old.k = 2 BEGIN SELECT RAISE(ABORT, 'row 2 is protected'); END;
            """)
        defer { workspace.cleanUp() }
        let mirror = try workspace.run([#"{"k":1,"v":1}"#, #"{"k":3,"v":3}"#], ["--table", "t", "--upsert", "k", "--delete-missing", "--max-delete", "100%"])
        #expect(mirror.status == 65, "\(mirror.stderr)")
        #expect(mirror.stderr.contains(#"deleting row ("k") = (2) failed: row 2 is protected; a trigger or a constraint"#), "\(mirror.stderr)")
        #expect(!mirror.stderr.contains("foreign key"), "\(mirror.stderr)")
        let tombstone = try workspace.run([#"{"k":2,"gone":true}"#], ["--table", "t", "--upsert", "k", "--tombstone", "gone"], name: "tomb.jsonl")
        #expect(tombstone.status == 65, "\(tombstone.stderr)")
        #expect(tombstone.stderr.contains(#"deleting row ("k") = (2) of the tombstone at "#) && tombstone.stderr.contains("a trigger or a constraint"), "\(tombstone.stderr)")
        #expect(try workspace.rows("SELECT k FROM t ORDER BY k") == ["1", "2", "3"])
    }

    /// A table that refers to itself with ON DELETE CASCADE: deleting one missing row
    /// deleted its descendants too, rows the input holds among them, uncounted and past
    /// `--max-delete` (exit 0, `deleted` 1). The guard now holds for every row the
    /// deletion takes, and `deleted` counts them.
    @Test func rowsTheTablesOwnCascadeDeletesAreCountedAndGuarded() throws {
        let root = UUID().uuidString
        let children = (0 ..< 99).map { _ in UUID().uuidString }
        let schema = "CREATE TABLE folder (id TEXT PRIMARY KEY, parent TEXT REFERENCES folder (id) ON DELETE CASCADE, name TEXT); "
            + "INSERT INTO folder VALUES ('\(root)', NULL, 'root'), " + children.map { "('\($0)', '\(root)', 'c')" }.joined(separator: ", ") + ";"
        let lines = children.map { #"{"id":"\#($0)","parent":"\#(root)","name":"c"}"# }
        let guarded = try Workspace(schema)
        defer { guarded.cleanUp() }
        let refused = try guarded.run(lines, ["--table", "folder", "--upsert", "id", "--delete-missing", "--max-delete", "5"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("deleted 99 more"), "\(refused.stderr)")
        #expect(try guarded.rows("SELECT count(*) FROM folder") == ["100"])
        let allowed = try guarded.run(lines, ["--table", "folder", "--upsert", "id", "--delete-missing", "--max-delete", "100%", "--report", "-"])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let counts = (try JSONSerialization.jsonObject(with: Data(allowed.stdout.utf8)) as! [String: Any])["counts"] as! [String: Int]
        #expect(counts["deleted"] == 100, "\(counts)")
        #expect(allowed.stderr.contains("ON DELETE CASCADE"), "\(allowed.stderr)")
        #expect(try guarded.rows("SELECT count(*) FROM folder") == ["0"])
    }

    /// The run's trigger and function leave the caller's connection however the run
    /// ends: a failure after a `--commit-every` checkpoint rolled back the trigger's drop
    /// and left it behind (a review helper read it in the code).
    @Test(arguments: [false, true])
    func theRunsTriggerLeavesTheCallersConnection(failing: Bool) throws {
        let workspace = try Workspace(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL); INSERT INTO t VALUES " + (1 ... 20).map { "(\($0), 'v')" }.joined(separator: ",") + ";")
        defer { workspace.cleanUp() }
        let lines = (1 ... 19).map { #"{"id":\#($0),"v":"v"}"# } + [failing ? #"{"id":25,"v":null}"# : #"{"id":25,"v":"w"}"#]
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: workspace.directory.appendingPathComponent("in.jsonl"))
        var options = ImportOptions(inputs: [input], databasePath: workspace.database)
        options.table = "t"
        options.upsert = ["id"]
        options.mirror.deleteMissing = true
        options.commitEvery = 5
        let queue = try DatabaseQueue(path: workspace.database)
        try queue.inDatabase { db throws in
            do {
                _ = try Importer(options: options).run(in: db)
                #expect(!failing)
            } catch {
                #expect(failing, "\(error)")
            }
            #expect(try Int.fetchOne(db, sql: "SELECT count(*) FROM temp.sqlite_master WHERE type = 'trigger'") == 0)
            let functionLeft = (try? db.execute(sql: "SELECT sqlimport_mirror_inserted(1)")) != nil
            #expect(!functionLeft)
        }
    }
}
