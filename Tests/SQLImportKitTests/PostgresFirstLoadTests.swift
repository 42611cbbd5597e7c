import Foundation
import Testing

@testable import SQLImportKit

/// Key-ordered writes and deferred indexes on PostgreSQL: records applied in sorted runs,
/// and a first load whose key indexes are built once at its end, leave what records
/// applied in input order with every index in place leave, on random UUID keys.
@Suite struct PostgresFirstLoadTests {
    typealias Item = KeyOrderedWriteTests.Item

    static let schema = """
        CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, "libraryID" INTEGER NOT NULL, "remoteID" TEXT, name TEXT, qty INTEGER,
          "updatedAt" TEXT NOT NULL);
        CREATE UNIQUE INDEX items_identity ON items ("libraryID", "remoteID") WHERE "remoteID" IS NOT NULL;
        CREATE INDEX items_name ON items (name) WITH (fillfactor = 70);
        """

    static let rowsQuery = #"SELECT id, "libraryID", coalesce("remoteID", '<null>'), coalesce(name, '<null>'), coalesce(qty::text, '<null>'), "updatedAt" FROM items ORDER BY id"#

    /// Every index and constraint of `items`, as the catalog prints them.
    static let indexesQuery = """
        SELECT replace(indexdef, current_schema() || '.', '') FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'items'
        UNION ALL SELECT conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'items'::regclass ORDER BY 1
        """

    struct Outcome {
        var rows: String
        var summaries: [ImportSummary]
    }

    /// The base then the delta into a new schema of `setUp`.
    static func load(
        _ inputs: (base: [Item], delta: [Item]), in directory: URL, name: String, setUp: String = schema, _ configure: (inout ImportOptions) -> Void
    ) throws -> Outcome {
        let url = try PostgresServer.database(schema: PostgresTargetTests.schemaName(name), setUp: setUp)
        var summaries: [ImportSummary] = []
        for (file, items) in [("base", inputs.base), ("delta", inputs.delta)] where !items.isEmpty {
            let input = TestSupport.write(items.map(\.json).joined(separator: "\n") + "\n", to: directory.appendingPathComponent("\(name)-\(file).jsonl"))
            var options = ImportOptions(inputs: [input], databasePath: url)
            options.table = "items"
            options.upsert = ["libraryID", "remoteID"]
            options.nullKey = .insert
            options.rowsPerBatch = 64
            configure(&options)
            summaries.append(try PostgresImporter(options: options).run())
        }
        #expect(try PostgresServer.query(url, indexesQuery) == expectedIndexes, "\(name): every index is back as it was")
        return Outcome(rows: try PostgresServer.query(url, rowsQuery), summaries: summaries)
    }

    static let expectedIndexes = """
        CREATE INDEX items_name ON items USING btree (name) WITH (fillfactor='70')
        CREATE UNIQUE INDEX items_identity ON items USING btree ("libraryID", "remoteID") WHERE ("remoteID" IS NOT NULL)
        CREATE UNIQUE INDEX items_pkey ON items USING btree (id)
        items_pkey PRIMARY KEY (id)

        """

