import Foundation
import GRDB
import Testing

/// The ways rows went wrong with exit 0 (issue 14), each run end to end through the
/// built binary on real public data (`fixtures/real/`, see its README) or the bundled
/// example, on the schemas real apps have.
@Suite struct SilentlyWrongRowTests {
    struct Workspace {
        let directory = TestSupport.temporaryDirectory()
        var database: String { directory.appendingPathComponent("app.db").path }

        func run(_ arguments: [String]) throws -> TestSupport.Output {
            try TestSupport.run(arguments + ["--db", database, "--report", report.path], in: directory)
        }

        var report: URL { directory.appendingPathComponent("report.json") }

        /// The counts of the last run's report.
        func counts() throws -> [String: Int] {
            let json = try JSONSerialization.jsonObject(with: Data(contentsOf: report)) as! [String: Any]
            return json["counts"] as! [String: Int]
        }

        func value<T: DatabaseValueConvertible>(_ sql: String) throws -> T? {
            try DatabaseQueue(path: database).read { try T.fetchOne($0, sql: sql) }
        }

        func schema(_ sql: String) throws { try TestSupport.createDatabase(database, schema: sql) }
        func copy(_ name: String, as target: String? = nil) -> String {
            let source = TestSupport.fixtures.appendingPathComponent(name)
            let destination = directory.appendingPathComponent(target ?? source.lastPathComponent)
            try? FileManager.default.copyItem(at: source, to: destination)
            return destination.path
        }
        func cleanUp() { TestSupport.remove(directory) }
    }

    static let seedsSchema = try! String(contentsOf: TestSupport.fixtures.appendingPathComponent("items.schema.sql"), encoding: .utf8)

