import Foundation
import Synchronization
import GRDB
import Testing
@testable import SQLImportKit

/// Records compared with the table's rows by content (`UnchangedRows`): a run that
/// passes equal records over without a statement leaves the rows and the counts that one
/// upsert per record leaves, over a zoo of schemas (partial targets, rowid aliases with
/// and without CHECK constraints, STRICT types, affinities and collations, generated
/// columns), with records that repeat keys, change back, omit columns and spell numbers
/// otherwise than the table stores them.
@Suite struct UnchangedRowsTests {
    typealias Random = StrategyEquivalenceTests.Generator

    struct Schema: Sendable, CustomStringConvertible {
        var name: String
        var sql: String
        var target: [String]
        /// One record's fields as JSON, for row number `index`; `variant` changes a value.
        var record: @Sendable (_ index: Int, _ variant: Int, _ random: inout Random) -> [String: String]
        /// A field whose value the table stores in another form (`5` in a REAL column).
        var respelled: @Sendable (_ fields: [String: String]) -> [String: String]
        /// Why the run must not compare records by content here (its summary says so),
        /// or nil when it compares them.
        var refusal: String? = nil
        var description: String { name }
    }

    static func quoted(_ text: String) -> String {
        String(data: try! JSONSerialization.data(withJSONObject: text, options: .fragmentsAllowed), encoding: .utf8)!
    }

    static let zoo: [Schema] = [
        Schema(
            name: "partial target, TEXT primary key",
            sql: """
                CREATE TABLE t (id TEXT PRIMARY KEY NOT NULL, libraryID INTEGER NOT NULL, remoteID TEXT, name TEXT NOT NULL DEFAULT '',
                  price REAL, tags TEXT, updatedAt TEXT NOT NULL) STRICT;
                CREATE UNIQUE INDEX t_identity ON t (libraryID, remoteID) WHERE remoteID IS NOT NULL;
                """,
            target: ["libraryID", "remoteID"],
            record: { index, variant, random in
                [
                    "id": quoted("id-\(index)"), "libraryID": "\(1 + index % 3)", "remoteID": index % 17 == 0 ? "null" : quoted("rm-\(index)"),
                    "name": quoted("name \(index) \(variant)"), "price": index % 5 == 0 ? "null" : "\(Double(index) / 4 + Double(variant))",
                    "tags": #"["a","b"]"#, "updatedAt": quoted("2026-11-\(10 + variant % 9)"),
                ]
            },
            respelled: { fields in
                var fields = fields
                if let price = fields["price"], let value = Double(price), value == value.rounded() { fields["price"] = "\(Int(value))" }
                return fields
            }),
        Schema(
            name: "rowid alias and CHECK, omitted alias",
            sql: "CREATE TABLE t (rid INTEGER PRIMARY KEY, remote TEXT NOT NULL UNIQUE, qty INTEGER CHECK (qty >= 0), note TEXT, flag);",
            target: ["remote"],
            record: { index, variant, _ in
                var fields = ["remote": quoted("r-\(index)"), "qty": "\(index % 7 + variant)", "note": quoted("note \(variant)"), "flag": index % 2 == 0 ? "true" : "1.5"]
                // Negative, so that the rowids SQLite gives the others never meet them.
                if index % 3 != 0 { fields["rid"] = "\(-index - 1)" }
                return fields
            },
            respelled: { fields in
                var fields = fields
                fields["qty"] = fields["qty"].map { quoted($0) }  // "3" into INTEGER
                return fields
            },
            refusal: "a CHECK constraint"),
        Schema(
            name: "AUTOINCREMENT, omitted alias",
            sql: "CREATE TABLE t (rid INTEGER PRIMARY KEY AUTOINCREMENT, remote TEXT NOT NULL UNIQUE, qty INTEGER);",
            target: ["remote"],
            record: { index, variant, _ in ["remote": quoted("r-\(index)"), "qty": "\(index % 7 + variant)"] },
            respelled: { $0 },
            refusal: "AUTOINCREMENT"),
        Schema(
            name: "a foreign key to itself with ON UPDATE CASCADE",
            sql: """
                CREATE TABLE t (k TEXT UNIQUE NOT NULL, code TEXT UNIQUE, note TEXT,
                  parent TEXT REFERENCES t (code) ON UPDATE CASCADE DEFERRABLE INITIALLY DEFERRED);
                """,
            target: ["k"],
            record: { index, variant, _ in
                ["k": quoted("k\(index)"), "code": quoted("c\(index)"), "note": quoted("n\(variant)"), "parent": index == 0 ? "null" : quoted("c\(index - 1)")]
            },
            respelled: { $0 },
            refusal: "a foreign key whose ON UPDATE or ON DELETE action"),
        Schema(
            name: "rowid alias without CHECK, omitted alias",
            sql: "CREATE TABLE t (rid INTEGER PRIMARY KEY, remote TEXT NOT NULL, qty INTEGER, note TEXT); CREATE UNIQUE INDEX t_remote ON t (remote);",
            target: ["remote"],
            record: { index, variant, _ in
                ["remote": quoted("r-\(index)"), "qty": "\(index % 7 + variant)", "note": variant == 0 ? "null" : quoted("note \(variant)")]
            },
            respelled: { fields in
                var fields = fields
                fields["qty"] = fields["qty"].map { "\($0).0" }
                return fields
            }),
        Schema(
            name: "STRICT soft delete, ANY and generated column",
            sql: """
                CREATE TABLE t (id TEXT PRIMARY KEY, code TEXT NOT NULL, n INTEGER, r REAL, a ANY, deleted INTEGER NOT NULL DEFAULT 0,
                  total REAL GENERATED ALWAYS AS (n * r) VIRTUAL) STRICT;
                CREATE UNIQUE INDEX t_code ON t (code) WHERE deleted = 0;
                """,
            target: ["code"],
            record: { index, variant, random in
                [
                    "id": quoted(random.uuid()), "code": quoted("c\(index)"), "n": "\(index)", "r": "\(Double(index) + 0.5 * Double(variant))",
                    "a": index % 3 == 0 ? quoted("07") : index % 3 == 1 ? "\(index)" : "\(Double(index) / 8)", "deleted": index % 11 == 0 ? "1" : "0",
                ]
            },
            respelled: { fields in
                var fields = fields
                fields["n"] = fields["n"].map { "\($0).0" }
                return fields
            }),
        Schema(
            name: "untyped, NUMERIC and a NOCASE key",
            sql: "CREATE TABLE t (k TEXT PRIMARY KEY COLLATE NOCASE, v NUMERIC, w, x TEXT);",
            target: ["k"],
            record: { index, variant, _ in
                ["k": quoted("Key\(index)"), "v": index % 4 == 0 ? quoted("\(index)") : "\(Double(index) + 0.25)", "w": index % 2 == 0 ? quoted("12") : "\(variant)", "x": "\(index)"]
            },
            respelled: { fields in
                var fields = fields
                fields["k"] = fields["k"].map { $0.lowercased() }  // the same key under NOCASE
                return fields
            }),
    ]

