import Foundation
import GRDB
import Testing

/// Values read as the user meant (issue 15), end to end on real data: types that never
/// change a value silently, and a dry run that is the real run rolled back.
@Suite struct ValuesAsMeantTests {
    struct Workspace {
        let directory = TestSupport.temporaryDirectory()
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        func run(_ arguments: [String]) throws -> TestSupport.Output { try TestSupport.run(arguments, in: directory) }
        func value<T: DatabaseValueConvertible>(_ database: String, _ sql: String) throws -> T? {
            try DatabaseQueue(path: path(database)).read { try T.fetchOne($0, sql: sql) }
        }
        func cleanUp() { TestSupport.remove(directory) }
    }

    /// nycflights13's weather into an app's existing table that is not STRICT, with
    /// INTEGER and REAL columns: SQLite keeps the CSV's `NA` as text among the numbers
    /// (1,009 in `wind_gust`), and nothing said so, where a new table's column would be
    /// TEXT with a warning and a STRICT one refuses them (helper-85). They are counted
    /// (`missingValuesAsText`) and warned about, naming `--null NA`; with it, none.
    @Test func missingValueWordsKeptAsTextInAnExistingTablesNumberColumnsAreCounted() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let schema = """
            CREATE TABLE weather (origin TEXT NOT NULL, time_hour TEXT NOT NULL, year INTEGER, month INTEGER, day INTEGER, hour INTEGER,
              temp REAL, dewp REAL, humid REAL, wind_dir INTEGER, wind_speed REAL, wind_gust REAL, precip REAL, pressure REAL, visib REAL,
              PRIMARY KEY (origin, time_hour))
            """
        let numbers = ["year", "month", "day", "hour", "temp", "dewp", "humid", "wind_dir", "wind_speed", "wind_gust", "precip", "pressure", "visib"]
        let csv = TestSupport.fixtures.appendingPathComponent("real/weather.csv").path
        for null in [[], ["--null", "NA"]] {
            let database = "w\(null.count).db"
            try TestSupport.createDatabase(work.path(database), schema: schema)
            let run = try work.run([csv, "--db", database, "--upsert", "origin,time_hour", "--report", "r.json"] + null)
            #expect(run.status == 0, "\(run.stderr)")
            let texts: Int? = try work.value(database, "SELECT " + numbers.map { "sum(typeof(\($0)) = 'text')" }.joined(separator: " + ") + " FROM weather")
            let notNA: Int? = try work.value(database, "SELECT " + numbers.map { "sum(typeof(\($0)) = 'text' AND \($0) <> 'NA')" }.joined(separator: " + ") + " FROM weather")
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: work.path("r.json")))) as! [String: Any]
            let counts = report["counts"] as! [String: Int]
            #expect(counts["missingValuesAsText"] == texts && notNA == 0, "\(counts), \(String(describing: texts))")
            if null.isEmpty {
                #expect(texts == 1_172)
                #expect(
                    run.stderr.contains(#"value(s) that spell a missing value were given for numeric columns of "weather", which is not STRICT and keeps them as text (first: "wind_gust" = NA at"#),
                    "\(run.stderr)")
                #expect(run.stderr.contains("pass --null NA to store NULL"))
            } else {
                #expect(texts == 0 && !run.stderr.contains("missing value"), "\(run.stderr)")
            }
        }
        // A tombstone gives no value to store (helper-86).
        try TestSupport.createDatabase(work.path("t.db"), schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, v REAL); INSERT INTO t VALUES (1, 1.5);")
        _ = TestSupport.write("id,v,gone\n1,NA,1\n2,NA,0\n", to: URL(fileURLWithPath: work.path("t.csv")))
        let tombstoned = try work.run(["t.csv", "--db", "t.db", "--table", "t", "--upsert", "id", "--tombstone", "gone=1", "--ignore-unknown", "--report", "t.json"])
        let counts = (try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: work.path("t.json")))) as! [String: Any])["counts"] as! [String: Int]
        #expect(tombstoned.status == 0 && counts["missingValuesAsText"] == 1 && counts["deleted"] == 1, "\(counts) \(tombstoned.stderr)")
    }

    /// nycflights13's planes: `speed` is NA for the first 424 records. As CSV with a
    /// 100-record sample it became ANY and its numbers TEXT (max(speed) = 95, not 432);
    /// CSV and JSON Lines of the same data now give the same database.
    @Test func csvAndJSONLinesOfTheSameDataGiveTheSameDatabase() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let csv = try String(contentsOf: TestSupport.fixtures.appendingPathComponent("real/planes.csv"), encoding: .utf8)
        var lines = csv.split(separator: "\n").map(String.init)
        let header = lines.removeFirst().split(separator: ",").map(String.init)
        // The same records as JSON Lines: NA is null, numbers are JSON numbers.
        let jsonl = lines.map { line -> String in
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return "{" + zip(header, fields).map { name, value -> String in
                if value == "NA" { return "\"\(name)\":null" }
                if Int(value) != nil, !value.hasPrefix("0") || value == "0" { return "\"\(name)\":\(value)" }
                return "\"\(name)\":\"\(value)\""
            }.joined(separator: ",") + "}"
        }.joined(separator: "\n") + "\n"
        _ = TestSupport.write(jsonl, to: work.directory.appendingPathComponent("planes.jsonl"))
        _ = TestSupport.write(csv, to: work.directory.appendingPathComponent("planes.csv"))
        let fromCSV = try work.run(["planes.csv", "--db", "csv.db", "--null", "NA", "--infer-rows", "100"])
        #expect(fromCSV.status == 0, "\(fromCSV.stderr)")
        #expect(fromCSV.stderr.contains(#"column "speed" had no value in the first 100 records, so it was created as ANY"#), "\(fromCSV.stderr)")
        #expect(try work.run(["planes.jsonl", "--db", "jsonl.db", "--infer-rows", "100"]).status == 0)
        #expect(try work.value("csv.db", "SELECT max(speed) FROM planes") == 432)
        #expect(try work.value("csv.db", "SELECT count(*) FROM planes WHERE typeof(speed) = 'text'") == 0)
        #expect(try TestSupport.dump(work.path("csv.db")) == TestSupport.dump(work.path("jsonl.db")))
    }

    /// Times written `0959` that first appear after the sample: the column was inferred
    /// INTEGER, and 0959 would have become 959.
    @Test func aLeadingZeroAfterTheSampleStopsTheRunNamingBothFixes() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let weather = try String(contentsOf: TestSupport.fixtures.appendingPathComponent("real/weather.csv"), encoding: .utf8)
        var text = "origin,month,day,hour,dep_time\n"
        for (index, line) in weather.split(separator: "\n").dropFirst().prefix(300).enumerated() {
            let fields = line.split(separator: ",", omittingEmptySubsequences: false)
            text += "\(fields[0]),\(fields[2]),\(fields[3]),\(fields[4]),\(index == 250 ? "0959" : String(1000 + index))\n"
        }
        _ = TestSupport.write(text, to: work.directory.appendingPathComponent("times.csv"))
        let run = try work.run(["times.csv", "--db", "t.db", "--infer-rows", "100"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("times.csv:252") && run.stderr.contains(#""dep_time" = "0959""#), "\(run.stderr)")
        #expect(run.stderr.contains("first 100 records") && run.stderr.contains("--type dep_time=TEXT") && run.stderr.contains("--infer-rows"), "\(run.stderr)")
        #expect(try work.value("t.db", "SELECT count(*) FROM sqlite_schema WHERE name = 'times'") == 0)
        // Either fix works, and keeps the zero: --type, or --infer-rows all, which reads the
        // file once more to type each column from all its records.
        #expect(try work.run(["times.csv", "--db", "t.db", "--type", "dep_time=TEXT"]).status == 0)
        #expect(try work.value("t.db", "SELECT count(*) FROM times WHERE dep_time = '0959'") == 1)
        let all = try work.run(["times.csv", "--db", "all.db", "--infer-rows", "all"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(try work.value("all.db", "SELECT type FROM pragma_table_info('times') WHERE name = 'dep_time'") == "TEXT")
        #expect(try work.value("all.db", "SELECT count(*) FROM times WHERE dep_time = '0959'") == 1)
        // Standard input cannot be read twice.
        let piped = try TestSupport.run(["-", "--db", "all.db", "--table", "piped", "--infer-rows", "all"], in: work.directory, stdin: Data(text.utf8))
        #expect(piped.status == 64)
        #expect(piped.stderr.contains("standard input cannot be read twice"), "\(piped.stderr)")
    }

    /// A fraction or text after a sample of integers: SQLite refuses it for the STRICT
    /// column, and the message names the inference and its fixes. So is text that SQLite
    /// would make the column's number (` 3`, `+4`, `1e2`), which the sample would have
    /// typed wider: it was stored as the number, where inside the sample it made the
    /// column TEXT and kept its spelling.
    @Test(arguments: ["1.5", "abc", " 3", "+4", "1e2", "0959", #""""#])
    func aValueThatDoesNotFitAnInferredTypeNamesTheInference(_ value: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let text = "a,b\n" + (1 ... 150).map { "\($0),\($0)" }.joined(separator: "\n") + "\n151,\(value)\n"
        _ = TestSupport.write(text, to: work.directory.appendingPathComponent("v.csv"))
        let run = try work.run(["v.csv", "--db", "v.db", "--infer-rows", "100"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("v.csv:152") && run.stderr.contains("which this run inferred from the first 100 records"), "\(run.stderr)")
        #expect(run.stderr.contains("--type b=TEXT") && run.stderr.contains("--infer-rows"), "\(run.stderr)")
        // The value in quotes, so that a space or an empty string shows.
        let shown = value == #""""# ? "" : value
        #expect(run.stderr.contains(#"field "b" = "\#(shown)" does not fit"#), "\(run.stderr)")
    }

    /// JSON strings past the sample, into a column inferred INTEGER or REAL from JSON
    /// numbers: SQLite would store "2" as 2 and " 3" as 3, the sample keeps them as text.
    @Test func aJSONStringPastTheSampleDoesNotFitAnInferredNumberColumn() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        _ = TestSupport.write(
            #"{"id":1,"n":1,"r":0.5}"# + "\n" + #"{"id":2,"n":2,"r":1.5}"# + "\n" + #"{"id":3,"n":"3","r":2.5}"# + "\n" + #"{"id":4,"n":4,"r":" 3.5"}"# + "\n",
            to: work.directory.appendingPathComponent("s.jsonl"))
        let run = try work.run(["s.jsonl", "--db", "s.db", "--upsert", "id", "--infer-rows", "2"])
        #expect(run.status == 65)
        #expect(run.stderr.contains(#"s.jsonl:3 (byte 46): field "n" = "3" does not fit the column's type INTEGER"#), "\(run.stderr)")
        let skipped = try work.run(["s.jsonl", "--db", "k.db", "--upsert", "id", "--infer-rows", "2", "--on-error", "skip", "--report", "k.json"])
        #expect(skipped.status == 2, "\(skipped.stderr)")
        #expect(skipped.stderr.contains(#"s.jsonl:4 (byte 71): field "r" = " 3.5" does not fit the column's type REAL"#), "\(skipped.stderr)")
        #expect(try work.value("k.db", "SELECT group_concat(id || ':' || typeof(n) || ':' || typeof(r)) FROM s") == "1:integer:real,2:integer:real")
        // With the whole input as the sample, the strings make both columns TEXT, as written.
        #expect(try work.run(["s.jsonl", "--db", "all.db", "--upsert", "id"]).status == 0)
        #expect(try work.value("all.db", "SELECT group_concat(quote(n) || quote(r)) FROM s") == "'1''0.5','2''1.5','3''2.5','4'' 3.5'")
    }

    /// A checkpointed run that stopped on such a value has committed the table it made:
    /// the fixes the message names apply to a new table only, and it says so.
    @Test func aCheckpointedRunStoppedByTheInferenceSaysTheTableIsCommitted() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        _ = TestSupport.write((1 ... 4).map { #"{"id":\#($0),"v":\#($0)}"# + "\n" }.joined() + #"{"id":5,"v":"5"}"# + "\n", to: work.directory.appendingPathComponent("rs.jsonl"))
        let run = try work.run(["rs.jsonl", "--db", "rs.db", "--upsert", "id", "--infer-rows", "2", "--commit-every", "2"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("The table this run created was committed with those types, so --type and --infer-rows no longer change it"), "\(run.stderr)")
    }

    /// palmerpenguins spells a missing measurement NA: the new table's four measurement
    /// columns were TEXT without a word; the run now says which, and that --null NA
    /// types them from their numbers (in the report too).
    @Test func numberColumnsMadeTextByOneMissingValueWordNameTheNullFlag() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let penguins = TestSupport.fixtures.appendingPathComponent("real/penguins.csv").path
        let run = try work.run([penguins, "--db", "p.db", "--report", "p.json"])
        #expect(run.status == 0, "\(run.stderr)")
        let warning = #"columns "bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g" were created as TEXT: their values in the first 344 records are numbers and NA; if NA means a missing value, pass --null NA"#
        #expect(run.stderr.contains(warning), "\(run.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: work.directory.appendingPathComponent("p.json"))) as? [String: Any]
        #expect((report?["warnings"] as? [String])?.contains { $0.contains(warning) } == true)
        let typed = try work.run([penguins, "--db", "typed.db", "--null", "NA"])
        #expect(typed.status == 0 && !typed.stderr.contains("warning"), "\(typed.stderr)")
        #expect(try work.value("typed.db", "SELECT type FROM pragma_table_info('penguins') WHERE name = 'body_mass_g'") == "INTEGER")
        // Text other than one such word is text: no warning.
        _ = TestSupport.write("a,b\n1,x\n2,NA\n3,4\n", to: work.directory.appendingPathComponent("m.csv"))
        let mixed = try work.run(["m.csv", "--db", "m.db"])
        #expect(mixed.status == 0 && !mixed.stderr.contains("warning"), "\(mixed.stderr)")
    }

    @Test func aLeadingZeroIntoAnExistingNumberColumnIsRefusedNotConverted() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try TestSupport.createDatabase(work.path("e.db"), schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, r REAL, x NUMERIC);")
        for (name, text) in [("a.csv", "id,n\n1,0959\n"), ("b.jsonl", #"{"id":1,"r":"007.5"}"# + "\n"), ("c.csv", "id,x\n1,-01\n")] {
            _ = TestSupport.write(text, to: work.directory.appendingPathComponent(name))
            for strategy in ["typed", "cached", "multirow"] {
                let run = try work.run([name, "--db", "e.db", "--table", "t", "--upsert", "id", "--strategy", strategy])
                #expect(run.status == 65, "\(name) \(strategy): \(run.stderr)")
                #expect(run.stderr.contains("has a leading zero"), "\(name) \(strategy): \(run.stderr)")
            }
        }
        #expect(try work.value("e.db", "SELECT count(*) FROM t") == 0)
        // Text that is not a number, and numbers without the zero, are stored as SQLite does.
        _ = TestSupport.write("id,n,x\n1,007abc,959\n", to: work.directory.appendingPathComponent("ok.csv"))
        #expect(try work.run(["ok.csv", "--db", "e.db", "--table", "t", "--upsert", "id"]).status == 0)
        #expect(try work.value("e.db", "SELECT n || ':' || typeof(n) || ',' || x || ':' || typeof(x) FROM t") == "007abc:text,959:integer")
    }

    /// Weather without `--null NA`: the dry run used to pass what the real run refuses.
    @Test func aDryRunFailsWhereTheRealRunFailsAndCountsWhatItWouldDo() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let weather = work.path("weather.csv")
        try FileManager.default.copyItem(atPath: TestSupport.fixtures.appendingPathComponent("real/weather.csv").path, toPath: weather)
        try TestSupport.createDatabase(work.path("w.db"), schema: """
            CREATE TABLE weather (origin TEXT, year INTEGER, month INTEGER, day INTEGER, hour INTEGER, temp REAL, dewp REAL, humid REAL,
              wind_dir INTEGER, wind_speed REAL, wind_gust REAL, precip REAL, pressure REAL, visib REAL, time_hour TEXT PRIMARY KEY) STRICT;
            """)
        let dry = try work.run(["weather.csv", "--db", "w.db", "--upsert", "time_hour", "--dry-run"])
        let real = try work.run(["weather.csv", "--db", "w.db", "--upsert", "time_hour"])
        #expect(dry.status == 65 && real.status == 65, "\(dry.stderr)\n\(real.stderr)")
        let firstLine = { (text: String) in text.split(separator: "\n").first { $0.hasPrefix("sqlimport: error:") }.map(String.init) }
        #expect(firstLine(dry.stderr) == firstLine(real.stderr))
        #expect(dry.stderr.contains("weather.csv:2"), "\(dry.stderr)")

        // With --null NA: the same plan, the same strategy, the exact counts, and the file
        // byte for byte as it was.
        let before = try Data(contentsOf: URL(fileURLWithPath: work.path("w.db")))
        let plan = try work.run(["weather.csv", "--db", "w.db", "--upsert", "time_hour", "--null", "NA", "--dry-run", "--report", "dry.json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: work.path("w.db"))) == before)
        let done = try work.run(["weather.csv", "--db", "w.db", "--upsert", "time_hour", "--null", "NA", "--report", "real.json"])
        #expect(done.status == 0)
        func report(_ name: String) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: work.path(name)))) as! [String: Any]
        }
        let (dryReport, realReport) = (try report("dry.json"), try report("real.json"))
        #expect(dryReport["strategy"] as? String == realReport["strategy"] as? String)
        #expect((dryReport["counts"] as! [String: Int]) == (realReport["counts"] as! [String: Int]))
        #expect((realReport["counts"] as! [String: Int])["inserted"] == 1458)
        #expect(plan.stdout.contains("strategy: \(realReport["strategy"] as! String)"), "\(plan.stdout)")
        // --parse-only reads and counts, and opens no database.
        let parse = try work.run(["weather.csv", "--db", "none.db", "--parse-only"])
        #expect(parse.status == 0, "\(parse.stderr)")
        #expect(parse.stderr.contains("weather: 1,458 read · 0 rejected · parse only, no database opened"), "\(parse.stderr)")
        #expect(!FileManager.default.fileExists(atPath: work.path("none.db")))
    }
}

/// Inputs in the shape people send them (issue 15): the delimiter sniffed, the content
/// trusted over the name, the peers' spellings of the flags.
@Suite struct InputShapeTests {
    typealias Workspace = ValuesAsMeantTests.Workspace

    /// nycflights13's airlines as a semicolon CSV, as a TSV named `.txt`, and as a TSV on
    /// standard input: each used to become a one-column table, exit 0.
    @Test func theDelimiterIsSniffedFromTheHeaderAndFirstRecords() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let airlines = try String(contentsOf: TestSupport.fixtures.appendingPathComponent("real/airlines.csv"), encoding: .utf8)
        // "Delta Air Lines Inc." has no comma, so the fields can simply be re-joined.
        _ = TestSupport.write(airlines.replacingOccurrences(of: ",", with: ";"), to: work.directory.appendingPathComponent("semicolon.csv"))
        _ = TestSupport.write(airlines.replacingOccurrences(of: ",", with: "\t"), to: work.directory.appendingPathComponent("tabs.txt"))
        _ = TestSupport.write(airlines.replacingOccurrences(of: ",", with: "|"), to: work.directory.appendingPathComponent("pipes.csv"))
        for name in ["semicolon.csv", "tabs.txt", "pipes.csv"] {
            let run = try work.run([name, "--db", "a.db"])
            #expect(run.status == 0, "\(name): \(run.stderr)")
        }
        let stdin = try TestSupport.run(["-", "--db", "a.db", "--table", "piped"], in: work.directory, stdin: Data(airlines.replacingOccurrences(of: ",", with: "\t").utf8))
        #expect(stdin.status == 0, "\(stdin.stderr)")
        for table in ["semicolon", "tabs", "pipes", "piped"] {
            #expect(try work.value("a.db", "SELECT count(*) FROM pragma_table_info('\(table)')") == 2, "\(table)")
            #expect(try work.value("a.db", "SELECT name FROM \(table) WHERE carrier = 'DL'") == "Delta Air Lines Inc.", "\(table)")
        }
        // --delimiter as the peers spell a tab, and --no-headers.
        let spelled = try work.run(["tabs.txt", "--db", "a.db", "--table", "spelled", "--delimiter", "\\t", "--no-headers"])
        #expect(spelled.status == 0, "\(spelled.stderr)")
        #expect(try work.value("a.db", "SELECT count(*) FROM spelled") == 17)
        #expect(try work.run(["tabs.txt", "--db", "a.db", "--table", "spelled2", "--delimiter", "tab"]).status == 0)
    }

    @Test func contentThatDisagreesWithTheNameIsReadAsWhatItIsWithAWarning() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try FileManager.default.copyItem(
            atPath: TestSupport.fixtures.appendingPathComponent("real/cars.jsonl").path, toPath: work.path("cars.csv"))
        let run = try work.run(["cars.csv", "--db", "c.db"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("cars.csv is named as CSV but holds JSONL"), "\(run.stderr)")
        #expect(try work.value("c.db", "SELECT count(*) FROM cars") == 406)
        #expect(try work.value("c.db", "SELECT count(*) FROM pragma_table_info('cars') WHERE name = '{\"Name\"'") == 0)
        // --jsonl (or --nl), --json, --csv and --tsv choose the format as --format does.
        #expect(try work.run(["cars.csv", "--db", "c.db", "--table", "forced", "--jsonl"]).status == 0)
        #expect(try work.run(["cars.csv", "--db", "c.db", "--table", "both", "--jsonl", "--csv"]).status == 64)
    }

    /// A CSV header beginning with `[` or `{` (`[group],v`) was read as JSON by its first
    /// byte and failed ("expected a JSON object") with no fix named. Text whose next byte
    /// no JSON could hold there is CSV.
    @Test func aCSVHeaderBeginningWithABracketIsReadAsCSV() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        TestSupport.write("[group],{id},v\na,b,1\n", to: URL(fileURLWithPath: work.path("bracket.csv")))
        TestSupport.write("{id},v\na,1\n", to: URL(fileURLWithPath: work.path("brace.txt")))
        TestSupport.write("[\n  {\"a\": 1}\n]\n", to: URL(fileURLWithPath: work.path("array.csv")))
        for (file, table) in [("bracket.csv", "bracket"), ("brace.txt", "brace"), ("array.csv", "array")] {
            let run = try work.run([file, "--db", "c.db", "--table", table])
            #expect(run.status == 0, "\(file): \(run.stderr)")
        }
        #expect(try work.value("c.db", "SELECT \"[group]\" || \"{id}\" || v FROM bracket") == "ab1")
        #expect(try work.value("c.db", "SELECT \"{id}\" || v FROM brace") == "a1")
        #expect(try work.value("c.db", "SELECT a FROM array") == 1)
    }

    @Test func nullTextIsRefusedForJSONWhereItWouldBeIgnored() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try FileManager.default.copyItem(
            atPath: TestSupport.fixtures.appendingPathComponent("real/cars.jsonl").path, toPath: work.path("cars.jsonl"))
        let run = try work.run(["cars.jsonl", "--db", "c.db", "--null", "NA"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("--null applies to CSV and TSV fields"), "\(run.stderr)")
    }
}

/// `--encoding`: Latin-1, Windows-1252 and UTF-16 files are transcoded while streaming.
@Suite struct EncodingTests {
    typealias Workspace = ValuesAsMeantTests.Workspace

    static let text = "name,city,note\nJosé,Zürich,“quoted” – €5\nÆgir,Tromsø,😀 and 𝄞\n"

    @Test(arguments: [
        ("latin1", "latin1.csv"), ("windows-1252", "cp1252.csv"), ("utf-16", "utf16.csv"), ("utf-16le", "utf16le.csv"), ("utf-16be", "utf16be.csv"),
    ])
    func aFileInAnotherEncodingIsStoredAsTheSameText(_ encoding: String, _ name: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        // Each encoding holds what it can: Latin-1 has no curly quotes, € or emoji.
        var text = Self.text
        if encoding == "latin1" { text = "name,city,note\nJosé,Zürich,plain\nÆgir,Tromsø,ÿ\n" }
        if encoding == "windows-1252" { text = "name,city,note\nJosé,Zürich,“quoted” – €5\nÆgir,Tromsø,Ÿ\n" }
        let bytes: [UInt8]
        switch encoding {
        case "latin1": bytes = text.unicodeScalars.map { UInt8($0.value) }
        case "windows-1252": bytes = Array(text.data(using: .windowsCP1252)!)
        case "utf-16": bytes = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        case "utf-16le": bytes = text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        default: bytes = text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        }
        _ = TestSupport.write(bytes: bytes, to: work.directory.appendingPathComponent(name))
        let without = try work.run([name, "--db", "e.db", "--table", "plain"])
        #expect(without.status == 65, "\(without.stderr)")
        #expect(without.stderr.contains("--encoding"), "\(without.stderr)")
        let run = try work.run([name, "--db", "e.db", "--table", "t", "--encoding", encoding])
        #expect(run.status == 0, "\(run.stderr)")
        let stored = try DatabaseQueue(path: work.path("e.db")).read { db in
            try Row.fetchAll(db, sql: "SELECT name, city, note FROM t ORDER BY rowid").map { "\($0[0] as String),\($0[1] as String),\($0[2] as String)" }
        }
        #expect(stored == text.split(separator: "\n").dropFirst().map(String.init))
    }

    @Test func aLoneSurrogateIsAnErrorAndOtherEncodingsNameIconv() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        _ = TestSupport.write(bytes: Array("a\n".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) + [0x00, 0xD8, 0x41, 0x00, 0x0A, 0x00], to: work.directory.appendingPathComponent("bad.csv"))
        let bad = try work.run(["bad.csv", "--db", "e.db", "--encoding", "utf-16le"])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("not valid utf-16le at byte 4 (a high surrogate without its low half)"), "\(bad.stderr)")
        let other = try work.run(["bad.csv", "--db", "e.db", "--encoding", "shift_jis"])
        #expect(other.status == 64)
        #expect(other.stderr.contains("iconv -f SHIFT_JIS -t UTF-8"), "\(other.stderr)")
    }

    /// A UTF-16LE file (with its mark) read as `--encoding utf-16be` was one long header:
    /// a table with one column named by the whole file, no records, exit 0.
    @Test(arguments: [("utf-16be", [UInt8(0xFF), 0xFE], "utf-16le"), ("utf-16le", [UInt8(0xFE), 0xFF], "utf-16be")])
    func aByteOrderMarkOfTheOtherOrderThanNamedIsRefused(_ encoding: String, _ mark: [UInt8], _ named: String) throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let units = Array("name,city\nJosé,Zürich\n".utf16)
        let bytes = mark + units.flatMap { named == "utf-16le" ? [UInt8($0 & 0xFF), UInt8($0 >> 8)] : [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        _ = TestSupport.write(bytes: bytes, to: work.directory.appendingPathComponent("m.csv"))
        let run = try work.run(["m.csv", "--db", "e.db", "--table", "t", "--encoding", encoding])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("not valid \(encoding) at byte 0 (its byte order mark says \(named); pass --encoding \(named)"), "\(run.stderr)")
        #expect(try work.value("e.db", "SELECT count(*) FROM sqlite_schema WHERE name = 't'") == 0)
        // The mark's own order, or utf-16, reads it.
        for fix in [named, "utf-16"] {
            #expect(try work.run(["m.csv", "--db", "e.db", "--table", "t_\(fix.count)", "--encoding", fix]).status == 0)
        }
        #expect(try work.value("e.db", "SELECT city FROM t_8") == "Zürich")
    }

    /// SQLite reads ` 0959` and `+0959` as 959 too: the leading-zero guard looked at the
    /// bare text only, and a space-padded code lost its zero with exit 0.
    @Test func aLeadingZeroAfterSpaceOrPlusIsRefusedAsWithoutThem() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try TestSupport.createDatabase(work.path("e.db"), schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER, r REAL, x NUMERIC);")
        let cases = [("a.csv", "id,n\n1, 0959\n"), ("b.csv", "id,n\n1,+0959\n"), ("c.jsonl", #"{"id":1,"r":"0959 "}"# + "\n"), ("d.csv", "id,x\n1,\" -007.5\"\n")]
        for (name, text) in cases {
            _ = TestSupport.write(text, to: work.directory.appendingPathComponent(name))
            for strategy in ["typed", "cached", "multirow"] {
                let run = try work.run([name, "--db", "e.db", "--table", "t", "--upsert", "id", "--strategy", strategy])
                #expect(run.status == 65 && run.stderr.contains("has a leading zero"), "\(name) \(strategy): \(run.stderr)")
            }
        }
        #expect(try work.value("e.db", "SELECT count(*) FROM t") == 0)
        // Padding and a sign without a leading zero are the number, as SQLite reads them.
        _ = TestSupport.write("id,n,r\n1, 959,+0.5\n", to: work.directory.appendingPathComponent("ok.csv"))
        #expect(try work.run(["ok.csv", "--db", "e.db", "--table", "t", "--upsert", "id"]).status == 0)
        #expect(try work.value("e.db", "SELECT n || ':' || typeof(n) || ',' || r FROM t") == "959:integer,0.5")
    }

    /// `9007199254740993.0` (a spreadsheet's whole number) went through a Double: a REAL
    /// column stored 9007199254740992 where `9007199254740993` is refused, and an INTEGER
    /// column stored `1234567890123456789.0` as 1234567890123456768.
    @Test func aWholeNumberSpelledWithAPointIsTheIntegerItSpells() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        try TestSupport.createDatabase(work.path("e.db"), schema: """
            CREATE TABLE r (id INTEGER PRIMARY KEY, v REAL);
            CREATE TABLE i (id INTEGER PRIMARY KEY, v INTEGER, n NUMERIC, a);
            """)
        for (name, text) in [("r.csv", "id,v\n1,9007199254740993.0\n"), ("r.jsonl", #"{"id":1,"v":9007199254740993.0}"# + "\n")] {
            _ = TestSupport.write(text, to: work.directory.appendingPathComponent(name))
            let run = try work.run([name, "--db", "e.db", "--table", "r", "--upsert", "id"])
            #expect(run.status == 65 && run.stderr.contains("has more digits than a double holds"), "\(name): \(run.stderr)")
        }
        // Exact whole numbers are reals as before.
        _ = TestSupport.write("id,v\n1,9007199254740994.0\n2,5.0\n", to: work.directory.appendingPathComponent("ok.csv"))
        #expect(try work.run(["ok.csv", "--db", "e.db", "--table", "r", "--upsert", "id"]).status == 0)
        #expect(try work.value("e.db", "SELECT group_concat(printf('%d', v) || typeof(v), ',') FROM r") == "9007199254740994real,5real")
        _ = TestSupport.write(
            "id,v,n,a\n1,1234567890123456789.0,9007199254740993.00,-9007199254740993.0\n2,99999999999999999999.0,,\n",
            to: work.directory.appendingPathComponent("i.csv"))
        let big = try work.run(["i.csv", "--db", "e.db", "--table", "i", "--upsert", "id", "--on-error", "skip"])
        #expect(big.status == 2, "\(big.stderr)")
        #expect(try work.value("e.db", "SELECT v || ',' || n || ',' || a || ',' || typeof(a) FROM i") == "1234567890123456789,9007199254740993,-9007199254740993,integer")
        _ = TestSupport.write(#"{"id":3,"v":1234567890123456789.0,"a":99999999999999999999.0}"# + "\n", to: work.directory.appendingPathComponent("i.jsonl"))
        #expect(try work.run(["i.jsonl", "--db", "e.db", "--table", "i", "--upsert", "id"]).status == 0)
        #expect(try work.value("e.db", "SELECT v || ',' || a || ',' || typeof(a) FROM i WHERE id = 3") == "1234567890123456789,99999999999999999999.0,text")
        // As a key, it is the same key as the integer: a first load (plain inserts while no
        // key repeats) and the repeat count agree with what SQLite stores.
        try TestSupport.createDatabase(work.path("k.db"), schema: "CREATE TABLE t (id TEXT PRIMARY KEY, k INTEGER, v TEXT); CREATE UNIQUE INDEX t_k ON t (k);")
        _ = TestSupport.write("id,k,v\na,9007199254740993.0,first\nb,9007199254740993,second\nc,7,x\n", to: work.directory.appendingPathComponent("k.csv"))
        let keys = try work.run(["k.csv", "--db", "k.db", "--table", "t", "--upsert", "k", "--report", "k.json"])
        #expect(keys.status == 0, "\(keys.stderr)")
        #expect(try work.value("k.db", "SELECT group_concat(id || ':' || k || ':' || v, ' ') FROM t") == "a:9007199254740993:second c:7:x")
        #expect(keys.stderr.contains("1 duplicate keys"), "\(keys.stderr)")
    }

    /// A whole number spelled with a point reads the same from CSV and JSON, and one past
    /// Int64 makes its inferred column TEXT (the run refused its own sample's value).
    @Test func aWholeNumberWithAPointIsTheSameFromCSVAndJSONAndPastInt64IsText() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        _ = TestSupport.write("id,v\n1,9007199254740993.0\n", to: work.directory.appendingPathComponent("w.csv"))
        _ = TestSupport.write(#"{"id":1,"v":9007199254740993.0}"# + "\n", to: work.directory.appendingPathComponent("w.jsonl"))
        _ = TestSupport.write("id,v\n1,18446744073709551617.0\n", to: work.directory.appendingPathComponent("big.csv"))
        for (name, table) in [("w.csv", "c"), ("w.jsonl", "j"), ("big.csv", "b")] {
            let run = try work.run([name, "--db", "e.db", "--table", table])
            #expect(run.status == 0, "\(name): \(run.stderr)")
        }
        #expect(try work.value("e.db", "SELECT (SELECT v || typeof(v) FROM c) || ',' || (SELECT v || typeof(v) FROM j)") == "9007199254740993integer,9007199254740993integer")
        #expect(try work.value("e.db", "SELECT v || typeof(v) FROM b") == "18446744073709551617.0text")
    }

    /// 1, 1.5 and 9007199254740993 in a sample made a REAL column, which then refused
    /// the sample's own integer, naming a larger --infer-rows that could not help.
    @Test func integersPastTwoToThe53BesideRealsInferText() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        _ = TestSupport.write("id,v\n1,1\n2,1.5\n3,9007199254740993\n", to: work.directory.appendingPathComponent("m.csv"))
        _ = TestSupport.write(#"{"id":1,"v":1.5}"# + "\n" + #"{"id":2,"v":9007199254740993}"# + "\n", to: work.directory.appendingPathComponent("m.jsonl"))
        for name in ["m.csv", "m.jsonl"] {
            let run = try work.run([name, "--db", "e.db", "--table", "t_\(name.count)"])
            #expect(run.status == 0, "\(name): \(run.stderr)")
        }
        #expect(try work.value("e.db", "SELECT group_concat(v, ',') FROM t_5") == "1,1.5,9007199254740993")
        #expect(try work.value("e.db", "SELECT group_concat(v, ',') FROM t_7") == "1.5,9007199254740993")
        #expect(try work.value("e.db", "SELECT count(*) FROM pragma_table_info('t_5') WHERE name = 'v' AND type = 'TEXT'") == 1)
    }

    /// `{"status":"draft","status":"published"}` was stored as written: SQLite's JSON
    /// functions read "draft", while the docs said the last value wins.
    @Test func aKeyGivenTwiceInANestedObjectIsAnErrorNamingIt() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let lines = [
            #"{"id":1,"meta":{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}}"#,  // the same key in different objects is fine
            #"{"id":2,"meta":{"status":"draft","status":"published"}}"#,
            #"{"id":3,"meta":[{"k":1,"\u006b":2}]}"#,  // the same key, once escaped
        ]
        _ = TestSupport.write(lines.joined(separator: "\n") + "\n", to: work.directory.appendingPathComponent("n.jsonl"))
        let run = try work.run(["n.jsonl", "--db", "e.db", "--table", "t"])
        #expect(run.status == 65)
        #expect(run.stderr.contains(#"n.jsonl:2 (byte "#) && run.stderr.contains(#"in field "meta": the key "status" appears twice in one object"#), "\(run.stderr)")
        let skip = try work.run(["n.jsonl", "--db", "e.db", "--table", "t", "--on-error", "skip"])
        #expect(skip.status == 2, "\(skip.stderr)")
        #expect(try work.value("e.db", "SELECT group_concat(id || ':' || meta, ' ') FROM t") == #"1:{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}"#)
        #expect(skip.stderr.contains(#"the key "k" appears twice"#), "\(skip.stderr)")
        // An object of many keys (looked up by hash past 32): its repeat is found, and a
        // member --path skips is not checked.
        let many = (0 ..< 5000).map { #""k\#($0)":\#($0)"# }
        _ = TestSupport.write(#"{"id":9,"meta":{"# + (many + [#""k4321":0"#]).joined(separator: ",") + "}}\n", to: work.directory.appendingPathComponent("m.jsonl"))
        let big = try work.run(["m.jsonl", "--db", "e.db", "--table", "m"])
        #expect(big.status == 65 && big.stderr.contains(#"the key "k4321" appears twice"#), "\(big.stderr)")
        _ = TestSupport.write(#"{"id":9,"meta":{"# + many.joined(separator: ",") + "}}\n", to: work.directory.appendingPathComponent("m2.jsonl"))
        #expect(try work.run(["m2.jsonl", "--db", "e.db", "--table", "m"]).status == 0)
        _ = TestSupport.write(#"{"meta":{"a":1,"a":2},"data":[{"id":1}]}"#, to: work.directory.appendingPathComponent("p.json"))
        #expect(try work.run(["p.json", "--db", "e.db", "--table", "p", "--path", "data"]).status == 0)
    }
}

/// `--path data.items`: an API response's records, streamed out of the document.
@Suite struct JSONPathTests {
    typealias Workspace = ValuesAsMeantTests.Workspace

    @Test func theArrayAtAPathIsStreamedAsTheRecords() throws {
        let work = Workspace()
        defer { work.cleanUp() }
        let cars = try String(contentsOf: TestSupport.fixtures.appendingPathComponent("real/cars.json"), encoding: .utf8)
        // vega-datasets' cars, wrapped as an API would send it, with members before and after.
        let response = #"{"meta": {"source": "vega", "tags": ["a", {"b": [1, 2]}], "note": "x\"y"},"# + "\n"
            + #" "data": {"count": 406, "items": "# + cars + #", "next": null}, "ok": true}"#
        _ = TestSupport.write(response, to: work.directory.appendingPathComponent("response.json"))
        try FileManager.default.copyItem(atPath: TestSupport.fixtures.appendingPathComponent("real/cars.json").path, toPath: work.path("cars.json"))
        let nested = try work.run(["response.json", "--db", "nested.db", "--table", "cars", "--path", "data.items"])
        #expect(nested.status == 0, "\(nested.stderr)")
        #expect(try work.run(["cars.json", "--db", "plain.db"]).status == 0)
        #expect(try TestSupport.dump(work.path("nested.db")) == TestSupport.dump(work.path("plain.db")))
        #expect(try work.value("nested.db", "SELECT count(*) FROM cars") == 406)
        // Without --path the response is one record, which is what the peers do silently.
        let missing = try work.run(["response.json", "--db", "x.db", "--table", "cars", "--path", "data.rows"])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains(#"--path data.rows: the object has no key "rows""#), "\(missing.stderr)")
        let notArray = try work.run(["response.json", "--db", "x.db", "--table", "cars", "--path", "data.count"])
        #expect(notArray.status == 65)
        #expect(notArray.stderr.contains("--path data.count: expected an array there"), "\(notArray.stderr)")
    }
}