    /// The property: in input order with every index in place, with deferred indexes, and
    /// with deferred indexes and sorted runs, the same rows and the same counts, for every
    /// merge policy, with and without keys repeated inside each input.
    @Test(arguments: [UInt64(1), 2])
    func sortedRunsAndDeferredIndexesLeaveWhatInputOrderLeaves(seed: UInt64) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        for repeats in [false, true] {
            let data = KeyOrderedWriteTests.inputs(seed: seed, count: 1200, repeats: repeats)
            for policy in [MergePolicy.replace, .coalesce, .newer(column: "updatedAt"), .ignore] {
                let context = "seed \(seed), repeats \(repeats), \(policy)"
                let plain = try Self.load(data, in: directory, name: "plain") {
                    $0.merge = policy
                    $0.sortMemoryMiB = 0
                    $0.postgresDefersIndexes = false
                }
                let deferred = try Self.load(data, in: directory, name: "deferred") {
                    $0.merge = policy
                    $0.sortMemoryMiB = 0
                }
                let sorted = try Self.load(data, in: directory, name: "sorted") {
                    $0.merge = policy
                    $0.sortRunBytes = 16 << 10
                }
                #expect(plain.summaries[0].deferredIndexes.isEmpty && plain.summaries[0].keyOrder == nil)
                for outcome in [deferred, sorted] {
                    #expect(outcome.rows == plain.rows, "\(context)")
                    // A first load defers the key indexes and the plain one; a repeated key
                    // builds them where it is met.
                    #expect(outcome.summaries[0].deferredIndexes == ["items_pkey", "items_identity", "items_name"], "\(context)")
                    #expect((outcome.summaries[0].indexesBuiltEarly != nil) == repeats, "\(context): \(String(describing: outcome.summaries[0].indexesBuiltEarly))")
                    #expect(outcome.summaries[1].deferredIndexes.isEmpty, "\(context): the delta meets rows")
                }
                #expect(sorted.summaries[0].keyOrder?.contains(" run(s) sorted") == true && !sorted.summaries[0].keyOrder!.contains(": 0 run(s)"),
                    "\(context): \(String(describing: sorted.summaries[0].keyOrder))")
                #expect(deferred.summaries[0].counts == plain.summaries[0].counts && deferred.summaries[1].counts == plain.summaries[1].counts, "\(context)")
                for (a, b) in zip(sorted.summaries.map(\.counts), plain.summaries.map(\.counts)) {
                    #expect(a.read == b.read && a.inserted == b.inserted && a.duplicateKeys == b.duplicateKeys && a.outsidePartialIndex == b.outsidePartialIndex, "\(context)")
                    // Sorting puts a repeat next to its earlier record, in one batch, where
                    // the later record supersedes it: only then may updated and unchanged
                    // differ.
                    if !repeats { #expect(a == b, "\(context)") }
                }
            }
        }
    }

    /// An integer key given as text (" 7" is 7 to PostgreSQL, with other bytes than "7")
    /// could meet an earlier record unseen: the indexes are built before its batch, and
    /// the upserts merge the two as they do with every index in place.
    @Test func anIntegerKeyGivenAsTextBuildsTheIndexesBeforeItsBatch() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let setUp = "CREATE TABLE things (id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
        var lines = (1 ... 100).map { #"{"id":\#($0),"name":"first \#($0)"}"# }
        lines.append(#"{"id":" 7","name":"again"}"#)
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("things.jsonl"))
        var results: [String] = []
        for defers in [true, false] {
            let url = try PostgresServer.database(schema: PostgresTargetTests.schemaName("text\(defers)"), setUp: setUp)
            var options = ImportOptions(inputs: [input], databasePath: url)
            options.upsert = ["id"]
            options.rowsPerBatch = 16
            options.postgresDefersIndexes = defers
            let summary = try PostgresImporter(options: options).run()
            if defers {
                #expect(summary.deferredIndexes == ["things_pkey"])
                #expect(summary.indexesBuiltEarly?.contains("an integer key given as text") == true, "\(String(describing: summary.indexesBuiltEarly))")
            }
            results.append("\(summary.counts.inserted) \(summary.counts.updated) " + (try PostgresServer.query(url, "SELECT count(*), max(name) FILTER (WHERE id = 7) FROM things")))
            #expect(try PostgresServer.query(url, "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = 'things'::regclass") == "PRIMARY KEY (id)\n")
        }
        #expect(results[0] == results[1])
        #expect(results[0] == "100 1 100|again\n", "\(results)")
    }

    /// What would be lost by dropping an index keeps them all, and what makes the order
    /// of writes visible keeps the input order; the load is the same either way.
    @Test(arguments: [
        ("foreign key", "CREATE TABLE notes (item TEXT REFERENCES items (id));", "", "sorted by"),
        ("comment", "COMMENT ON INDEX items_identity IS 'sync';", "", "sorted by"),
        ("uuid key", "ALTER TABLE items ALTER COLUMN \"remoteID\" TYPE uuid USING NULL;", "", "input order: a key column is not"),
        ("trigger", "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.qty := 1; RETURN NEW; END $$; CREATE TRIGGER touch BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION touch();", "deferred", "input order: the table has triggers"),
        ("serial", "ALTER TABLE items ADD COLUMN seq serial;", "deferred", "input order: new rows take identity or sequence values"),
        ("other unique", "CREATE UNIQUE INDEX items_name_unique ON items (name);", "deferred", "input order: unique index or exclusion constraint \"items_name_unique\""),
    ])
    func whatADropOrASortWouldChangeIsLeftAlone(_ name: String, _ setUp: String, _ deferral: String, _ keyOrder: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        var data = KeyOrderedWriteTests.inputs(seed: 5, count: 300, repeats: false)
        data.delta = []
        if name == "uuid key" { for index in data.base.indices { data.base[index].remote = data.base[index].remote.map { String($0.dropFirst(3)) } } }
        let url = try PostgresServer.database(schema: PostgresTargetTests.schemaName(name), setUp: Self.schema + setUp)
        let before = try PostgresServer.query(url, Self.indexesQuery)
        let input = TestSupport.write(data.base.map(\.json).joined(separator: "\n") + "\n", to: directory.appendingPathComponent("items.jsonl"))
        var options = ImportOptions(inputs: [input], databasePath: url)
        options.table = "items"
        options.upsert = ["libraryID", "remoteID"]
        options.nullKey = .insert
        options.rowsPerBatch = 16
        options.sortRunBytes = 4 << 10
        let summary = try PostgresImporter(options: options).run()
        #expect(summary.counts.inserted == 300)
        #expect(summary.deferredIndexes.isEmpty == (deferral != "deferred"), "\(name): \(summary.deferredIndexes)")
        #expect(summary.keyOrder?.hasPrefix(keyOrder) == true, "\(name): \(String(describing: summary.keyOrder))")
        #expect(try PostgresServer.query(url, Self.indexesQuery) == before)
        #expect(try PostgresServer.query(url, "SELECT count(*) FROM items") == "300\n")
        if name == "comment" { #expect(try PostgresServer.query(url, "SELECT obj_description('items_identity'::regclass)") == "sync\n") }
    }

    /// Another session on the table: the load does not wait for its lock, and keeps the
    /// indexes.
    @Test func anotherSessionOnTheTableKeepsTheIndexes() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        var data = KeyOrderedWriteTests.inputs(seed: 9, count: 200, repeats: false)
        data.delta = []
        let url = try PostgresServer.database(schema: PostgresTargetTests.schemaName(#function), setUp: Self.schema)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reader.arguments = ["psql", "-q", url, "-c", "BEGIN", "-c", "SELECT count(*) FROM items", "-c", "SELECT pg_sleep(20)"]
        reader.standardOutput = FileHandle.nullDevice
        try reader.run()
        defer { reader.terminate() }
        var holding = false
        for _ in 0 ..< 100 where !holding {
            holding = try PostgresServer.query(url, "SELECT count(*) FROM pg_locks WHERE relation = 'items'::regclass AND pid <> pg_backend_pid()") != "0\n"
            if !holding { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(holding)
        let input = TestSupport.write(data.base.map(\.json).joined(separator: "\n") + "\n", to: directory.appendingPathComponent("items.jsonl"))
        var options = ImportOptions(inputs: [input], databasePath: url)
        options.table = "items"
        options.upsert = ["libraryID", "remoteID"]
        options.nullKey = .insert
        let summary = try PostgresImporter(options: options).run()
        #expect(summary.deferredIndexes.isEmpty)
        #expect(summary.counts.inserted == 200)
    }
}
