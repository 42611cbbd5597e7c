import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// A value read is the value stored.
@Suite struct ValueExactnessTests {
    /// Imports `jsonl` into a new table `t` and returns the database.
    func importJSONL(_ jsonl: String, _ configure: (inout ImportOptions) -> Void = { _ in }) throws -> (DatabaseQueue, ImportSummary, URL) {
        let directory = TestSupport.temporaryDirectory()
        let input = TestSupport.write(jsonl, to: directory.appendingPathComponent("t.jsonl"))
        let database = directory.appendingPathComponent("db.sqlite").path
        let summary = try TestSupport.runImport([input], database: database, configure)
        return (try DatabaseQueue(path: database), summary, directory)
    }

    @Test func int64ExtremesStayIntegers() throws {
        let (db, summary, directory) = try importJSONL(#"{"v":-9223372036854775808}\#n{"v":9223372036854775807}\#n{"v":0}"#)
        defer { TestSupport.remove(directory) }
        let values = try db.read { try Row.fetchAll($0, sql: "SELECT v, typeof(v) AS type FROM t ORDER BY rowid") }
        #expect(values.map { $0["v"] as Int64 } == [Int64.min, Int64.max, 0])
        #expect(values.allSatisfy { ($0["type"] as String) == "integer" })
        #expect(summary.counts.numbersKeptAsText == 0)
    }

    @Test func integersBeyondInt64AreKeptAsExactTextAndCounted() throws {
        let (db, summary, directory) = try importJSONL(#"{"v":9223372036854775808}\#n{"v":18446744073709551615}\#n{"v":-9223372036854775809}"#)
        defer { TestSupport.remove(directory) }
        let values = try db.read { try Row.fetchAll($0, sql: "SELECT v, typeof(v) AS type FROM t ORDER BY rowid") }
        #expect(values.map { $0["v"] as String } == ["9223372036854775808", "18446744073709551615", "-9223372036854775809"])
        #expect(values.allSatisfy { ($0["type"] as String) == "text" })
        #expect(summary.counts.numbersKeptAsText == 3)
        #expect(try db.read { try String.fetchOne($0, sql: "SELECT type FROM pragma_table_info('t') WHERE name = 'v'") } == "TEXT")
    }

    @Test func bigIntegerIntoAnIntegerColumnIsRefusedNotRounded() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (v INTEGER)")
        let input = TestSupport.write("{\"v\":1}\n{\"v\":18446744073709551615}\n", to: directory.appendingPathComponent("t.jsonl"))
        #expect {
            try TestSupport.runImport([input], database: database)
        } throws: { error in
            "\(error)".contains("t.jsonl:2") && "\(error)".contains("18446744073709551615") && "\(error)".contains("inexact REAL")
        }
        #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 0)
    }