    /// The base records, then a re-run of them: most as they were, some changed, some
    /// changed and then back, some repeated, some respelled, some omitting a field, some
    /// new; in an order of its own.
    static func inputs(_ schema: Schema, seed: UInt64) -> (base: [String], rerun: [String]) {
        var random = Random(state: seed)
        let count = 400
        var fields: [[String: String]] = []
        for index in 0 ..< count { fields.append(schema.record(index, 0, &random)) }
        func json(_ fields: [String: String]) -> String {
            "{" + fields.sorted { $0.key < $1.key }.map { "\(quoted($0.key)):\($0.value)" }.joined(separator: ",") + "}"
        }
        var rerun: [String] = []
        for index in (0 ..< count).shuffled(using: &random) {
            var same = fields[index]
            // Random keys (the STRICT schema's ids) come again as they were.
            switch random.below(20) {
            case 0, 1:
                var changed = schema.record(index, 1 + random.below(3), &random)
                changed.merge(same.filter { $0.key == "id" }) { _, old in old }
                rerun.append(json(changed))
            case 2:
                var changed = schema.record(index, 2, &random)
                changed.merge(same.filter { $0.key == "id" }) { _, old in old }
                rerun.append(json(changed))
                rerun.append(json(same))  // and back
            case 3:
                rerun.append(json(same))
                rerun.append(json(same))  // repeated as it is
            case 4:
                rerun.append(json(schema.respelled(same)))
            case 5:
                same.removeValue(forKey: same.keys.sorted().first { !schema.target.contains($0) && $0 != "id" }!)
                rerun.append(json(same))
            default:
                rerun.append(json(same))
            }
        }
        for index in count ..< count + 40 { rerun.insert(json(schema.record(index, 0, &random)), at: random.below(rerun.count)) }
        return (fields.map(json), rerun)
    }

