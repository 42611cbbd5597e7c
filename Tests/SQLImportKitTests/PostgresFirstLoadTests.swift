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

    /// `items` written as JSON Lines, and the options that upsert them into `url`'s
    /// `items` on the identity key, in batches of `rowsPerBatch`.
    static func itemsOptions(_ items: [Item], in directory: URL, url: String, rowsPerBatch: Int = 16) -> ImportOptions {
        let input = TestSupport.write(items.map(\.json).joined(separator: "\n") + "\n", to: directory.appendingPathComponent("items.jsonl"))
        var options = ImportOptions(inputs: [input], databasePath: url)
        options.table = "items"
        options.upsert = ["libraryID", "remoteID"]
        options.nullKey = .insert
        options.rowsPerBatch = rowsPerBatch
        return options
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
        // A CSV's integers are text that spells them as PostgreSQL prints them: deferred
        // to the end.
        let csv = TestSupport.write("id,name\n" + (1 ... 100).map { "\($0),csv \($0)" }.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("things.csv"))
        let url = try PostgresServer.database(schema: PostgresTargetTests.schemaName("csvkeys"), setUp: setUp)
        var options = ImportOptions(inputs: [csv], databasePath: url)
        options.upsert = ["id"]
        options.rowsPerBatch = 16
        let summary = try PostgresImporter(options: options).run()
        #expect(summary.deferredIndexes == ["things_pkey"] && summary.indexesBuiltEarly == nil, "\(String(describing: summary.indexesBuiltEarly))")
        #expect(try PostgresServer.query(url, "SELECT count(*), max(name) FILTER (WHERE id = 7) FROM things") == "100|csv 7\n")
        for (text, spells) in [("0", true), ("42", true), ("-42", true), ("-0", false), ("007", false), ("+1", false), (" 1", false), ("1 ", false), ("-", false)] {
            #expect(text.utf8.withContiguousStorageIfAvailable { PostgresRun.spellsAnInteger(UnsafeRawBufferPointer($0)) } == spells, "\(text)")
        }
    }

    /// What would be lost by dropping an index keeps them all, and what makes the order
    /// of writes visible keeps the input order; the load is the same either way.
    @Test(arguments: [
        ("foreign key", "CREATE TABLE notes (item TEXT REFERENCES items (id));", "", "sorted by"),
        ("comment", "COMMENT ON INDEX items_identity IS 'sync';", "", "sorted by"),
        ("key storage", "ALTER TABLE items DROP CONSTRAINT items_pkey; ALTER TABLE items ADD CONSTRAINT items_pkey PRIMARY KEY (id) WITH (fillfactor = 50);", "", "sorted by"),
        ("uuid key", "ALTER TABLE items ALTER COLUMN \"remoteID\" TYPE uuid USING NULL;", "", "input order: a key column is not"),
        ("trigger", "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.qty := 1; RETURN NEW; END $$; CREATE TRIGGER touch BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION touch();", "", "input order: the table has triggers"),
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
        var options = Self.itemsOptions(data.base, in: directory, url: url)
        options.sortRunBytes = 4 << 10
        let summary = try PostgresImporter(options: options).run()
        #expect(summary.counts.inserted == 300)
        #expect(summary.deferredIndexes.isEmpty == (deferral != "deferred"), "\(name): \(summary.deferredIndexes)")
        #expect(summary.keyOrder?.hasPrefix(keyOrder) == true, "\(name): \(String(describing: summary.keyOrder))")
        #expect(try PostgresServer.query(url, Self.indexesQuery) == before)
        #expect(try PostgresServer.query(url, "SELECT count(*) FROM items") == "300\n")
        if name == "comment" { #expect(try PostgresServer.query(url, "SELECT obj_description('items_identity'::regclass)") == "sync\n") }
    }

    /// A run that fails after the drop leaves the indexes as they were, as the rest of
    /// its transaction; a dry run defers nothing (it would lock readers out for nothing).
    @Test func aFailedOrDryRunLeavesTheIndexesAsTheyWere() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        var data = KeyOrderedWriteTests.inputs(seed: 3, count: 400, repeats: false)
        data.delta = []
        data.base[390].name = "poison"
        let url = try PostgresServer.database(
            schema: PostgresTargetTests.schemaName(#function), setUp: Self.schema + "ALTER TABLE items ADD CONSTRAINT no_poison CHECK (name <> 'poison');")
        let before = try PostgresServer.query(url, Self.indexesQuery)
        #expect(before.contains("items_identity") && before.contains("items_pkey PRIMARY KEY"))
        var options = Self.itemsOptions(data.base, in: directory, url: url)
        let importer = PostgresImporter(options: options)
        #expect(throws: PostgresError.self) { try importer.run() }
        #expect(importer.partialSummary?.deferredIndexes == ["items_pkey", "items_identity", "items_name"], "the indexes were dropped before the failure")
        #expect(try PostgresServer.query(url, Self.indexesQuery) == before)
        #expect(try PostgresServer.query(url, "SELECT count(*) FROM items") == "0\n")
        data.base[390].name = "fine"
        _ = TestSupport.write(data.base.map(\.json).joined(separator: "\n") + "\n", to: directory.appendingPathComponent("items.jsonl"))
        options.dryRun = true
        let dry = try PostgresImporter(options: options).run()
        #expect(dry.deferredIndexes.isEmpty && dry.counts.inserted == 400)
        #expect(try PostgresServer.query(url, "SELECT count(*) FROM items") == "0\n")
    }

    /// A role that may write the table but does not own it, and a partition, whose
    /// indexes belong to its parent's: the indexes stay (the same objects, by their
    /// oids), and the load is the same.
    @Test(arguments: ["not the owner", "a partition", "its partitioned parent"])
    func whatCannotDropItsIndexesLoadsWithThem(_ name: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let role = "sqlimport_app_\(UUID().uuidString.prefix(8).lowercased())"
        let schemaName = PostgresTargetTests.schemaName(name)
        let partitioned = """
            CREATE TABLE things (lib INTEGER NOT NULL, id TEXT NOT NULL, name TEXT, PRIMARY KEY (lib, id)) PARTITION BY LIST (lib);
            CREATE TABLE things_1 PARTITION OF things FOR VALUES IN (1);
            CREATE UNIQUE INDEX things_1_name ON things_1 (name);
            """
        let plain = "CREATE TABLE things (lib INTEGER NOT NULL, id TEXT NOT NULL, name TEXT, PRIMARY KEY (lib, id));"
        var url = try PostgresServer.database(schema: schemaName, setUp: name == "not the owner" ? plain : partitioned)
        let owner = url
        if name == "not the owner" {
            _ = try PostgresServer.query(url, "CREATE ROLE \(role) LOGIN; GRANT USAGE ON SCHEMA \(schemaName) TO \(role); GRANT SELECT, INSERT, UPDATE ON things TO \(role);")
            url = url.replacingOccurrences(of: "://postgres@", with: "://\(role)@")
            #expect(url != owner)
        }
        defer { if name == "not the owner" { _ = try? PostgresServer.query(owner, "DROP OWNED BY \(role); DROP ROLE \(role);") } }
        let before = try PostgresServer.query(owner, "SELECT string_agg(i.indexrelid::text, ',' ORDER BY 1) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = current_schema()::regnamespace")
        let lines = (0 ..< 300).map { #"{"lib":1,"id":"\#(UUID().uuidString.lowercased())","name":"n\#($0)"}"# }
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("things.jsonl"))
        var options = ImportOptions(inputs: [input], databasePath: url)
        options.table = name == "a partition" ? "things_1" : "things"
        options.upsert = ["lib", "id"]
        options.rowsPerBatch = 16
        options.sortRunBytes = 4 << 10
        let summary = try PostgresImporter(options: options).run()
        #expect(summary.deferredIndexes.isEmpty, "\(summary.deferredIndexes)")
        #expect(summary.counts.inserted == 300)
        // The parent's key order sees its partition's own unique index.
        #expect(summary.keyOrder?.hasPrefix(name == "not the owner" ? "sorted by" : #"input order: unique index or exclusion constraint "things_1_name""#) == true,
            "\(String(describing: summary.keyOrder))")
        #expect(try PostgresServer.query(owner, "SELECT string_agg(i.indexrelid::text, ',' ORDER BY 1) FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid WHERE c.relnamespace = current_schema()::regnamespace") == before)
        #expect(try PostgresServer.query(owner, "SELECT count(*) FROM things") == "300\n")
    }

    /// Another session on the table: the load does not wait for its lock (NOWAIT; with a
    /// minute's --busy-timeout, waiting would outlast the other session and defer), and
    /// keeps the indexes.
    @Test func anotherSessionOnTheTableKeepsTheIndexes() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        var data = KeyOrderedWriteTests.inputs(seed: 9, count: 200, repeats: false)
        data.delta = []
        let url = try PostgresServer.database(schema: PostgresTargetTests.schemaName(#function), setUp: Self.schema)
        let reader = Process()
        reader.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        reader.arguments = ["psql", "-q", url, "-c", "BEGIN", "-c", "SELECT count(*) FROM items", "-c", "SELECT pg_sleep(8)"]
        reader.standardOutput = FileHandle.nullDevice
        try reader.run()
        defer { reader.terminate() }
        var holding = false
        for _ in 0 ..< 100 where !holding {
            holding = try PostgresServer.query(url, "SELECT count(*) FROM pg_locks WHERE relation = 'items'::regclass AND pid <> pg_backend_pid()") != "0\n"
            if !holding { Thread.sleep(forTimeInterval: 0.1) }
        }
        #expect(holding)
        var options = Self.itemsOptions(data.base, in: directory, url: url, rowsPerBatch: 4096)
        options.busyTimeoutMilliseconds = 60_000
        let summary = try PostgresImporter(options: options).run()
        #expect(summary.deferredIndexes.isEmpty)
        #expect(summary.counts.inserted == 200)
    }
}