    /// Number text (CSV fields, JSON strings) that a numeric column would store as
    /// something else is refused, as the same numbers in JSON are: infinity for `1e400`,
    /// zero for `4.9e-325`, an inexact REAL for an integer past Int64 or, in a REAL
    /// column, past 2^53. (An adversarial review found CSV stored them silently.) Number
    /// text SQLite reads as written (`" 2.5 "`, `+7`, `1.0`) is stored as SQLite stores it.
    @Test func numberTextANumericColumnCannotHoldIsRefused() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE m (id INTEGER PRIMARY KEY, r REAL, i INTEGER, n NUMERIC); CREATE TABLE s (id INTEGER PRIMARY KEY, r REAL) STRICT")
        var case_ = 0
        func refused(_ table: String, _ column: String, _ value: String, json: Bool) throws -> String? {
            case_ += 1
            let input = json
                ? TestSupport.write("{\"id\":1,\"\(column)\":\"\(value)\"}\n", to: directory.appendingPathComponent("c\(case_).jsonl"))
                : TestSupport.write("id,\(column)\n1,\(value)\n", to: directory.appendingPathComponent("c\(case_).csv"))
            do {
                try TestSupport.runImport([input], database: database) { $0.table = table; $0.upsert = ["id"] }
                return nil
            } catch {
                return "\(error)"
            }
        }
        for json in [false, true] {
            for (table, column, value, why) in [
                ("m", "r", "1e400", "infinity or zero"), ("m", "i", "1e400", "infinity or zero"), ("m", "n", "-1e400", "infinity or zero"),
                ("m", "i", "4.9e-325", "infinity or zero"), ("m", "r", "1e-400", "infinity or zero"), ("s", "r", "1e400", "infinity or zero"),
                ("m", "r", "12345678901234567890123", "inexact REAL"), ("m", "n", "+18446744073709551615", "inexact REAL"),
                ("m", "r", "9007199254740993", "neighbouring value"),
            ] {
                let error = try refused(table, column, value, json: json)
                #expect(error?.contains(why) == true && error?.contains(":2") == !json, "\(table).\(column) = \(value), json \(json): \(error ?? "stored")")
            }
        }
        #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM m") } == 0)
        for json in [false, true] {
            let input = json
                ? TestSupport.write(#"{"id":1,"r":"2.5","i":"+7","n":"1.0"}"# + "\n", to: directory.appendingPathComponent("ok.jsonl"))
                : TestSupport.write("id,r,i,n\n1, 2.5 ,+7,1.0\n", to: directory.appendingPathComponent("ok.csv"))
            try TestSupport.runImport([input], database: database) { $0.table = "m"; $0.upsert = ["id"] }
            let row = try DatabaseQueue(path: database).read { try Row.fetchOne($0, sql: "SELECT typeof(r), r, typeof(i), i, typeof(n), n FROM m")! }
            #expect(row[0] as String == "real" && row[1] as Double == 2.5 && row[2] as String == "integer" && row[3] as Int64 == 7, "\(row)")
            #expect(row[4] as String == "integer" && row[5] as Int64 == 1, "\(row)")
        }
    }

    @Test func floatsRoundTripBitForBit() throws {
        let texts = ["0.1", "1e308", "-1.7976931348623157e308", "5e-324", "2.2250738585072014e-308", "0.30000000000000004", "123456789.123456789", "1.5"]
        let jsonl = texts.map { "{\"v\":\($0)}" }.joined(separator: "\n")
        let (db, _, directory) = try importJSONL(jsonl)
        defer { TestSupport.remove(directory) }
        let stored = try db.read { try Double.fetchAll($0, sql: "SELECT v FROM t ORDER BY rowid") }
        #expect(stored.map(\.bitPattern) == texts.map { Double($0)!.bitPattern })
    }