    struct Outcome: Equatable {
        var dump: String
        var counts: OutcomeCounts
        var unchangedRows: String?
    }

    static func run(
        _ schema: Schema, _ inputs: (base: [String], rerun: [String]), in directory: URL, name: String, comparison: ImportOptions.ContentComparison,
        _ configure: (inout ImportOptions) -> Void
    ) throws -> Outcome {
        let database = directory.appendingPathComponent("\(name).db").path
        TestSupport.remove(URL(fileURLWithPath: database))
        try TestSupport.createDatabase(database, schema: schema.sql)
        let base = TestSupport.write(inputs.base.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("base.jsonl"))
        _ = try TestSupport.runImport([base], database: database) {
            $0.table = "t"
            $0.upsert = schema.target
            $0.nullKey = .insert
            $0.contentComparison = .off
        }
        let rerun = TestSupport.write(inputs.rerun.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("rerun.jsonl"))
        let summary = try TestSupport.runImport([rerun], database: database) {
            $0.table = "t"
            $0.upsert = schema.target
            $0.nullKey = .insert
            $0.rowsPerBatch = 32
            $0.contentComparison = comparison
            configure(&$0)
        }
        let dump = try DatabaseQueue(path: database).read { db in
            try Row.fetchAll(db, sql: "SELECT rowid AS r, * FROM t ORDER BY rowid").map { row in
                row.databaseValues.map { "\($0.storage)" }.joined(separator: "|")
            }.joined(separator: "\n")
        }
        return Outcome(dump: dump, counts: summary.counts, unchangedRows: summary.unchangedRows)
    }