    @Test func theMissionCommandCreatesTheSeedsShapeAndReRunsWriteNothing() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let items = work.copy("items.jsonl")
        let first = try work.run([items, "--upsert", "libraryID,remoteID"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try work.counts()["inserted"] == 20)
        let index: String? = try work.value("SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'items' AND sql IS NOT NULL")
        #expect(index?.hasSuffix(#"("libraryID", "remoteID") WHERE "remoteID" IS NOT NULL"#) == true)
        #expect(try work.value("SELECT group_concat(name) FROM pragma_table_info('items') WHERE pk > 0") == "id")
        let again = try work.run([items, "--upsert", "libraryID,remoteID"])
        #expect(again.status == 0, "\(again.stderr)")
        let counts = try work.counts()
        #expect(counts["inserted"] == 0 && counts["updated"] == 0 && counts["unchanged"] == 20)
        // --pk with --create-index on a fresh table takes the same shape and stays idempotent.
        let other = Workspace()
        defer { other.cleanUp() }
        let copy = other.copy("items.jsonl")
        for _ in 0 ..< 2 {
            let run = try other.run([copy, "--upsert", "libraryID,remoteID", "--pk", "id", "--create-index"])
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(try other.counts()["unchanged"] == 20)
    }

    @Test func aNewTableWithNullKeysAndNoIdIsRefusedBeforeWriting() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let flights = work.copy("real/flights.csv")
        let run = try work.run([flights, "--null", "NA", "--upsert", "tailnum,year,month,day,hour"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("flights.csv:921") && run.stderr.contains("--pk"), "\(run.stderr)")
        #expect(try work.value("SELECT count(*) FROM sqlite_schema WHERE name = 'flights'") == 0)
    }

    /// A record with a NULL target key and a NULL or omitted primary key, in an input
    /// whose other records supply the primary key: no clause can match it, and every run
    /// inserted it again with exit 0 and `nullKey` 0 (the primary-key clause was taken to
    /// match because the input had the field). It is a null key now, under each policy,
    /// in a TEXT-keyed table and through an `INTEGER PRIMARY KEY`.
    @Test(arguments: ["TEXT", "INTEGER"])
    func aRecordWithoutEitherKeyIsANullKeyWhenOthersSupplyTheirs(_ idType: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("CREATE TABLE t (id \(idType) PRIMARY KEY, lib INTEGER, v TEXT); CREATE UNIQUE INDEX u ON t (lib);")
        let input = work.directory.appendingPathComponent("t.jsonl")
        TestSupport.write(#"{"id":1,"lib":1,"v":"x"}"# + "\n" + #"{"lib":null,"v":"y"}"# + "\n" + #"{"id":null,"lib":null,"v":"z"}"# + "\n", to: input)
        let refused = try work.run([input.path, "--table", "t", "--upsert", "lib"])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("t.jsonl:2") && refused.stderr.contains("--null-key"), "\(refused.stderr)")
        #expect(try work.value("SELECT count(*) FROM t") == 0)
        for _ in 0 ..< 2 {
            let skipped = try work.run([input.path, "--table", "t", "--upsert", "lib", "--null-key", "skip"])
            #expect(skipped.status == 2)
            #expect(try work.counts()["nullKey"] == 2)
        }
        #expect(try work.value("SELECT count(*) FROM t") == 1)
        let inserted = try work.run([input.path, "--table", "t", "--upsert", "lib", "--null-key", "insert"])
        #expect(inserted.status == 0)
        #expect(try work.counts()["nullKey"] == 2)
        #expect(inserted.stderr.contains("a re-run will insert them again"), "\(inserted.stderr)")
    }

    /// With a partial index as the target whose predicate is not `col IS NOT NULL`, the
    /// record's values are bound to evaluate it, and a value the binder refuses (`0959`
    /// into a REAL column) ended the run as an internal error (exit 70, a Swift dump,
    /// the good records lost, `--on-error skip` or not). It is the record's error now.
    @Test(arguments: ["typed", "cached", "multirow"])
    func aRefusedValueWithAPartialTargetIsTheRecordsError(_ strategy: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("""
            CREATE TABLE t (id TEXT PRIMARY KEY, lib INTEGER, status TEXT NOT NULL DEFAULT 'a', v REAL);
            CREATE UNIQUE INDEX u_live ON t (lib) WHERE status IN ('a', 'b');
            """)
        let input = work.directory.appendingPathComponent("t.jsonl")
        TestSupport.write(#"{"lib":1,"v":"2.5"}"# + "\n" + #"{"lib":3,"v":"0959"}"# + "\n", to: input)
        let skipped = try work.run([input.path, "--table", "t", "--upsert", "lib", "--on-error", "skip", "--strategy", strategy])
        #expect(skipped.status == 2, "\(skipped.stderr)")
        #expect(skipped.stderr.contains(#"t.jsonl:2 (byte 20): field "v" = 0959 has a leading zero"#), "\(skipped.stderr)")
        #expect(try work.value("SELECT count(*) FROM t") == 1)
        let stopped = try work.run([input.path, "--table", "t", "--upsert", "lib", "--strategy", strategy])
        #expect(stopped.status == 65, "\(stopped.stderr)")
    }

    /// A STRICT table's `INTEGER PRIMARY KEY` in the input, `--merge newer`, and a stored
    /// row newer than the record: the statement with the primary-key clause first made
    /// SQLite resolve the rowid conflict before checking types, and a value the column
    /// refuses was counted skipped with exit 0, where the plain upsert refuses it.
    @Test(arguments: ["typed", "cached", "multirow"])
    func aValueAStrictTableRefusesIsRefusedWhenTheStoredRowIsNewer(_ strategy: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("""
            CREATE TABLE t (id INTEGER PRIMARY KEY, lib INTEGER, up TEXT, n INTEGER) STRICT; CREATE UNIQUE INDEX u ON t (lib);
            INSERT INTO t VALUES (5, 2, '2026-01-01', 1);
            """)
        let input = work.directory.appendingPathComponent("t.jsonl")
        TestSupport.write(#"{"id":5,"lib":2,"up":"2025-01-01","n":"abc"}"# + "\n", to: input)
        let refused = try work.run([input.path, "--table", "t", "--upsert", "lib", "--merge", "newer:up", "--strategy", strategy])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains(#""n" = "abc""#) && refused.stderr.contains("INTEGER"), "\(refused.stderr)")
    }

    /// Repeats in a WITHOUT ROWID table (counted by the `KeyLedger`, not by rowid): a
    /// record set aside while writing made the next record with its key a repeat (a count
    /// too many; `--duplicate-keys error` stopped the run), and ` 20` or `+20` before `20`
    /// in an INTEGER key, one row to SQLite, was no repeat. Both are counted as in a rowid
    /// table now.
    @Test(arguments: ["", " WITHOUT ROWID"])
    func repeatsAreCountedAsTheIndexComparesKeysWithOrWithoutRowids(_ options: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("CREATE TABLE t (id TEXT PRIMARY KEY, k1 TEXT, v INTEGER NOT NULL)\(options); CREATE UNIQUE INDEX u_k1 ON t (k1);")
        let rejected = work.directory.appendingPathComponent("rejected.jsonl")
        TestSupport.write(#"{"id":"a","k1":"ka","v":null}"# + "\n" + #"{"id":"a","k1":"ka","v":2}"# + "\n", to: rejected)
        let afterReject = try work.run([rejected.path, "--table", "t", "--upsert", "k1", "--on-error", "skip", "--duplicate-keys", "error"])
        #expect(afterReject.status == 2, "\(options): \(afterReject.stderr)")
        #expect(try work.counts()["duplicateKeys"] == 0)
        #expect(try work.value("SELECT v FROM t WHERE k1 = 'ka'") == 2)
        try work.schema("CREATE TABLE n (id INTEGER PRIMARY KEY NOT NULL, v TEXT)\(options);")
        for spelling in [#"" 20""#, #""+20""#, #""20""#, "20.0"] {
            let repeated = work.directory.appendingPathComponent("n.jsonl")
            TestSupport.write(#"{"id":\#(spelling),"v":"a"}"# + "\n" + #"{"id":20,"v":"b"}"# + "\n", to: repeated)
            let warned = try work.run([repeated.path, "--table", "n", "--upsert", "id"])
            let duplicates = try work.counts()["duplicateKeys"]
            #expect(warned.status == 0 && duplicates == 1, "\(options) \(spelling): \(warned.stderr)")
            let refused = try work.run([repeated.path, "--table", "n", "--upsert", "id", "--duplicate-keys", "error"])
            #expect(refused.status == 65, "\(options) \(spelling): \(refused.stderr)")
        }
    }

    /// `numbersKeptAsText` and its warning ("were stored as TEXT") counted numbers that a
    /// REAL column refused, and those of records set aside: none was stored.
    @Test func numbersKeptAsTextCountsOnlyNumbersStoredAsText() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("CREATE TABLE t (id TEXT PRIMARY KEY, v REAL, big TEXT)")
        let input = work.directory.appendingPathComponent("t.jsonl")
        TestSupport.write(
            #"{"id":"a","v":18446744073709551615,"big":1}"# + "\n" + #"{"id":"b","v":1,"big":18446744073709551616}"# + "\n", to: input)
        let result = try work.run([input.path, "--table", "t", "--upsert", "id", "--on-error", "skip"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(try work.counts()["numbersKeptAsText"] == 1)
        #expect(result.stderr.contains("1 number(s) do not fit a 64-bit integer or a double exactly and were stored as TEXT"), "\(result.stderr)")
        #expect(try work.value("SELECT big FROM t WHERE id = 'b'") == "18446744073709551616")
    }

    /// Field names were matched as Swift compares strings, by canonical equivalence:
    /// `café` composed and decomposed, or `K` and the Kelvin sign (U+212A), became one
    /// field and one column, which took the last value (exit 0; a helper's differential
    /// test against Python's json and csv). SQLite keeps such names apart, and so do the
    /// fields, the columns a run creates, and the columns it fills.
    @Test func namesSQLiteKeepsApartAreNeverMerged() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}", kelvin = "\u{212A}"
        // A table the run creates from a CSV header.
        let csv = work.directory.appendingPathComponent("names.csv")
        TestSupport.write("id,K,\(kelvin),\(composed),\(decomposed)\n1,ascii,kelvin,nfc,nfd\n", to: csv)
        let created = try work.run([csv.path, "--upsert", "id"])
        #expect(created.status == 0, "\(created.stderr)")
        let columns = try DatabaseQueue(path: work.database).read { try String.fetchAll($0, sql: "SELECT name FROM pragma_table_info('names') ORDER BY cid") }
        #expect(columns.map { Array($0.utf8) } == ["id", "K", kelvin, composed, decomposed].map { Array($0.utf8) })
        let stored = try DatabaseQueue(path: work.database).read { try String.fetchAll($0, sql: "SELECT quote(K) || quote(\"\(kelvin)\") || quote(\"\(composed)\") || quote(\"\(decomposed)\") FROM names") }
        #expect(stored == ["'ascii''kelvin''nfc''nfd'"])
        // An existing table, from JSON Lines.
        try DatabaseQueue(path: work.database).write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, \"\(composed)\" TEXT, \"\(decomposed)\" TEXT, K TEXT, \"\(kelvin)\" TEXT)")
        }
        let json = work.directory.appendingPathComponent("t.jsonl")
        TestSupport.write(#"{"id":1,"\#(composed)":"nfc","\#(decomposed)":"nfd","K":"ascii","\#(kelvin)":"kelvin"}"# + "\n", to: json)
        let filled = try work.run([json.path, "--table", "t", "--upsert", "id"])
        #expect(filled.status == 0, "\(filled.stderr)")
        let row = try DatabaseQueue(path: work.database).read { try String.fetchAll($0, sql: "SELECT quote(\"\(composed)\") || quote(\"\(decomposed)\") || quote(K) || quote(\"\(kelvin)\") FROM t") }
        #expect(row == ["'nfc''nfd''ascii''kelvin'"])
        // Names equal but for ASCII case are still one column, and two such fields an error.
        TestSupport.write("id,v,V\n1,a,b\n", to: csv)
        let collide = try work.run([csv.path, "--table", "c", "--upsert", "id"])
        #expect(collide.status == 65 && collide.stderr.contains(#"are named "v" and "V", one column to sqlimport"#), "\(collide.stderr)")
    }

    /// Options keyed by name had the same fault: `--type` for the composed and the
    /// decomposed `café` gave both columns the second's type, and `--infer-rows all`
    /// typed only the first (a helper's review of b3aa546).
    @Test func typesGivenOrInferredForNamesSQLiteKeepsApartStayApart() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        let csv = work.directory.appendingPathComponent("t.csv")
        TestSupport.write("\(composed),\(decomposed)\n12,5\n", to: csv)
        let typed = try work.run([csv.path, "--table", "typed", "--type", "\(composed)=TEXT", "--type", "\(decomposed)=INTEGER"])
        #expect(typed.status == 0, "\(typed.stderr)")
        let types = try DatabaseQueue(path: work.database).read { try String.fetchAll($0, sql: "SELECT type FROM pragma_table_info('typed') ORDER BY cid") }
        #expect(types == ["TEXT", "INTEGER"])
        TestSupport.write("\(composed),\(decomposed)\n" + (1 ..< 1500).map { "\($0),\($0)\n" }.joined() + "1,x\n", to: csv)
        let inferred = try work.run([csv.path, "--table", "inferred", "--infer-rows", "all"])
        #expect(inferred.status == 0, "\(inferred.stderr)")
        let inferredTypes = try DatabaseQueue(path: work.database).read { try String.fetchAll($0, sql: "SELECT type FROM pragma_table_info('inferred') ORDER BY cid") }
        #expect(inferredTypes == ["INTEGER", "TEXT"])
    }

    @Test func nullsInANonPartialKeyNeverGrowTheTableSilently() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("""
            CREATE TABLE flights (year INTEGER, month INTEGER, day INTEGER, dep_time INTEGER, sched_dep_time INTEGER, dep_delay INTEGER,
              arr_time INTEGER, sched_arr_time INTEGER, arr_delay INTEGER, carrier TEXT, flight INTEGER, tailnum TEXT, origin TEXT,
              dest TEXT, air_time INTEGER, distance INTEGER, hour INTEGER, minute INTEGER, time_hour TEXT,
              UNIQUE (carrier, flight, tailnum, year, month, day, hour, minute));
            """)
        let flights = work.copy("real/flights.csv")
        let key = "carrier,flight,tailnum,year,month,day,hour,minute"
        let refused = try work.run([flights, "--null", "NA", "--upsert", key])
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("flights.csv:921") && refused.stderr.contains("--null-key"), "\(refused.stderr)")
        #expect(try work.value("SELECT count(*) FROM flights") == 0)
        let skipped = try work.run([flights, "--null", "NA", "--upsert", key, "--null-key", "skip"])
        #expect(skipped.status == 2)
        #expect(try work.counts()["nullKey"] == 66 && (try work.counts()["rejected"]) == 66)
        let inserted = try work.run([flights, "--null", "NA", "--upsert", key, "--null-key", "insert"])
        #expect(inserted.status == 0)
        #expect(try work.counts()["nullKey"] == 66)
        #expect(inserted.stderr.contains("a re-run will insert them again"), "\(inserted.stderr)")
        #expect(try work.value("SELECT count(*) FROM flights") == 3000)
    }

    @Test func aKeyRepeatedInTheInputIsCountedNamedAndCanBeRefused() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let planes = work.copy("real/planes.csv")
        let run = try work.run([planes, "--null", "NA", "--upsert", "manufacturer"])
        #expect(run.status == 0)
        #expect(try work.counts()["duplicateKeys"] == 3322 - 35)
        #expect(run.stderr.contains("3,287 duplicate keys") || run.stderr.contains("3287 record(s) repeat"), "\(run.stderr)")
        #expect(try work.value("SELECT count(*) FROM planes") == 35)
        let strict = try work.run([planes, "--null", "NA", "--upsert", "manufacturer", "--duplicate-keys", "error", "--table", "strict"])
        #expect(strict.status == 65)
        #expect(strict.stderr.contains("--duplicate-keys error"), "\(strict.stderr)")

        // The daylight-saving hour of weather: the repeated key is named (the refusal names
        // its line too), and a re-run of the unchanged file rewrites only that key's row,
        // once per record, as one plain upsert per record does (it ends as the later one).
        let weather = work.copy("real/weather.csv")
        let key = "origin,year,month,day,hour"
        let load = try work.run([weather, "--null", "NA", "--upsert", key])
        #expect(load.status == 0)
        #expect(try work.counts()["duplicateKeys"] == 1)
        #expect(load.stderr.contains(#"("EWR", 2013, 11, 3, 1)"#), "\(load.stderr)")
        let again = try work.run([weather, "--null", "NA", "--upsert", key])
        #expect(again.status == 0)
        let counts = try work.counts()
        #expect(counts["updated"] == 2 && counts["inserted"] == 0 && counts["unchanged"] == 1456)
        let refused = try work.run([weather, "--null", "NA", "--upsert", key, "--duplicate-keys", "error"])
        #expect(refused.status == 65 && refused.stderr.contains("weather.csv:790") && refused.stderr.contains(#""EWR""#), "\(refused.stderr)")
    }

    @Test func aRecordNeverMergesIntoARowOfAnotherIdentity() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema(Self.seedsSchema)
        let items = work.copy("items.jsonl")
        #expect(try work.run([items, "--upsert", "libraryID,remoteID"]).status == 0)
        let stolen: String = try work.value("SELECT id FROM items WHERE remoteID IS NOT NULL ORDER BY id LIMIT 1")!
        let before = try TestSupport.dump(work.database)
        // A new remoteID with the id of a synced row, and a null remoteID with that id.
        for remote in [#""r-new-999""#, "null"] {
            let input = TestSupport.write(
                #"{"id":"\#(stolen)","libraryID":1,"remoteID":\#(remote),"name":"hybrid","updatedAt":"2026-12-01"}"# + "\n",
                to: work.directory.appendingPathComponent("conflict.jsonl"))
            let run = try work.run([input, "--table", "items", "--upsert", "libraryID,remoteID"])
            #expect(run.status == 65, "\(run.stderr)")
            #expect(run.stderr.contains("belong to different rows") && run.stderr.contains(stolen), "\(run.stderr)")
            #expect(try TestSupport.dump(work.database) == before)
            let skipped = try work.run([input, "--table", "items", "--upsert", "libraryID,remoteID", "--on-error", "skip"])
            #expect(skipped.status == 2)
            #expect(try TestSupport.dump(work.database) == before)
        }
    }