    /// The refusal names the number it refuses (it printed an empty value for a JSON
    /// number: the cell's payload was read as text).
    /// (Inside the sample, such an integer beside reals makes the column TEXT.)
    @Test func aNumberAnInferredColumnCannotHoldIsNamedInTheError() throws {
        #expect {
            _ = try importJSONL(#"{"id":1,"x":1.5}"# + "\n" + #"{"id":2,"x":9007199254740993}"#) { $0.inferRows = 1 }
        } throws: { error in
            "\(error)".contains(#"field "x" = 9007199254740993 does not fit the column's type REAL"#)
        }
    }

    /// SQLite would render a REAL bound into a TEXT column with 15 significant digits
    /// (0.30000000000000004 → "0.3"): a JSON number keeps every digit its double has, in a
    /// declared TEXT column, a STRICT one, and one inferred as TEXT for mixed values.
    @Test(arguments: [WriteStrategyKind.typed, .cached, .multirow])
    func aJSONRealIntoATextColumnKeepsEveryDigit(_ strategy: WriteStrategyKind) throws {
        let texts = ["0.30000000000000004", "3.4523399999999995", "1234567.8901234567", "9007199254740993.0", "5e-324", "1e+16", "0.5"]
        for schema in ["CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)", "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT) STRICT", nil] {
            let directory = TestSupport.temporaryDirectory()
            defer { TestSupport.remove(directory) }
            let database = directory.appendingPathComponent("db.sqlite").path
            if let schema { try TestSupport.createDatabase(database, schema: schema) }
            let lines = texts.enumerated().map { "{\"id\":\($0.offset + 1),\"v\":\($0.element)}" } + [#"{"id":99,"v":"text"}"#]
            let input = TestSupport.write(lines.joined(separator: "\n"), to: directory.appendingPathComponent("t.jsonl"))
            _ = try TestSupport.runImport([input], database: database) {
                $0.table = "t"
                $0.strategy = strategy
                $0.inferRows = 100
            }
            let stored = try DatabaseQueue(path: database).read { try Row.fetchAll($0, sql: "SELECT v, typeof(v) AS type FROM t WHERE id < 99 ORDER BY id") }
            #expect(stored.allSatisfy { $0["type"] as String == "text" }, "\(schema ?? "inferred")")
            // Each text reads back as the very double the input's number is.
            #expect(stored.map { Double($0["v"] as String)!.bitPattern } == texts.map { Double($0)!.bitPattern }, "\(schema ?? "inferred")")
        }
    }

    /// A JSON number with more digits than a double keeps, into a TEXT column, is its
    /// text as written, as an integer past 64 bits is: it was the double's text
    /// (`12345678901234567890123.5` as `1.2345678901234568e+22`), silently, where the
    /// column holds text. Into a REAL column it is still the double, and a number a
    /// double keeps is stored as before.
    @Test(arguments: [WriteStrategyKind.typed, .cached, .multirow])
    func aNumberWhoseDigitsADoubleLosesIsItsTextInATextColumn(_ strategy: WriteStrategyKind) throws {
        for strict in ["", " STRICT"] {
            let directory = TestSupport.temporaryDirectory()
            defer { TestSupport.remove(directory) }
            let database = directory.appendingPathComponent("db.sqlite").path
            try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, r REAL)\(strict)")
            let input = TestSupport.write(
                [#"{"id":1,"v":12345678901234567890123.5,"r":12345678901234567890123.5}"#, #"{"id":2,"v":0.1000000000000000000000001,"r":1}"#,
                 #"{"id":3,"v":1e2,"r":1}"#, #"{"id":4,"v":0.30000000000000004,"r":1}"#].joined(separator: "\n") + "\n",
                to: directory.appendingPathComponent("t.jsonl"))
            let run = { try TestSupport.runImport([input], database: database) { $0.table = "t"; $0.upsert = ["id"]; $0.strategy = strategy } }
            let summary = try run()
            #expect(summary.counts.numbersKeptAsText == 0 && summary.warnings.isEmpty, "\(summary.warnings)")
            let stored = try DatabaseQueue(path: database).read { try String.fetchAll($0, sql: "SELECT v || '|' || typeof(v) || '|' || r FROM t ORDER BY id") }
            #expect(stored == [
                "12345678901234567890123.5|text|1.23456789012346e+22", "0.1000000000000000000000001|text|1.0", "100.0|text|1.0",
                "0.30000000000000004|text|1.0",
            ], "\(strict)")
            #expect(try run().counts.unchanged == 4)
        }
        // A nested field is read by the column it lands in, not by a TEXT column named
        // like its leaf or its path (helper-84: refused, or TEXT in an untyped column).
        for (schema, naming, stored) in [
            ("price REAL, meta_price TEXT", FlattenNaming.leaf, "SELECT typeof(price) || '|' || price FROM t"),
            ("price TEXT, meta_price REAL", .prefix, "SELECT typeof(meta_price) || '|' || meta_price FROM t"),
            ("price TEXT, meta_price", .prefix, "SELECT typeof(meta_price) || '|' || meta_price FROM t"),
        ] {
            let directory = TestSupport.temporaryDirectory()
            defer { TestSupport.remove(directory) }
            let database = directory.appendingPathComponent("db.sqlite").path
            try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, \(schema))")
            let input = TestSupport.write(#"{"id":1,"meta":{"price":12345678901234567890123.5}}"# + "\n", to: directory.appendingPathComponent("t.jsonl"))
            _ = try TestSupport.runImport([input], database: database) { $0.table = "t"; $0.upsert = ["id"]; $0.strategy = strategy; $0.flattenNaming = naming }
            #expect(try DatabaseQueue(path: database).read { try String.fetchOne($0, sql: stored) } == "real|1.23456789012346e+22", "\(schema)")
        }
    }