    @Test(arguments: zoo)
    func recordsPassedOverAsUnchangedLeaveWhatTheirUpsertsLeave(_ schema: Schema) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        for seed in [UInt64(11), 12] {
            let inputs = Self.inputs(schema, seed: seed)
            for strategy in [WriteStrategyKind.typed, .cached, .multirow] {
                let policies = [MergePolicy.replace, .coalesce] + (schema.sql.contains("updatedAt") ? [.newer(column: "updatedAt")] : [])
                for policy in policies {
                    for sortMemory in [0, 48] {
                        let context = "\(schema), seed \(seed), \(strategy), \(policy), sort memory \(sortMemory)"
                        let configure: (inout ImportOptions) -> Void = {
                            $0.strategy = strategy
                            $0.merge = policy
                            $0.sortMemoryMiB = sortMemory
                            $0.sortRunBytes = 8 << 10
                        }
                        let upserted = try Self.run(schema, inputs, in: directory, name: "upserted", comparison: .off, configure)
                        let compared = try Self.run(schema, inputs, in: directory, name: "compared", comparison: .always, configure)
                        #expect(compared.dump == upserted.dump, "\(context)")
                        #expect(compared.counts == upserted.counts, "\(context)")
                        #expect(upserted.unchangedRows == nil)
                        if let refusal = schema.refusal {
                            #expect(compared.unchangedRows?.contains("not compared by content: \(refusal)") == true, "\(context): \(compared.unchangedRows ?? "nil")")
                            continue
                        }
                        // Not a vacuous pass: many records were passed over (not respelled ones).
                        let matched = compared.unchangedRows.flatMap { text in
                            text.firstMatch(of: /after one scan: (\d+) record/).map { Int($0.output.1)! }
                        } ?? 0
                        #expect(matched > inputs.rerun.count / 3, "\(context): \(compared.unchangedRows ?? "nil")")
                    }
                }
            }
        }
    }

    /// Between two checkpoints (`--commit-every`) another connection changed a row; a
    /// later record held the row's content from before. Compared with the hashes of the
    /// scan, it was passed over and the other connection's change stayed, where its
    /// upsert restores the record's values. The hashes are dropped when another connection
    /// has written (`PRAGMA data_version`).
    @Test func aRowAnotherConnectionChangesBetweenCheckpointsIsNotTakenAsUnchanged() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id TEXT PRIMARY KEY, name TEXT NOT NULL, n INTEGER);")
        let lines = (0 ..< 1000).map { #"{"id":"id-\#($0)","name":"name \#($0)","n":\#($0)}"# }
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        _ = try TestSupport.runImport([input], database: database) { $0.table = "t"; $0.upsert = ["id"] }
        let wrote = Mutex(false)
        let summary = try TestSupport.runImport([input], database: database) {
            $0.table = "t"
            $0.upsert = ["id"]
            $0.rowsPerBatch = 50
            $0.commitEvery = 100
            $0.sortMemoryMiB = 0
            $0.contentComparison = .always
            $0.betweenCheckpoints = {
                guard !wrote.withLock({ $0 }) else { return }
                wrote.withLock { $0 = true }
                try! DatabaseQueue(path: database).write { try $0.execute(sql: "UPDATE t SET name = 'changed elsewhere' WHERE id = 'id-999'") }
            }
        }
        #expect(wrote.withLock { $0 })
        #expect(try DatabaseQueue(path: database).read { try String.fetchOne($0, sql: "SELECT name FROM t WHERE id = 'id-999'") } == "name 999")
        #expect(summary.counts.updated == 1 && summary.counts.unchanged == 999, "\(summary.counts)")
        #expect(summary.unchangedRows?.contains("until another connection wrote between checkpoints") == true, "\(summary.unchangedRows ?? "nil")")
    }

    /// What a re-run of an unchanged file does by itself (`auto`): after the first
    /// records, all unchanged, the table is scanned on a second connection while the
    /// writer goes on, and the rest are compared. The table ends as it was, every record
    /// counted unchanged; a delta whose records all change is never compared. (The scan's
    /// assumed cost is lowered: on 30,000 rows in the page cache a statement is cheap,
    /// and the real rule would rightly keep the statements.)
    @Test func aReRunOfAnUnchangedFileIsComparedByContentByItself() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: CronRunTests.schema)
        let input = TestSupport.write(CronRunTests.itemsJSONL(30_000), to: directory.appendingPathComponent("items.jsonl"))
        func run(_ path: String) throws -> ImportSummary {
            try TestSupport.runImport([path], database: database) {
                $0.table = "items"
                $0.upsert = ["libraryID", "remoteID"]
                $0.comparisonCost.scanNanosecondsPerRow = 1
                // (Under load the scan's thread lagged the input's end once, in CI.)
                $0.comparisonCost.writerWaitsForTheScan = true
                // Small batches: the decision comes early enough for most records to follow.
                $0.rowsPerBatch = 1024
                $0.sortMemoryMiB = 0
            }
        }
        _ = try run(input)
        let before = try TestSupport.dump(database)
        let again = try run(input)
        #expect(again.counts.unchanged == 30_000)
        #expect(again.unchangedRows?.hasPrefix("compared by content with the table's") == true, "\(again.unchangedRows ?? "nil")")
        #expect(again.unchangedRows?.contains(": 0 record(s) matched") == false, "\(again.unchangedRows ?? "nil")")
        #expect(try TestSupport.dump(database) == before)
        let delta = TestSupport.write(
            CronRunTests.itemsJSONL(30_000).replacingOccurrences(of: #""notes":"n"#, with: #""notes":"changed "#), to: directory.appendingPathComponent("delta.jsonl"))
        let changed = try run(delta)
        #expect(changed.counts.updated == 30_000)
        #expect(changed.unchangedRows == nil, "\(changed.unchangedRows ?? "nil")")
    }

    /// Inside the caller's transaction (the Swift API) a second connection sees only what
    /// is committed: a row the caller changed before the import looked unchanged to it,
    /// and a record with the row's committed values was passed over, leaving the caller's
    /// change. Such a run scans on its own connection, which sees it.
    @Test func insideTheCallersTransactionTheRunSeesTheCallersChanges() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id TEXT PRIMARY KEY, name TEXT NOT NULL, n INTEGER);")
        let lines = (0 ..< 200).map { #"{"id":"id-\#($0)","name":"name \#($0)","n":\#($0)}"# }
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        _ = try TestSupport.runImport([input], database: database) { $0.table = "t"; $0.upsert = ["id"] }
        var options = ImportOptions(inputs: [input], databasePath: database)
        options.table = "t"
        options.upsert = ["id"]
        options.rowsPerBatch = 20
        options.sortMemoryMiB = 0
        options.contentComparison = .always
        let summary = try DatabaseQueue(path: database).write { db in
            try db.execute(sql: "UPDATE t SET name = 'changed by the caller' WHERE id = 'id-150'")
            return try Importer(options: options).run(in: db)
        }
        #expect(try DatabaseQueue(path: database).read { try String.fetchOne($0, sql: "SELECT name FROM t WHERE id = 'id-150'") } == "name 150")
        #expect(summary.counts.updated == 1 && summary.counts.unchanged == 199, "\(summary.counts)")
        #expect(summary.unchangedRows?.hasPrefix("compared by content") == true, "\(summary.unchangedRows ?? "nil")")
    }
}