    @Test func aTriggersRaiseFailStopsEveryStrategyTheDefaultIncluded() throws {
        for strategy in ["auto", "multirow", "cached", "typed"] {
            let work = Workspace()
            defer { work.cleanUp() }
            try work.schema("""
                CREATE TABLE airlines (carrier TEXT PRIMARY KEY, name TEXT);
                CREATE TRIGGER no_delta AFTER INSERT ON airlines WHEN new.name LIKE 'Delta%' BEGIN SELECT RAISE(FAIL, 'no Delta'); END;
                """)
            let airlines = work.copy("real/airlines.csv")
            let run = try work.run([airlines, "--upsert", "carrier", "--strategy", strategy])
            #expect(run.status == 65, "\(strategy): \(run.stderr)")
            #expect(run.stderr.contains("airlines.csv:6") && run.stderr.contains("no Delta"), "\(strategy): \(run.stderr)")
            #expect(try work.value("SELECT count(*) FROM airlines") == 0, "\(strategy)")
            let skipped = try work.run([airlines, "--upsert", "carrier", "--strategy", strategy, "--on-error", "skip"])
            #expect(skipped.status == 2)
            let counts = try work.counts()
            #expect(counts["inserted"] == 15 && counts["rejected"] == 1 && counts["unchanged"] == 0, "\(strategy): \(counts)")
            #expect(try work.value("SELECT count(*) FROM airlines WHERE name LIKE 'Delta%'") == 0, "\(strategy)")
        }
    }