    /// Where SQLite's own 15 digits are exact, a JSON real into a TEXT column keeps
    /// SQLite's spelling (`1.0e+15`), what other writers of the table store: a TEXT key
    /// written by SQLite still matches (a review found a second row made), and
    /// `--scope` on such a column still finds its rows.
    @Test func aJSONRealIntoATextKeyMatchesWhatSQLiteStored() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT, grp TEXT); INSERT INTO t VALUES (1e15, 'old', 1e-05), (0.5, 'old', 1e-05), ('x', 'old', 'other');")
        let input = TestSupport.write(#"{"k":1e15,"v":"new","grp":1e-05}"# + "\n" + #"{"k":0.30000000000000004,"v":"new","grp":1e-05}"#, to: directory.appendingPathComponent("t.jsonl"))
        let summary = try TestSupport.runImport([input], database: database) {
            $0.table = "t"
            $0.upsert = ["k"]
            $0.mirror.deleteMissing = true
            $0.mirror.scope = ["grp"]
            $0.mirror.maxDelete = .percent(100)
        }
        #expect(summary.counts.inserted == 1 && summary.counts.updated == 1 && summary.counts.deleted == 1, "\(summary.counts)")
        let rows = try DatabaseQueue(path: database).read { try Row.fetchAll($0, sql: "SELECT k, v FROM t ORDER BY k").map { "\($0["k"] as String)|\($0["v"] as String)" } }
        #expect(rows == ["0.30000000000000004|new", "1.0e+15|new", "x|old"])
    }

    /// SQLite stores an integral REAL as an integer on disk, so -0.0 reads back as 0.0
    /// from a REAL column (documented in README.md). The value is still a REAL zero.
    @Test func negativeZeroIsStoredAsARealZero() throws {
        let (db, _, directory) = try importJSONL(#"{"v":-0.0}"#)
        defer { TestSupport.remove(directory) }
        let row = try db.read { try Row.fetchOne($0, sql: "SELECT v, typeof(v) AS type FROM t")! }
        #expect((row["v"] as Double) == 0)
        #expect((row["type"] as String) == "real")
    }

    @Test func stringsKeepNULEmojiAndSurrogatePairs() throws {
        let (db, _, directory) = try importJSONL(#"{"v":"a\u0000b"}\#n{"v":"😀"}\#n{"v":"\ud83d\ude00"}\#n{"v":"tab\there \"q\" \\ \/"}\#n{"v":""}"#)
        defer { TestSupport.remove(directory) }
        let rows = try db.read { try Row.fetchAll($0, sql: "SELECT hex(v) AS h, length(CAST(v AS BLOB)) AS n, typeof(v) AS type FROM t ORDER BY rowid") }
        #expect(rows[0]["h"] as String == "610062")
        #expect(rows[0]["n"] as Int == 3)
        #expect(rows[1]["h"] as String == "F09F9880")
        #expect(rows[2]["h"] as String == "F09F9880")
        #expect(rows[3]["h"] as String == Data("tab\there \"q\" \\ /".utf8).map { String(format: "%02X", $0) }.joined())
        #expect(rows[4]["type"] as String == "text")
        #expect(rows[4]["n"] as Int == 0)
    }

    @Test(arguments: [
        (#"{"id":1,"name":"ok"}"# + "\n" + #"{"id":2,"name":"bad \x escape"}"#, "invalid escape"),
        (#"{"id":1,"name":"ok"}"# + "\n" + #"{"id":2,"name":"lone \ud800 surrogate"}"#, "lone surrogate"),
        (#"{"id":1,"name":"ok"}"# + "\n" + #"{"id":2,"name":"low \udc00 first"}"#, "lone low surrogate"),
    ])
    func badStringsAreErrorsNamingLineAndField(_ input: String, _ reason: String) throws {
        #expect {
            try importJSONL(input)
        } throws: { error in
            let text = "\(error)"
            return text.contains("t.jsonl:2") && text.contains("\"name\"") && text.contains(reason)
        }
    }

    @Test func invalidUTF8IsAnErrorWithItsPosition() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let bytes = Array("{\"a\":\"ok\"}\n{\"a\":\"x".utf8) + [0xC3, 0x28] + Array("\"}\n".utf8)
        let input = TestSupport.write(bytes: bytes, to: directory.appendingPathComponent("t.jsonl"))
        #expect {
            try TestSupport.runImport([input], database: directory.appendingPathComponent("db").path)
        } throws: { error in
            let text = "\(error)"
            return text.contains("t.jsonl:2") && text.contains("byte 18") && text.contains("invalid UTF-8")
        }
    }

    @Test func booleansNullsAndNestedValues() throws {
        let (db, _, directory) = try importJSONL(#"{"b":true,"f":false,"n":null,"o":{"x": [1, 2.5, "s"], "y": {}},"a":[ ]}"#)
        defer { TestSupport.remove(directory) }
        let row = try db.read { try Row.fetchOne($0, sql: "SELECT b, f, n, o, a, json_valid(o) AS valid, o ->> '$.x[1]' AS x1 FROM t")! }
        #expect(row["b"] as Int == 1)
        #expect(row["f"] as Int == 0)
        #expect((row["n"] as DatabaseValue).isNull)
        #expect(row["o"] as String == #"{"x":[1,2.5,"s"],"y":{}}"#)
        #expect(row["a"] as String == "[]")
        #expect(row["valid"] as Int == 1)
        #expect(row["x1"] as Double == 2.5)
    }

    @Test func flattenTurnsNestedObjectsIntoColumns() throws {
        let (db, _, directory) = try importJSONL(#"{"id":1,"meta":{"color":"red","size":{"w":2}},"tags":["a"]}"#) { $0.reader.flatten = true }
        defer { TestSupport.remove(directory) }
        let columns = try db.read { try String.fetchAll($0, sql: "SELECT name FROM pragma_table_info('t')") }
        #expect(columns == ["id", "meta_color", "meta_size_w", "tags"])
        #expect(try db.read { try String.fetchOne($0, sql: "SELECT meta_color FROM t") } == "red")
    }

    @Test func csvFieldsAreTypedByTheTargetColumn() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (n INTEGER, z TEXT, r REAL, s ANY) STRICT")
        let input = TestSupport.write("n,z,r,s\n42,007,1.5,007\n-7,\"\",,x\n", to: directory.appendingPathComponent("t.csv"))
        try TestSupport.runImport([input], database: database)
        let dump = try TestSupport.dump(database)
        // "42" → 42 in an INTEGER column; "007" stays "007" in TEXT and ANY columns;
        // an unquoted empty field is NULL, a quoted one the empty string.
        #expect(dump.contains(#"42|"007"|r:1.5|"007""#))
        #expect(dump.contains(#"-7|""|NULL|"x""#))
    }

    @Test func csvValueAStrictColumnCannotHoldIsAnErrorNamingLineColumnAndValue() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (n INTEGER, z TEXT) STRICT")
        let input = TestSupport.write("n,z\n1,a\n2,b\nabc,c\n", to: directory.appendingPathComponent("t.csv"))
        for strategy in [WriteStrategyKind.typed, .cached, .multirow] {
            #expect {
                try TestSupport.runImport([input], database: database) { $0.strategy = strategy }
            } throws: { error in
                let text = "\(error)"
                return text.contains("t.csv:4") && text.contains("\"n\"") && text.contains("abc")
            }
        }
        #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 0)
    }

    @Test func csvInferenceKeepsLeadingZerosAsText() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        let input = TestSupport.write("zip,qty,price,big,empty\n007,1,1.5,18446744073709551615,\n123,2,2,1,\n", to: directory.appendingPathComponent("t.csv"))
        try TestSupport.runImport([input], database: database)
        let types = try DatabaseQueue(path: database).read { try Row.fetchAll($0, sql: "SELECT name, type FROM pragma_table_info('t')") }
        #expect(types.map { "\($0["name"] as String) \($0["type"] as String)" } == ["zip TEXT", "qty INTEGER", "price REAL", "big TEXT", "empty ANY"])
        let dump = try TestSupport.dump(database)
        #expect(dump.contains(#""007"|1|r:1.5|"18446744073709551615"|NULL"#))
        #expect(dump.contains(#""123"|2|r:2.0|"1"|NULL"#))
    }

    @Test(arguments: [WriteStrategyKind.typed, .cached, .multirow])
    func blobMarkersBecomeBytesInStrictBlobColumnsWithEveryStrategy(_ strategy: WriteStrategyKind) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db.sqlite").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, b BLOB) STRICT")
        let input = TestSupport.write(#"{"id":1,"b":{"$base64":"AP8="}}"#, to: directory.appendingPathComponent("t.jsonl"))
        try TestSupport.runImport([input], database: database) { $0.strategy = strategy }
        #expect(try TestSupport.dump(database).contains("1|x'00ff'"))
    }
}
