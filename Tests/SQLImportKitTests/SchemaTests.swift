import Foundation
import GRDB
import Testing
@testable import SQLImportKit

@Suite struct SchemaTests {
    func withTable(_ schema: String, _ input: String, name: String = "t.jsonl", _ body: (String, String) throws -> Void) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db").path
        if !schema.isEmpty { try TestSupport.createDatabase(database, schema: schema) }
        try body(TestSupport.write(input, to: directory.appendingPathComponent(name)), database)
    }

    /// An export of a table holds its generated columns; importing it back names them
    /// as generated (it said the table had no such columns, and --alter tried to add
    /// them), and --ignore-unknown drops them.
    @Test func fieldsNamingGeneratedColumnsAreNamedAsSuch() throws {
        let schema = "CREATE TABLE g (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER GENERATED ALWAYS AS (a * 2) VIRTUAL, c INTEGER GENERATED ALWAYS AS (a + 1) STORED)"
        try withTable(schema, #"{"id":1,"a":5,"b":10,"c":6}"#) { input, database in
            for alter in [false, true] {
                #expect {
                    try TestSupport.runImport([input], database: database) {
                        $0.table = "g"
                        $0.alter = alter
                    }
                } throws: { error in
                    "\(error)".contains(#""b", "c" are generated columns of "g""#) && "\(error)".contains("--ignore-unknown")
                }
            }
            try TestSupport.runImport([input], database: database) {
                $0.table = "g"
                $0.ignoreUnknown = true
            }
            #expect(try TestSupport.dump(database).contains("1|5|10|6"))
        }
    }

    /// `--pk` and `--type` shape a table the run creates: the nightly command that created
    /// the table passes again, and other values against an existing table are refused
    /// (they were ignored, silently). `--delimiter` with JSON input is refused too.
    @Test func flagsForANewTableAreRefusedWhereTheTableDisagrees() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let input = TestSupport.write(#"{"id":1,"notes":"x"}"# + "\n", to: directory.appendingPathComponent("t.jsonl"))
        let command = [input, "--db", "db", "--table", "t", "--upsert", "id"]
        for _ in 0 ..< 2 {
            let same = try TestSupport.run(command + ["--pk", "id", "--type", "notes=TEXT"], in: directory)
            #expect(same.status == 0, "\(same.stderr)")
        }
        for flags in [["--pk", "notes"], ["--type", "notes=INTEGER"]] {
            let refused = try TestSupport.run(command + flags, in: directory)
            #expect(refused.status == 64 && refused.stderr.contains("applies to a table the run creates"), "\(flags): \(refused.stderr)")
        }
        let delimited = try TestSupport.run(command + ["--delimiter", "|"], in: directory)
        #expect(delimited.status == 64 && delimited.stderr.contains("--delimiter and --no-header apply to CSV and TSV"), "\(delimited.stderr)")
    }

    @Test func fieldsMapToColumnsIgnoringCase() throws {
        try withTable("CREATE TABLE t (Id INTEGER, Name TEXT)", #"{"id":1,"NAME":"x"}"#) { input, database in
            try TestSupport.runImport([input], database: database)
            #expect(try TestSupport.dump(database).contains(#"1|"x""#))
        }
    }

    /// SQLite ignores the case of ASCII letters only: `Ä` and `ä` are two columns, and a
    /// field `é` is no column `É` (an adversarial review found them folded together).
    @Test func fieldsMatchColumnsIgnoringASCIICaseOnly() throws {
        try withTable(#"CREATE TABLE two (id INTEGER PRIMARY KEY, "Ä" TEXT, "ä" TEXT); CREATE TABLE one (id INTEGER PRIMARY KEY, "É" TEXT)"#, #"{"id":1,"ä":"lower","Ä":"upper"}"#) { input, database in
            try TestSupport.runImport([input], database: database) { $0.table = "two"; $0.upsert = ["id"] }
            #expect(try DatabaseQueue(path: database).read { try String.fetchOne($0, sql: #"SELECT "Ä" || ' ' || "ä" FROM two"#) } == "upper lower")
            let other = TestSupport.write(#"{"id":1,"é":"x"}"#, to: URL(fileURLWithPath: input).deletingLastPathComponent().appendingPathComponent("one.jsonl"))
            #expect {
                try TestSupport.runImport([other], database: database) { $0.table = "one"; $0.upsert = ["id"] }
            } throws: { error in
                "\(error)".contains(#"no column for field(s) "é""#)
            }
        }
    }

    /// `--infer-rows all` into a table that exists has nothing to infer, and runs (its
    /// sample size overflowed: exit 132; a review found it).
    @Test func inferringFromAllRecordsIntoAnExistingTableRuns() throws {
        try withTable("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)", #"{"id":1,"v":"a"}"#) { input, database in
            let summary = try TestSupport.runImport([input], database: database) { $0.upsert = ["id"]; $0.inferRows = ImportOptions.inferFromAllRecords }
            #expect(summary.counts.inserted == 1)
        }
    }

    @Test func unknownFieldsAreAnErrorListingThem() throws {
        try withTable("CREATE TABLE t (id INTEGER)", #"{"id":1,"color":"red","size":2}"#) { input, database in
            #expect {
                try TestSupport.runImport([input], database: database)
            } throws: { error in
                "\(error)" == #"\#(input):1 (byte 0): table "t" has no column for field(s) "color", "size"; re-run with --alter to add them, or --ignore-unknown to drop them"#
            }
        }
    }

    /// The error named the fields but not where they are: a field first seen at line
    /// 15,001 of 20,000 sent the user searching. It names the first record that holds
    /// one, or the header of a CSV.
    @Test func anUnknownFieldIsNamedWhereItFirstAppears() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, n)")
        let lines = (1 ... 3000).map { $0 < 2500 ? #"{"id":\#($0),"n":1}"# : #"{"id":\#($0),"n":1,"colour":"red"}"# }
        let jsonl = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        #expect {
            try TestSupport.runImport([jsonl], database: database) { $0.table = "t" }
        } throws: { error in
            "\(error)".hasPrefix("\(jsonl):2500 (byte ") && "\(error)".contains(#"has no column for field(s) "colour""#)
        }
        let csv = TestSupport.write("id,n,colour\n1,2,red\n", to: directory.appendingPathComponent("in.csv"))
        #expect {
            try TestSupport.runImport([csv], database: database) { $0.table = "t" }
        } throws: { error in
            "\(error)".hasPrefix("\(csv):1 (the header): table \"t\" has no column")
        }
    }

    /// Field names SQLite cannot take (empty, with a NUL, two spellings of one name, more
    /// fields than columns) stopped the run without saying where the field is.
    @Test func aFieldNameSQLiteCannotTakeIsNamedWhereItFirstAppears() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        func message(_ lines: [String], schema: String? = nil, alter: Bool = false) throws -> String {
            let database = directory.appendingPathComponent("\(UUID().uuidString).db").path
            if let schema { try TestSupport.createDatabase(database, schema: schema) }
            let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
            do {
                _ = try TestSupport.runImport([input], database: database) { $0.table = "t"; $0.upsert = ["id"]; $0.alter = alter }
                return "no error"
            } catch {
                return "\(error)".replacingOccurrences(of: input, with: "in.jsonl")
            }
        }
        let wide = #"{"id":3,"# + (0 ..< 2100).map { #""c\#($0)":1"# }.joined(separator: ",") + "}"
        #expect(try message([#"{"id":1,"v":"a"}"#, #"{"id":2,"v":"b","V":"c"}"#]).hasPrefix("in.jsonl:2 (byte 17): fields \"v\" and \"V\" both map"))
        #expect(try message([#"{"id":1}"#, #"{"id":2,"":1}"#]).hasPrefix("in.jsonl:2 (byte 9): field name \"\" is empty"))
        #expect(try message([#"{"id":1}"#, #"{"id":2,"w\u0000":1}"#]).hasPrefix("in.jsonl:2 (byte 9): field name"))
        #expect(try message([#"{"id":1}"#, #"{"id":2}"#, wide]).hasPrefix("in.jsonl:3 (byte 18): the input has 2101 fields"))
        #expect(try message([#"{"id":1}"#, #"{"id":2,"a":1,"A":2}"#], schema: "CREATE TABLE t (id INTEGER PRIMARY KEY)", alter: true)
            .hasPrefix("in.jsonl:2 (byte 9): fields \"a\" and \"A\" both map"))
        #expect(try message([#"{"id":1}"#, #"{"id":2,"":1}"#], schema: "CREATE TABLE t (id INTEGER PRIMARY KEY)").hasPrefix("in.jsonl:2 (byte 9): field name \"\" is empty"))
    }

    @Test func alterAddsColumnsWithInferredTypes() throws {
        try withTable("CREATE TABLE t (id INTEGER) STRICT", #"{"id":1,"color":"red","size":2,"w":1.5}"#) { input, database in
            let summary = try TestSupport.runImport([input], database: database) { $0.alter = true }
            #expect(summary.addedColumns == ["color", "size", "w"])
            let types = try DatabaseQueue(path: database).read { try String.fetchAll($0, sql: "SELECT type FROM pragma_table_info('t')") }
            #expect(types == ["INTEGER", "TEXT", "INTEGER", "REAL"])
            #expect(try TestSupport.dump(database).contains(#"1|"red"|2|r:1.5"#))
        }
    }

    @Test func ignoreUnknownDropsFields() throws {
        try withTable("CREATE TABLE t (id INTEGER)", #"{"id":1,"color":"red"}"#) { input, database in
            try TestSupport.runImport([input], database: database) { $0.ignoreUnknown = true }
            #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT id FROM t") } == 1)
        }
    }

    @Test func missingNotNullColumnWithoutDefaultIsNamed() throws {
        try withTable("CREATE TABLE t (id INTEGER, code TEXT NOT NULL, note TEXT NOT NULL DEFAULT '')", #"{"id":1}"#) { input, database in
            #expect {
                try TestSupport.runImport([input], database: database)
            } throws: { error in
                "\(error)".hasPrefix("\(input): " + #"column "code" of "t" is NOT NULL without a default"#)
            }
        }
    }

    /// A NOT NULL column, or the `newer` column, that the first batch's records lack but a
    /// later record has is no error: JSON's records may bring a field in any batch. The
    /// records without the NOT NULL column are refused one by one (set aside here), and
    /// those without the `newer` column arrive with its default. They stopped the run
    /// (exit 65 and 64) when the first batch lacked the field, so `--commit-every`
    /// changed what a file did (a fuzzer; PostgreSQL imported the same file).
    @Test func aRequiredFieldThatALaterBatchBringsIsNoError() throws {
        let lines = [#"{"k":"b","v":"p"}"#, #"{"id":"c","k":"c","v":"q","ts":3}"#]
        try withTable("CREATE TABLE t (id TEXT NOT NULL PRIMARY KEY, k TEXT NOT NULL UNIQUE, v TEXT, ts INTEGER)", lines.joined(separator: "\n")) { input, database in
            let summary = try TestSupport.runImport([input], database: database) {
                $0.upsert = ["k"]
                $0.merge = .newer(column: "ts")
                $0.onError = .skip
                $0.rowsPerBatch = 1
            }
            #expect(summary.counts.inserted == 1 && summary.counts.rejected == 1)
            // When every field is known, a column no record fills is the input's error.
            #expect {
                try TestSupport.runImport([input], database: database) { $0.upsert = ["k"]; $0.merge = .newer(column: "ts") }
            } throws: { error in
                "\(error)".contains(#"column "id" of "t" is NOT NULL without a default"#) == false && "\(error)".contains("NOT NULL")
            }
        }
    }

    @Test func keysFirstSeenAfterTheSampleNeedAlter() throws {
        let lines = (1 ... 50).map { #"{"id":\#($0)}"# } + [#"{"id":51,"late":"x"}"#]
        try withTable("", lines.joined(separator: "\n")) { input, database in
            #expect {
                try TestSupport.runImport([input], database: database) { $0.inferRows = 10; $0.rowsPerBatch = 8 }
            } throws: { error in
                "\(error)".contains(#"no column for field(s) "late""#)
            }
            let summary = try TestSupport.runImport([input], database: database) { $0.inferRows = 10; $0.rowsPerBatch = 8; $0.alter = true }
            #expect(summary.addedColumns == ["late"])
            #expect(summary.counts.inserted == 51)
        }
    }

    @Test func newTableIsStrictWithPrimaryKeyAndTypeOverrides() throws {
        try withTable("", #"{"sku":"a","qty":1,"zip":12345}"#) { input, database in
            let summary = try TestSupport.runImport([input], database: database) {
                $0.primaryKey = ["sku"]
                $0.typeOverrides = ["zip": "text"]
            }
            #expect(summary.createdTable == #"CREATE TABLE "t" ("sku" TEXT NOT NULL, "qty" INTEGER, "zip" TEXT, PRIMARY KEY ("sku")) STRICT"#)
        }
    }

    @Test func raggedRowIsAnErrorNamingItsLine() throws {
        try withTable("", "a,b\n1,2\n3\n", name: "t.csv") { input, database in
            #expect {
                try TestSupport.runImport([input], database: database)
            } throws: { error in
                "\(error)".contains("t.csv:3") && "\(error)".contains("row has 1 fields but the header has 2; check the delimiter")
            }
        }
    }

    /// A last row with too few fields and no line end is named as a cut input: a stream
    /// that ends mid-record in CSV was told to check its delimiter and quoting, where JSON,
    /// gzip and zstd say the input ends early (a fault review).
    @Test func aShortLastRowWithoutALineEndIsNamedAsACutInput() throws {
        try withTable("", "a,b,c\n1,2,3\n4,5", name: "t.csv") { input, database in
            #expect {
                try TestSupport.runImport([input], database: database)
            } throws: { error in
                "\(error)".contains("t.csv:3") && "\(error)".contains("row has 2 fields but the header has 3, and the input ends on it without a line end: it was probably cut short")
            }
        }
    }

    @Test func headerNamesMustBeDistinctIgnoringCase() throws {
        try withTable("", "Name,name\n1,2\n", name: "t.csv") { input, database in
            #expect {
                try TestSupport.runImport([input], database: database)
            } throws: { error in
                "\(error)".contains("fields 1 and 2 of the header on line 1 are named \"Name\" and \"name\"")
            }
        }
    }

    @Test func jsonKeysDifferingOnlyInCaseAreRefused() throws {
        try withTable("", #"{"Name":"a","name":"b"}"#) { input, database in
            #expect {
                try TestSupport.runImport([input], database: database)
            } throws: { error in
                "\(error)".contains(#"fields "Name" and "name" both map to column"#)
            }
        }
    }

    @Test func emptyAndNULFieldNamesAreRefused() throws {
        for input in [#"{"":1}"#, #"{"a\u0000b":1}"#] {
            try withTable("", input) { path, database in
                #expect(throws: ImportError.self) { try TestSupport.runImport([path], database: database) }
            }
        }
    }

    /// Identifiers from input are data: quoted, never spliced.
    @Test(arguments: [
        #"a"; DROP TABLE x; --"#, "semi;colon", "dash--dash", "back`tick", "[bracket]", "new\nline", "quote'single", "SELECT",
    ])
    func hostileNamesBecomeExactlyThatColumn(_ name: String) throws {
        let header = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\",b\n1,2\n"
        try withTable("CREATE TABLE x (keep INTEGER); INSERT INTO x VALUES (7);", header, name: "t.csv") { input, database in
            try TestSupport.runImport([input], database: database)
            let queue = try DatabaseQueue(path: database)
            let columns = try queue.read { try String.fetchAll($0, sql: "SELECT name FROM pragma_table_info('t')") }
            #expect(columns == [name, "b"])
            #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT keep FROM x") } == 7)
        }
    }

    @Test func hostileFileNameBecomesAQuotedTableName() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let input = TestSupport.write(#"{"a":1}"#, to: directory.appendingPathComponent(#"x"; DROP TABLE keep; --.jsonl"#))
        let database = directory.appendingPathComponent("db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE keep (v INTEGER)")
        let summary = try TestSupport.runImport([input], database: database)
        #expect(summary.table == #"x"; DROP TABLE keep; --"#)
        #expect(try DatabaseQueue(path: database).read { try $0.tableExists("keep") && $0.tableExists(#"x"; DROP TABLE keep; --"#) })
    }

    @Test func partialPredicateIsExtractedVerbatim() {
        #expect(SQLText.whereClause(ofCreateIndex: "CREATE UNIQUE INDEX i ON t (a, b) WHERE remoteID IS NOT NULL") == "remoteID IS NOT NULL")
        #expect(SQLText.whereClause(ofCreateIndex: #"CREATE UNIQUE INDEX "where" ON "t where" ("where") WHERE "where" > 0 AND deleted = 0"#) == #""where" > 0 AND deleted = 0"#)
        #expect(SQLText.whereClause(ofCreateIndex: "CREATE UNIQUE INDEX i ON t (a) -- WHERE x\n WHERE /* WHERE */ a IN ('WHERE', 'b')") == "/* WHERE */ a IN ('WHERE', 'b')")
        #expect(SQLText.whereClause(ofCreateIndex: "CREATE UNIQUE INDEX i ON t (a)") == nil)
        let notNull = PartialPredicateFilter.nullTest(in: "remoteID IS NOT NULL")
        #expect(notNull?.column == "remoteID" && notNull?.isNotNull == true)
        let quoted = PartialPredicateFilter.nullTest(in: #""remote ""ID"""  is  not  null"#)
        #expect(quoted?.column == "remote \"ID\"" && quoted?.isNotNull == true)
        let softDelete = PartialPredicateFilter.nullTest(in: #""deletedAt" IS NULL"#)
        #expect(softDelete?.column == "deletedAt" && softDelete?.isNotNull == false)
        #expect(PartialPredicateFilter.nullTest(in: "remoteID IS NOT NULL AND x = 1") == nil)
        #expect(PartialPredicateFilter.nullTest(in: "deletedAt IS NULL OR x = 1") == nil)
    }

    /// A predicate's qualifiers that name the table name an alias instead, in any case
    /// and quoting; strings, comments, other names and schema-qualified ones are kept.
    @Test func aPredicateQualifiedWithTheTableNamesTheAlias() {
        func requalified(_ sql: String) -> String { SQLText.requalifying(sql, table: "excluded", as: "sqlimport_row") }
        #expect(requalified("excluded.deleted IS NULL AND \"Excluded\" . \"x\" > 0") == "sqlimport_row.deleted IS NULL AND sqlimport_row . \"x\" > 0")
        #expect(requalified("[EXCLUDED].a = `excluded`.b AND \"ex\"\"cluded\".c") == "sqlimport_row.a = sqlimport_row.b AND \"ex\"\"cluded\".c")
        #expect(requalified("a = 'excluded.b' /* excluded.c */ AND excluded_x.d AND main.excluded.e AND excluded = 1")
            == "a = 'excluded.b' /* excluded.c */ AND excluded_x.d AND main.excluded.e AND excluded = 1")
    }

    /// The conflict clauses a table declares, read past quotes, comments, sort orders and
    /// column lists, each with the constraint it belongs to.
    @Test func declaredConflictClausesAreReadWithTheirConstraints() {
        func clauses(_ sql: String) -> [String] {
            SQLText.conflictClauses(ofCreateTable: sql).map { "\($0.constraint.rawValue) \($0.resolution.rawValue)" }
        }
        #expect(clauses(#"CREATE TABLE "t" ("id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (uuid()), "title" TEXT NOT NULL DEFAULT '')"#) == ["NOT NULL REPLACE"])
        #expect(clauses("CREATE TABLE t (id INTEGER PRIMARY KEY DESC ON CONFLICT ROLLBACK, e TEXT UNIQUE ON CONFLICT REPLACE, v DEFAULT NULL UNIQUE on conflict ignore)")
            == ["PRIMARY KEY ROLLBACK", "UNIQUE REPLACE", "UNIQUE IGNORE"])
        #expect(clauses("CREATE TABLE t (a, b, \"on conflict replace\" TEXT, -- UNIQUE ON CONFLICT REPLACE\n c CHECK (c <> 'ON CONFLICT REPLACE'), UNIQUE (a, \"b\") ON CONFLICT REPLACE, PRIMARY KEY (a) ON CONFLICT FAIL, FOREIGN KEY (b) REFERENCES p (x) ON DELETE CASCADE)")
            == ["UNIQUE REPLACE", "PRIMARY KEY FAIL"])
        #expect(clauses("CREATE TABLE t (a /* UNIQUE ON CONFLICT REPLACE */ TEXT)").isEmpty)
        let overridden = SQLText.conflictClauses(ofCreateTable: "CREATE TABLE t (a UNIQUE ON CONFLICT REPLACE)").map(\.isOverridden)
        #expect(overridden == [true])
        let kept = SQLText.conflictClauses(ofCreateTable: "CREATE TABLE t (a NOT NULL ON CONFLICT REPLACE, b UNIQUE ON CONFLICT IGNORE, c UNIQUE ON CONFLICT FAIL)").map(\.isOverridden)
        #expect(kept == [false, false, false])
    }

    /// Generated columns' expressions, read past quotes, comments, nested parentheses and
    /// table constraints.
    @Test func generatedColumnExpressionsAreReadByColumn() {
        let columns = SQLText.generatedColumns(ofCreateTable: """
            CREATE TABLE "t (x" (id INTEGER PRIMARY KEY, "a, b" TEXT DEFAULT ('AS (no)'), -- AS (comment)
              live INT GENERATED ALWAYS AS (coalesce("a, b", 'x') = ')' AND (1 + 2) > 0) VIRTUAL,
              [up] AS (upper(live)) STORED, `n``q` AS(1), c INT AS /* why */ -- note
              (2), CHECK (id AS_IS > 0), UNIQUE (live))
            """)
        #expect(columns.map(\.name) == ["live", "up", "n`q", "c"])
        #expect(columns.map(\.expression) == [#"coalesce("a, b", 'x') = ')' AND (1 + 2) > 0"#, "upper(live)", "1", "2"])
    }

    /// Any predicate works, not only `IS NOT NULL`: SQLite evaluates it on the record.
    @Test(arguments: [WriteStrategyKind.cached, .multirow])
    func generalPartialPredicateIsCopiedAndCounted(_ strategy: WriteStrategyKind) throws {
        let schema = """
            CREATE TABLE t (id TEXT PRIMARY KEY, code TEXT, deleted INTEGER NOT NULL DEFAULT 0, v TEXT);
            CREATE UNIQUE INDEX live_code ON t (code) WHERE deleted = 0 AND code <> '';
            """
        let input = #"{"id":"1","code":"a","deleted":0,"v":"x"}\#n{"id":"2","code":"a","deleted":1,"v":"y"}\#n{"id":"3","code":"","deleted":0,"v":"z"}"#
        try withTable(schema, input) { path, database in
            let first = try TestSupport.runImport([path], database: database) { $0.upsert = ["code"]; $0.strategy = strategy }
            #expect(first.conflictPredicate == "deleted = 0 AND code <> ''")
            #expect(first.counts.outsidePartialIndex == 2)
            #expect(first.fallbackKey == ["id"])
            let second = try TestSupport.runImport([path], database: database) { $0.upsert = ["code"]; $0.strategy = strategy }
            #expect(second.counts.unchanged == 3)
        }
    }

    /// Regression: with records of 1 MiB, batches end at 4 records (4 MB), and sampling
    /// 1000 records for inference held every batch of the pool: reader and writer waited
    /// for each other forever (found by bench/memory.sh on a 1 GB CSV).
    @Test func inferenceOnHugeRecordsDoesNotStarveTheReader() throws {
        let field = String(repeating: "x", count: 1 << 20)
        let text = "id,body\n" + (0 ..< 40).map { "\($0),\(field)\n" }.joined()
        try withTable("", text, name: "t.csv") { input, database in
            let summary = try TestSupport.runImport([input], database: database)
            #expect(summary.counts.inserted == 40)
        }
    }
}