    @Test func aSoftDeletePredicateNamingAnOmittedDefaultedColumnWorks() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("""
            CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT, libraryID INTEGER, remoteID TEXT, notes TEXT,
              updatedAt TEXT, deleted INTEGER NOT NULL DEFAULT 0);
            CREATE UNIQUE INDEX identity ON items (libraryID, remoteID) WHERE deleted = 0 AND remoteID IS NOT NULL;
            """)
        let items = work.copy("items.jsonl")
        #expect(try work.run([items, "--upsert", "libraryID,remoteID"]).status == 0)
        let again = try work.run([items, "--upsert", "libraryID,remoteID"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try work.counts()["unchanged"] == 20)
    }

    @Test func newerTreatsAStoredNullAsOlderAndNeverStoresAnArrivingNull() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("""
            CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT, libraryID INTEGER NOT NULL, remoteID TEXT, updatedAt TEXT);
            CREATE UNIQUE INDEX identity ON items (libraryID, remoteID) WHERE remoteID IS NOT NULL;
            """)
        let first = TestSupport.write(
            #"{"id":"a","libraryID":1,"remoteID":"r1","name":"old","updatedAt":null}"# + "\n"
                + #"{"id":"b","libraryID":1,"remoteID":"r2","name":"kept","updatedAt":"2026-01-01"}"# + "\n",
            to: work.directory.appendingPathComponent("v1.jsonl"))
        #expect(try work.run([first, "--table", "items", "--upsert", "libraryID,remoteID"]).status == 0)
        let second = TestSupport.write(
            #"{"id":"a","libraryID":1,"remoteID":"r1","name":"new","updatedAt":"2026-02-01"}"# + "\n"
                + #"{"id":"b","libraryID":1,"remoteID":"r2","name":"lost","updatedAt":null}"# + "\n",
            to: work.directory.appendingPathComponent("v2.jsonl"))
        let run = try work.run([second, "--table", "items", "--upsert", "libraryID,remoteID", "--merge", "newer:updatedAt"])
        #expect(run.status == 0)
        #expect(try work.counts()["updated"] == 1 && (try work.counts()["skipped"]) == 1)
        #expect(try work.value("SELECT group_concat(name, ',') FROM (SELECT name FROM items ORDER BY id)") == "new,kept")
    }

    @Test func tableNamesResolveAsSQLiteResolvesThem() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("CREATE TABLE airlines (carrier TEXT PRIMARY KEY, name TEXT);")
        let capitalised = work.copy("real/airlines.csv", as: "Airlines.csv")
        let run = try work.run([capitalised, "--upsert", "carrier"])
        #expect(run.status == 0, "\(run.stderr)")
        let qualified = try work.run([capitalised, "--upsert", "carrier", "--table", "main.AIRLINES"])
        #expect(qualified.status == 0, "\(qualified.stderr)")
        #expect(try work.counts()["unchanged"] == 16)
        #expect(try work.value("SELECT count(*) FROM sqlite_schema WHERE type = 'table'") == 1)
        let inspect = try TestSupport.run(["inspect", "AirLines", "--db", work.database], in: work.directory)
        #expect(inspect.status == 0 && inspect.stdout.contains("--upsert carrier"), "\(inspect.stdout)\(inspect.stderr)")
        #expect(try work.run([capitalised, "--table", "temp.airlines"]).status == 64)
    }

    @Test func aTriggerThatNamesAnIndexKeepsItOnAFirstLoad() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("""
            CREATE TABLE penguins (species TEXT, island TEXT, bill_length_mm REAL, bill_depth_mm REAL, flipper_length_mm INTEGER,
              body_mass_g INTEGER, sex TEXT, year INTEGER);
            CREATE INDEX by_island ON penguins (island);
            CREATE TABLE log (n INTEGER);
            CREATE TRIGGER count_island AFTER INSERT ON penguins BEGIN
              INSERT INTO log SELECT count(*) FROM penguins INDEXED BY by_island WHERE island = new.island;
            END;
            """)
        let penguins = work.copy("real/penguins.csv")
        let run = try work.run([penguins, "--null", "NA"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try work.value("SELECT count(*) FROM penguins") == 344)
        #expect(try work.value("SELECT max(n) FROM log") == 168)
    }

    /// A key repeated within one batch applies as one plain upsert per record does: the
    /// earlier record is written too (an adversarial review found it dropped when a later
    /// one repeated its key), so its constraint failure stops the run, its new row keeps
    /// its place in the rowid order, and the key keeps the storage class it was first
    /// stored with (SQLite's index takes `1` and `1.0` for one key).
    @Test func aKeyRepeatedWithinABatchAppliesAsOneUpsertPerRecord() throws {
        for strategy in ["typed", "cached", "multirow", "auto"] {
            let work = Workspace()
            defer { work.cleanUp() }
            try work.schema("""
                CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER CHECK (v > 0));
                CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, uuid TEXT NOT NULL UNIQUE, title TEXT);
                CREATE TABLE notes (id TEXT PRIMARY KEY NOT NULL, body TEXT);
                CREATE TABLE u (k PRIMARY KEY, v TEXT);
                """)
            func file(_ name: String, _ lines: [String]) -> String {
                TestSupport.write(lines.joined(separator: "\n") + "\n", to: work.directory.appendingPathComponent(name))
            }
            let check = try work.run([file("t.jsonl", [#"{"id":1,"v":-5}"#, #"{"id":1,"v":5}"#]), "--table", "t", "--upsert", "id", "--strategy", strategy])
            #expect(check.status == 65, "\(strategy): \(check.stderr)")
            #expect(check.stderr.contains("t.jsonl:1") && check.stderr.contains("CHECK"), "\(strategy): \(check.stderr)")
            #expect(try work.value("SELECT count(*) FROM t") == 0)
            let ids = file("items.jsonl", [#"{"uuid":"A","title":"first"}"#, #"{"uuid":"B","title":"second"}"#, #"{"uuid":"A","title":"first, edited"}"#])
            #expect(try work.run([ids, "--table", "items", "--upsert", "uuid", "--strategy", strategy]).status == 0)
            #expect(try work.value("SELECT group_concat(id || uuid || ':' || title, ' ') FROM items") == "1A:first, edited 2B:second")
            let notes = file("notes.jsonl", [#"{"id":"A","body":"1"}"#, #"{"id":"B","body":"2"}"#, #"{"id":"A","body":"1b"}"#])
            #expect(try work.run([notes, "--table", "notes", "--upsert", "id", "--strategy", strategy]).status == 0)
            #expect(try work.value("SELECT group_concat(rowid || id || body, ' ') FROM notes") == "1A1b 2B2")
            let keys = file("u.jsonl", [#"{"k":1,"v":"a"}"#, #"{"k":1.0,"v":"b"}"#])
            #expect(try work.run([keys, "--table", "u", "--upsert", "k", "--strategy", strategy]).status == 0)
            #expect(try work.value("SELECT typeof(k) || ' ' || k || ' ' || v FROM u") == "integer 1 b", "\(strategy)")
            #expect(try work.counts()["duplicateKeys"] == 1)
            // After a record set aside, the next of its key is no repeat: --duplicate-keys
            // error lets it through (a review found it refused before anything was written).
            let again = file("again.jsonl", [#"{"id":2,"v":-1}"#, #"{"id":2,"v":7}"#])
            let skipped = try work.run([again, "--table", "t", "--upsert", "id", "--strategy", strategy, "--on-error", "skip", "--duplicate-keys", "error"])
            #expect(skipped.status == 2, "\(strategy): \(skipped.stderr)")
            #expect(try work.counts()["duplicateKeys"] == 0 && work.counts()["rejected"] == 1)
            #expect(try work.value("SELECT v FROM t WHERE id = 2") == 7)
        }
    }

    /// The primary-key clause, put first for speed, must update the row the target's
    /// clause would: a live record whose primary key is a soft-deleted row, while a live
    /// row holds its key, updated the deleted row (a plain target-first upsert would have
    /// merged it into the live one; the identity rule refuses both, as PostgreSQL does).
    /// A deleted row restored by a live record of its own key is still restored.
    @Test(arguments: ["cached", "typed", "multirow"])
    func aSoftDeletedRowWithTheRecordsIdIsNotTheTargetsRow(_ strategy: String) throws {
        let work = Workspace()
        defer { TestSupport.remove(work.directory) }
        try work.schema(
            "CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, libraryID INTEGER NOT NULL, remoteID TEXT, deletedAt TEXT, v INTEGER); CREATE UNIQUE INDEX live ON items (libraryID, remoteID) WHERE deletedAt IS NULL;")
        let lines = [
            #"{"id":"A","libraryID":1,"remoteID":"r0","deletedAt":"2026-01-02","v":1}"#, #"{"id":"B","libraryID":1,"remoteID":"r0","v":2}"#,
            #"{"id":"A","libraryID":1,"remoteID":"r0","v":3}"#,
        ]
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: work.directory.appendingPathComponent("in.jsonl"))
        let refused = try work.run([input, "--table", "items", "--upsert", "libraryID,remoteID", "--strategy", strategy])
        #expect(refused.status == 65, "\(refused.stderr)")
        #expect(refused.stderr.contains("in.jsonl:3") && refused.stderr.contains("belong to different rows"), "\(refused.stderr)")
        #expect(try work.value("SELECT count(*) FROM items") == 0)
        let restore = [#"{"id":"C","libraryID":2,"remoteID":"r9","deletedAt":"2026-01-02","v":1}"#, #"{"id":"C","libraryID":2,"remoteID":"r9","v":5}"#]
        let second = TestSupport.write(restore.joined(separator: "\n") + "\n", to: work.directory.appendingPathComponent("restore.jsonl"))
        let restored = try work.run([second, "--table", "items", "--upsert", "libraryID,remoteID", "--strategy", strategy])
        #expect(restored.status == 0, "\(restored.stderr)")
        #expect(try work.value("SELECT v FROM items WHERE id = 'C' AND deletedAt IS NOT NULL") == 5)
    }

    /// A record that omits a target column with a DEFAULT has that default as its key, as
    /// SQLite's own upsert gives it: key-ordered runs wrote the later of two records with
    /// the same key first (the row kept the earlier record's value and another id), a
    /// first load refused the input at its deferred index build, and `--null-key` set a
    /// valid record aside or refused it, naming its key `() = ()`.
    @Test(arguments: ["0", "1", "48"])
    func aRecordOmittingATargetColumnWithADefaultHasTheDefaultAsItsKey(_ sortMemory: String) throws {
        var lines = (0 ..< 3000).map { index in #"{"id":"\#(UUID().uuidString)","libraryID":\#(index % 5),"remoteID":"f\#(index)","v":"filler"}"# }
        lines += [#"{"id":"zzzz","libraryID":7,"remoteID":"r","v":"first"}"#, #"{"id":"0000","libraryID":7,"v":"second"}"#]
        for empty in [false, true] {
            for strategy in ["typed", "cached", "multirow"] {
                let work = Workspace()
                defer { work.cleanUp() }
                try work.schema("""
                    CREATE TABLE t (id TEXT PRIMARY KEY, libraryID INTEGER, remoteID TEXT DEFAULT 'r', v TEXT);
                    CREATE UNIQUE INDEX u ON t (libraryID, remoteID);
                    \(empty ? "" : "INSERT INTO t VALUES ('pre', 99, 'pre', 'kept');")
                    """)
                _ = TestSupport.write(lines.joined(separator: "\n") + "\n", to: work.directory.appendingPathComponent("in.jsonl"))
                let run = try work.run(["in.jsonl", "--table", "t", "--upsert", "libraryID,remoteID", "--strategy", strategy, "--sort-memory", sortMemory])
                #expect(run.status == 0, "\(strategy) empty \(empty): \(run.stderr)")
                #expect(try work.value("SELECT id || ':' || v FROM t WHERE libraryID = 7 AND remoteID = 'r'") == "zzzz:second", "\(strategy) empty \(empty)")
                #expect(try work.counts()["duplicateKeys"] == 1 && work.counts()["nullKey"] == 0, "\(strategy) empty \(empty)")
            }
        }
    }

    /// The same with a composite primary key, and a key column without a default: that
    /// one is a NULL key, named with the column it lacks.
    @Test func aCompositeKeyColumnsDefaultIsTheKeyAndAnOmittedColumnIsNamed() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("CREATE TABLE t (a TEXT NOT NULL, b TEXT NOT NULL DEFAULT 'x', v INTEGER, PRIMARY KEY (a, b));")
        _ = TestSupport.write(#"{"a":"K","b":"x","v":1}"# + "\n" + #"{"a":"K","v":2}"# + "\n", to: work.directory.appendingPathComponent("in.jsonl"))
        for nullKey in ["error", "skip", "insert"] {
            let run = try work.run(["in.jsonl", "--table", "t", "--upsert", "a,b", "--null-key", nullKey])
            #expect(run.status == 0, "\(nullKey): \(run.stderr)")
            #expect(try work.value("SELECT group_concat(a || b || v) FROM t") == "Kx2", "\(nullKey)")
        }
        try work.schema("CREATE TABLE u (org INTEGER, email TEXT, v INTEGER, UNIQUE (org, email));")
        _ = TestSupport.write(#"{"org":2,"email":"a@x","v":1}"# + "\n" + #"{"email":"b@x","v":2}"# + "\n", to: work.directory.appendingPathComponent("u.jsonl"))
        let run = try work.run(["u.jsonl", "--table", "u", "--upsert", "org,email"])
        #expect(run.status == 65)
        #expect(run.stderr.contains(#"the record's key ("org", "email") = (absent, "b@x") has a NULL column"#), "\(run.stderr)")
    }

    /// SQLite gives an omitted rowid alias a new rowid, never its DEFAULT: filling the
    /// default in as the key made two new records one row.
    @Test func anOmittedRowidAliasWithADefaultIsANewRow() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("CREATE TABLE t (id INTEGER PRIMARY KEY DEFAULT 5, v TEXT);")
        _ = TestSupport.write(#"{"v":"x"}"# + "\n" + #"{"v":"y"}"# + "\n" + #"{"id":7,"v":"z"}"# + "\n", to: work.directory.appendingPathComponent("in.jsonl"))
        let run = try work.run(["in.jsonl", "--table", "t", "--upsert", "id", "--null-key", "insert"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try work.value("SELECT group_concat(v, '') FROM (SELECT v FROM t ORDER BY v)") == "xyz")
    }

    /// A table's own `UNIQUE ... ON CONFLICT REPLACE` made an insert whose second key
    /// another row holds delete that row, with exit 0 and no count: the record was
    /// counted inserted and the row it displaced was gone (an update of the same record
    /// was refused, SQLite's `DO UPDATE` aborting). `ON CONFLICT ROLLBACK` ended the
    /// run's transaction, so `--on-error skip` stopped the run, and the multi-row
    /// strategy named another record. Both are now refused as the record's own error,
    /// every strategy alike.
    @Test(arguments: ["typed", "cached", "multirow"])
    func aTablesOwnReplaceOrRollbackNeverDeletesARowOrEndsTheRun(_ strategy: String) throws {
        // nycflights13's planes, each given a random UUID id, keyed by id; the app's table
        // also keeps each tail number once.
        let planes = try String(contentsOf: TestSupport.fixtures.appendingPathComponent("real/planes.csv"), encoding: .utf8)
            .split(separator: "\n").dropFirst().prefix(601).map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        var lines = planes.prefix(600).map { #"{"id":"\#(UUID().uuidString.lowercased())","tailnum":"\#($0[0])","year":"\#($0[1])","model":"\#($0[4])"}"# }
        // Line 301: a new plane that repeats the tail number of the stored one.
        lines.insert(#"{"id":"\#(UUID().uuidString.lowercased())","tailnum":"\#(planes[600][0])","year":"2020","model":"A321"}"#, at: 300)
        for resolution in ["REPLACE", "ROLLBACK"] {
            let work = Workspace()
            defer { work.cleanUp() }
            try work.schema("""
                CREATE TABLE planes (id TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (lower(hex(randomblob(16)))),
                  tailnum TEXT UNIQUE ON CONFLICT \(resolution), year INTEGER, model TEXT);
                INSERT INTO planes VALUES ('stored', '\(planes[600][0])', 2004, 'EMB-145XR');
                """)
            _ = TestSupport.write(lines.joined(separator: "\n") + "\n" + #"{"tailnum":"NEW1","year":2021,"model":"X"}"# + "\n", to: work.directory.appendingPathComponent("in.jsonl"))
            let refused = try work.run(["in.jsonl", "--table", "planes", "--upsert", "id", "--strategy", strategy, "--null-key", "insert"])
            #expect(refused.status == 65, "\(resolution) \(strategy): \(refused.stderr)")
            #expect(refused.stderr.contains("in.jsonl:301") && refused.stderr.contains("UNIQUE constraint failed: planes.tailnum"), "\(refused.stderr)")
            #expect(refused.stderr.contains("declares UNIQUE ON CONFLICT \(resolution)"), "\(refused.stderr)")
            #expect(try work.value("SELECT group_concat(id) FROM planes") == "stored")
            let skipped = try work.run(["in.jsonl", "--table", "planes", "--upsert", "id", "--strategy", strategy, "--null-key", "insert", "--on-error", "skip"])
            #expect(skipped.status == 2, "\(resolution) \(strategy): \(skipped.stderr)")
            let counts = try work.counts()
            #expect(counts["rejected"] == 1 && counts["inserted"] == 601, "\(resolution) \(strategy): \(counts)")
            #expect(try work.value("SELECT count(*) FROM planes") == 602)
            #expect(try work.value("SELECT year FROM planes WHERE id = 'stored'") == 2004)
            // A record without an id still gets the id column's default.
            #expect(try work.value("SELECT length(id) FROM planes WHERE tailnum = 'NEW1'") == 32)
        }
    }

    /// A partial index whose predicate names a generated column (`WHERE live`, `live AS
    /// (deleted = 0)`), or a column the input omits whose DEFAULT is `CURRENT_TIMESTAMP`
    /// (`WHERE ts IS NOT NULL`), judged every record outside it: exit 65 naming a false
    /// reason, valid records set aside under `--null-key skip`, wrong counts, and a first
    /// load refused at its deferred index. The predicate is judged on the row SQLite
    /// would store, generated columns and defaults included.
    @Test(arguments: ["typed", "cached", "multirow"])
    func aPartialPredicateOnAGeneratedColumnOrADefaultIsJudgedOnTheStoredRow(_ strategy: String) throws {
        let records = [
            #"{"id":"\#(UUID().uuidString)","lib":1,"rid":"r","v":1}"#, #"{"id":"\#(UUID().uuidString)","lib":1,"rid":"r","v":2}"#,
            #"{"id":"\#(UUID().uuidString)","lib":4,"rid":"y","v":3,"deleted":1}"#, #"{"id":"\#(UUID().uuidString)","lib":4,"rid":"y","v":4,"deleted":1}"#,
        ]
        let shapes = [
            ("VIRTUAL", "deleted INTEGER NOT NULL DEFAULT 0, live INTEGER GENERATED ALWAYS AS (deleted = 0) VIRTUAL", "live", "1|r|2,4|y|3,4|y|4"),
            ("STORED", "deleted INTEGER NOT NULL DEFAULT 0, \"is live\" AS ((deleted + 0) = 0) STORED", "\"is live\"", "1|r|2,4|y|3,4|y|4"),
            ("DEFAULT", "deleted INTEGER, ts TEXT DEFAULT CURRENT_TIMESTAMP", "ts IS NOT NULL", "1|r|2,4|y|4"),
        ]
        for (name, columns, predicate, wanted) in shapes {
            for stored in [false, true] {
                let work = Workspace()
                defer { work.cleanUp() }
                try work.schema("""
                    CREATE TABLE t (id TEXT PRIMARY KEY, lib INTEGER, rid TEXT, v INTEGER, \(columns));
                    CREATE UNIQUE INDEX u ON t (lib, rid) WHERE \(predicate);
                    \(stored ? "INSERT INTO t (id, lib, rid, v) VALUES ('old', 1, 'r', 0);" : "")
                    """)
                _ = TestSupport.write(records.joined(separator: "\n") + "\n", to: work.directory.appendingPathComponent("in.jsonl"))
                let run = try work.run(["in.jsonl", "--table", "t", "--upsert", "lib,rid", "--strategy", strategy, "--null-key", "skip"])
                let context = "\(name), \(stored ? "stored row" : "first load"), \(strategy)"
                #expect(run.status == 0, "\(context): \(run.stderr)")
                #expect(try work.value("SELECT group_concat(lib || '|' || rid || '|' || v) FROM (SELECT * FROM t ORDER BY lib, v)") == wanted, "\(context)")
                let counts = try work.counts()
                #expect(counts["nullKey"] == 0 && counts["duplicateKeys"] == (name == "DEFAULT" ? 2 : 1), "\(context): \(counts)")
                #expect(counts["outsidePartialIndex"] == (name == "DEFAULT" ? 0 : 2), "\(context): \(counts)")
            }
        }
    }

    /// A partial predicate was evaluated on the record's values as bound, without the
    /// columns' affinity and collation, and judged a NULL given for a `NOT NULL ON
    /// CONFLICT REPLACE` column as NULL: records SQLite puts inside the index (a generated
    /// `g INTEGER` holding 12, a `COLLATE NOCASE` column, text '1' stored as 1, a default
    /// stored for a NULL) were counted outside it, and set aside or refused where the
    /// judgment routes them (a review). The row is now made in a copy of the columns.
    @Test(arguments: ["typed", "cached", "multirow"])
    func aPartialPredicateIsJudgedWithTheColumnsAffinityCollationAndDefaults(_ strategy: String) throws {
        let shapes: [(name: String, columns: String, predicate: String, inside: [String], outside: [String])] = [
            ("generated affinity", "flag TEXT, g INTEGER AS (substr(flag, 1, 2))", "g = 12", [#""12a""#, #""123""#], [#""1x""#, #""99""#]),
            ("collation", "flag TEXT COLLATE NOCASE", "flag = 'live'", [#""LIVE""#, #""Live""#], [#""dead""#, #""x""#]),
            ("numeric affinity", "flag NUMERIC", "flag = 1", [#""1""#, #""1.0""#], [#""2""#, #""x""#]),
            ("null stores the default", "flag INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 0", "flag = 0", ["null", "null"], ["1", "2"]),
            ("soft delete", "flag TEXT", "flag IS NULL", ["null", "null"], [#""2024""#, "0"]),
        ]
        for shape in shapes {
            for stored in [false, true] {
                let work = Workspace()
                defer { work.cleanUp() }
                try work.schema("""
                    CREATE TABLE t (id TEXT PRIMARY KEY, lib INTEGER, rid TEXT, v INTEGER, \(shape.columns));
                    CREATE UNIQUE INDEX u ON t (lib, rid) WHERE \(shape.predicate);
                    \(stored ? "INSERT INTO t (id, lib, rid, v, flag) VALUES ('old', 1, 'r', 0, \(shape.inside[0].replacingOccurrences(of: "\"", with: "'")));" : "")
                    """)
                let records = zip(["r", "r", "y", "y"], shape.inside + shape.outside).enumerated().map { index, record in
                    #"{"id":"\#(UUID().uuidString)","lib":1,"rid":"\#(record.0)","v":\#(index + 1),"flag":\#(record.1)}"#
                }
                _ = TestSupport.write(records.joined(separator: "\n") + "\n", to: work.directory.appendingPathComponent("in.jsonl"))
                let run = try work.run(["in.jsonl", "--table", "t", "--upsert", "lib,rid", "--strategy", strategy, "--null-key", "skip"])
                let context = "\(shape.name), \(stored ? "stored row" : "first load"), \(strategy)"
                #expect(run.status == 0, "\(context): \(run.stderr)")
                #expect(try work.value("SELECT group_concat(rid || '|' || v) FROM (SELECT * FROM t ORDER BY v)") == "r|2,y|3,y|4", "\(context)")
                let counts = try work.counts()
                #expect(counts["outsidePartialIndex"] == 2 && counts["nullKey"] == 0, "\(context): \(counts)")
                #expect(counts["inserted"] == (stored ? 2 : 3) && counts["updated"] == (stored ? 2 : 1), "\(context): \(counts)")
            }
        }
    }

    /// The predicate's probe copies every DEFAULT SQLite accepts: a bare or double-quoted
    /// word is a string there (`DEFAULT live`, `DEFAULT "import"`), and the probe's copy in
    /// parentheses made every run stop (exit 64). A record that omits the rowid alias the
    /// predicate names gets the table's next rowid, not the probe's: it was judged
    /// outside and refused (exit 65), where SQLite updates the row (a review).
    @Test(arguments: ["typed", "cached", "multirow"])
    func thePredicatesProbeTakesEveryDefaultAndLeavesTheNextRowidToSQLite(_ strategy: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("""
            CREATE TABLE items (id TEXT PRIMARY KEY, remoteID TEXT, source TEXT DEFAULT "import", kind TEXT DEFAULT live,
              tag TEXT DEFAULT ('x' || 'y'), n INTEGER DEFAULT -1);
            CREATE UNIQUE INDEX ux ON items (remoteID) WHERE kind = 'live' AND source = 'import';
            INSERT INTO items (id, remoteID) VALUES ('old', 'r1');
            CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT, v INTEGER);
            CREATE UNIQUE INDEX tk ON t (k) WHERE id > 2;
            INSERT INTO t VALUES (1, 'x', 0), (2, 'y', 0), (5, 'a', 0);
            """)
        _ = TestSupport.write(#"{"remoteID":"r1","n":5}"# + "\n" + #"{"remoteID":"r2","n":6}"# + "\n", to: work.directory.appendingPathComponent("items.jsonl"))
        let items = try work.run(["items.jsonl", "--table", "items", "--upsert", "remoteID", "--strategy", strategy])
        #expect(items.status == 0, "\(items.stderr)")
        #expect(try work.value("SELECT group_concat(coalesce(id, '-') || ':' || remoteID || ':' || source || ':' || kind || ':' || tag || ':' || n) FROM items") == "old:r1:import:live:xy:5,-:r2:import:live:xy:6")
        #expect(try work.counts()["outsidePartialIndex"] == 0)
        // SQLiteData's id, `DEFAULT (uuid())`: the probe defines `uuid()` as the run does.
        try work.schema("""
            CREATE TABLE reminders (id TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()), remoteID TEXT, isDeleted INTEGER NOT NULL DEFAULT 0);
            CREATE UNIQUE INDEX rx ON reminders (remoteID) WHERE isDeleted = 0;
            """)
        _ = TestSupport.write(
            #"{"remoteID":"a","isDeleted":1}"# + "\n" + #"{"remoteID":"a","isDeleted":1}"# + "\n" + #"{"remoteID":"a"}"# + "\n",
            to: work.directory.appendingPathComponent("reminders.jsonl"))
        let reminders = try work.run(["reminders.jsonl", "--table", "reminders", "--upsert", "remoteID", "--strategy", strategy, "--null-key", "insert"])
        #expect(reminders.status == 0, "\(reminders.stderr)")
        #expect(try work.counts()["outsidePartialIndex"] == 2)
        #expect(try work.value("SELECT count(DISTINCT id) FROM reminders") == 3)
        _ = TestSupport.write(#"{"k":"a","v":9}"# + "\n", to: work.directory.appendingPathComponent("t.jsonl"))
        let rowid = try work.run(["t.jsonl", "--table", "t", "--upsert", "k", "--strategy", strategy])
        #expect(rowid.status == 0, "\(rowid.stderr)")
        #expect(try work.value("SELECT group_concat(id || ':' || k || ':' || v) FROM t") == "1:x:0,2:y:0,5:a:9")
    }

    /// SQLite applies an `INSERT OR ABORT`'s resolution to the statements of the triggers
    /// it fires: the override of a table's `ON CONFLICT REPLACE` made a trigger's own
    /// `INSERT OR REPLACE` fail, refusing every record after the first (a review). Such a
    /// table keeps its clauses, with a warning that says what they do.
    @Test(arguments: ["typed", "cached", "multirow"])
    func aTriggersOwnConflictClauseIsNeverOverridden(_ strategy: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("""
            CREATE TABLE t (id TEXT PRIMARY KEY, email TEXT UNIQUE ON CONFLICT REPLACE);
            CREATE TABLE stats (k TEXT PRIMARY KEY, n TEXT);
            CREATE TRIGGER tr AFTER INSERT ON t BEGIN INSERT  OR
              REPLACE INTO stats VALUES ('last', new.id); END;
            """)
        let ids = (0 ..< 3).map { _ in UUID().uuidString }
        _ = TestSupport.write(ids.enumerated().map { #"{"id":"\#($1)","email":"e\#($0)@x"}"# }.joined(separator: "\n") + "\n", to: work.directory.appendingPathComponent("in.jsonl"))
        let run = try work.run(["in.jsonl", "--table", "t", "--upsert", "id", "--strategy", strategy])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("a trigger has a conflict clause of its own"), "\(run.stderr)")
        #expect(try work.value("SELECT n FROM stats") == ids[2])
        #expect(try work.value("SELECT count(*) FROM t") == 3)
    }

    /// A child table that already holds a row breaking its foreign key (loaded with
    /// foreign keys off): a multi-row statement inserting a new orphan and repairing the
    /// old one passed SQLite's count at the statement's end, exit 0 (a review); one upsert
    /// per record refuses the new orphan.
    @Test(arguments: ["typed", "cached", "multirow", "auto"])
    func aNewOrphanIsRefusedWhereTheTableHoldsAnOldOne(_ strategy: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try work.schema("""
            CREATE TABLE p (id INTEGER PRIMARY KEY);
            CREATE TABLE c (id INTEGER PRIMARY KEY, pid INTEGER REFERENCES p (id));
            INSERT INTO p VALUES (1);
            """)
        var unchecked = Configuration()
        unchecked.foreignKeysEnabled = false
        try DatabaseQueue(path: work.database, configuration: unchecked).write { try $0.execute(sql: "INSERT INTO c VALUES (2, 888)") }
        _ = TestSupport.write(#"{"id":3,"pid":999}"# + "\n" + #"{"id":2,"pid":1}"# + "\n", to: work.directory.appendingPathComponent("in.jsonl"))
        let run = try work.run(["in.jsonl", "--table", "c", "--upsert", "id", "--strategy", strategy, "--on-error", "skip"])
        #expect(run.status == 2, "\(strategy): \(run.stderr)")
        #expect(run.stderr.contains("in.jsonl:1") && run.stderr.contains("FOREIGN KEY constraint failed"), "\(run.stderr)")
        #expect(try work.value("SELECT group_concat(id || ':' || pid) FROM c") == "2:1")
    }
}