extension SchemaTests {
    @Test func aFieldFirstSeenAfterTheFirstBatchIsWritten() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, note TEXT)")
        let lines = (1 ... 5000).map { #"{"id":\#($0)}"# } + [#"{"id":5001,"note":"late"}"#]
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("t.jsonl"))
        let summary = try TestSupport.runImport([input], database: database) { $0.upsert = ["id"] }
        #expect(summary.counts.inserted == 5001)
        #expect(try DatabaseQueue(path: database).read { try String.fetchOne($0, sql: "SELECT note FROM t WHERE id = 5001") } == "late")
    }
}

extension SchemaTests {
    /// A nightly export that came out empty is no error, whatever the table requires.
    @Test func anEmptyInputIntoAnExistingTableReadsNothingAndSucceeds() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        try TestSupport.createDatabase(database, schema: TestSupport.seedsSchema)
        for text in ["", "\n", "[]"] {
            let input = TestSupport.write(text, to: directory.appendingPathComponent(text == "[]" ? "e.json" : "e.jsonl"))
            let result = try TestSupport.run([input, "--db", database, "--table", "items", "--upsert", "libraryID,remoteID"], in: directory)
            #expect(result.status == 0, "\(text.debugDescription): \(result.stderr)")
            #expect(result.stderr.contains("0 read"))
        }
    }
}
