import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// Text that is not what it should be, one test per case of README.md's "Broken text"
/// table: invalid UTF-8, overlong forms, surrogates, NUL bytes, byte order marks in the
/// middle, mixed line ends, a missing final newline, empty files, a header alone.
@Suite struct BrokenTextTests {
    /// What a run did: its summary, or its error's text; and the database as text.
    struct Outcome {
        var summary: ImportSummary?
        var error: String?
        var dump: String
        /// `hex(v)` of table `t`'s column `v`, when it has one: text as SQLite stores
        /// it (GRDB decodes text as a C string, which ends at a NUL).
        var storedHex: [String] = []
    }

    /// Imports `bytes` as a file named `name` into a fresh database.
    func importBytes(_ bytes: [UInt8], name: String, schema: String = "", _ configure: (inout ImportOptions) -> Void = { _ in }) throws -> Outcome {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db").path
        try TestSupport.createDatabase(database, schema: schema.isEmpty ? "CREATE TABLE keep (v)" : schema)
        let input = TestSupport.write(bytes: bytes, to: directory.appendingPathComponent(name))
        var options = ImportOptions(inputs: [input], databasePath: database)
        options.table = "t"
        configure(&options)
        var outcome = Outcome(dump: "")
        do {
            outcome.summary = try Importer(options: options).run()
        } catch {
            outcome.error = "\(error)"
        }
        outcome.dump = try TestSupport.dump(database)
        outcome.storedHex = try DatabaseQueue(path: database).read { db in
            try db.tableExists("t") && db.columns(in: "t").contains { $0.name == "v" } ? String.fetchAll(db, sql: "SELECT hex(v) FROM t ORDER BY rowid") : []
        }
        return outcome
    }

    func importText(_ text: String, name: String, schema: String = "", _ configure: (inout ImportOptions) -> Void = { _ in }) throws -> Outcome {
        try importBytes(Array(text.utf8), name: name, schema: schema, configure)
    }

    /// The error of a run that must fail, and a check that nothing was written.
    func error(_ bytes: [UInt8], name: String) throws -> String {
        let outcome = try importBytes(bytes, name: name)
        #expect(!outcome.dump.contains("table t:"), "a failed run created its table")
        guard let message = outcome.error else {
            Issue.record("\(name) was accepted")
            return ""
        }
        return message
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    // MARK: - Invalid UTF-8

    @Test func invalidUTF8InACSVFieldIsAnErrorWithItsPosition() throws {
        let message = try error(Self.bytes("a,b\n1,x") + [0xC3, 0x28] + Self.bytes("\n"), name: "t.csv")
        #expect(message.hasSuffix(#"t.csv:2 (byte 7): malformed record in field "b": invalid UTF-8 byte 0xC3; if the file is in another encoding, pass --encoding latin1, windows-1252 or utf-16"#), "\(message)")
    }

    @Test(arguments: [[0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xF0, 0x80, 0x80, 0x80]] as [[UInt8]])
    func overlongEncodingsAreErrors(_ overlong: [UInt8]) throws {
        let json = try error(Self.bytes(#"{"a":"x"#) + overlong + Self.bytes("\"}\n"), name: "t.jsonl")
        #expect(json.contains(#"t.jsonl:1 (byte 7): malformed record in field "a": invalid UTF-8 byte 0x"#), "\(json)")
        let csv = try error(Self.bytes("a\nx") + overlong + Self.bytes("\n"), name: "t.csv")
        #expect(csv.contains(#"t.csv:2 (byte 3): malformed record in field "a": invalid UTF-8 byte 0x"#), "\(csv)")
    }

    /// U+D800–DFFF encoded directly, and code points beyond U+10FFFF.
    @Test(arguments: [[0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80]] as [[UInt8]])
    func encodedSurrogatesAndCodePointsBeyondUnicodeAreErrors(_ sequence: [UInt8]) throws {
        let json = try error(Self.bytes(#"{"a":""#) + sequence + Self.bytes("\"}\n"), name: "t.jsonl")
        #expect(json.contains("t.jsonl:1 (byte 6)") && json.contains("invalid UTF-8"), "\(json)")
        let csv = try error(Self.bytes("a\n") + sequence + Self.bytes("\n"), name: "t.csv")
        #expect(csv.contains("t.csv:2 (byte 2)") && csv.contains("invalid UTF-8"), "\(csv)")
    }

    @Test(arguments: [
        (#"{"a":"\ud800"}"#, #"lone surrogate \uD800 has no low surrogate after it"#),
        (#"{"a":"\ud800\u0041"}"#, #"surrogate \uD800 is followed by \u41, not a low surrogate"#),
        (#"{"a":"\udfff x"}"#, #"lone low surrogate \uDFFF"#),
        (#"{"a":"\ud83d"}"#, #"lone surrogate \uD83D has no low surrogate after it"#),
    ])
    func loneSurrogateEscapesAreErrors(_ line: String, _ reason: String) throws {
        let message = try error(Self.bytes(line + "\n"), name: "t.jsonl")
        #expect(message.contains(#"t.jsonl:1"#) && message.contains(#"in field "a""#) && message.contains(reason), "\(message)")
    }

    // MARK: - NUL bytes

    @Test func rawNULInAJSONStringIsAnErrorAndEscapedNULIsKept() throws {
        let raw = try error(Self.bytes(#"{"a":"x"#) + [0] + Self.bytes("y\"}\n"), name: "t.jsonl")
        #expect(raw.contains(#"t.jsonl:1 (byte 7): malformed record in field "a": control character byte 0x0 inside a string; escape it"#), "\(raw)")
        let between = try error(Self.bytes(#"{"a":1}"#) + [0] + Self.bytes("\n"), name: "t.jsonl")
        #expect(between.contains("unexpected byte 0x0 after the object"), "\(between)")
        let escaped = try importText(#"{"v":"x\u0000y"}"#, name: "t.jsonl")
        #expect(escaped.summary?.counts.inserted == 1)
        #expect(escaped.storedHex == ["780079"])
    }

    @Test func rawNULInACSVFieldIsKeptAsText() throws {
        let outcome = try importBytes(Self.bytes("a,v\n1,x") + [0] + Self.bytes("y\n"), name: "t.csv")
        #expect(outcome.summary?.counts.inserted == 1)
        #expect(outcome.storedHex == ["780079"])
    }

    /// A line that is not JSON but begins as a literal does was called one: `not json`
    /// was "found null", `tx` "found a boolean".
    @Test func aLineThatOnlyBeginsLikeALiteralIsMalformedNotThatValue() throws {
        let notJSON = try error(Self.bytes("{\"a\":1}\nnot json\n"), name: "t.jsonl")
        #expect(notJSON.contains("t.jsonl:2 (byte 8): malformed record: expected a JSON object, found 'n'"), "\(notJSON)")
        let truncated = try error(Self.bytes("{\"a\":1}\ntx\n"), name: "t.jsonl")
        #expect(truncated.contains("t.jsonl:2 (byte 8): malformed record: expected a JSON object, found 't'"), "\(truncated)")
        let longer = try error(Self.bytes("{\"a\":1}\nnullx\n"), name: "t.jsonl")
        #expect(longer.contains("t.jsonl:2 (byte 8): malformed record: expected a JSON object, found 'n'"), "\(longer)")
        let literal = try error(Self.bytes("{\"a\":1}\nnull\n"), name: "t.jsonl")
        #expect(literal.contains("each record must be a JSON object, found null"), "\(literal)")
    }

    // MARK: - Byte order marks

    @Test func byteOrderMarkStartingALaterJSONLineIsAnErrorNamingItsLine() throws {
        let message = try error(Self.bytes("{\"a\":1}\n\u{FEFF}{\"a\":2}\n"), name: "t.jsonl")
        #expect(message.contains("t.jsonl:2 (byte 8): malformed record: expected a JSON object, found byte 0xEF"), "\(message)")
    }

    /// Inside CSV it is the character U+FEFF, kept like any other.
    @Test func byteOrderMarkInsideCSVIsKeptAsACharacter() throws {
        let outcome = try importText("a,b\n1,2\n\u{FEFF}3,4\n", name: "t.csv", schema: "CREATE TABLE t (a TEXT, b TEXT)")
        #expect(outcome.summary?.counts.inserted == 2)
        #expect(outcome.dump.contains("\"\u{FEFF}3\"|\"4\""), "\(outcome.dump)")
    }

    /// Each input's own leading BOM is skipped, also when the input is not the first.
    @Test func byteOrderMarkAtTheStartOfEachInputIsSkipped() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let first = TestSupport.write("\u{FEFF}{\"a\":\"1\"}\n", to: directory.appendingPathComponent("one.jsonl"))
        let second = TestSupport.write("\u{FEFF}{\"a\":\"2\"}\n", to: directory.appendingPathComponent("two.jsonl"))
        let csv = TestSupport.write("\u{FEFF}a\n3\n", to: directory.appendingPathComponent("three.csv"))
        let database = directory.appendingPathComponent("db").path
        let summary = try TestSupport.runImport([first, second, csv], database: database) { $0.table = "t" }
        #expect(summary.counts.inserted == 3)
        #expect(try TestSupport.dump(database).hasSuffix("-- t: 3 rows\n\"1\"\n\"2\"\n\"3\""))
    }

    /// A second byte order mark right after the first began the first field's name with
    /// an invisible U+FEFF: a new table got a column `"\u{FEFF}id"`, silently, and an
    /// existing one was told to add it with --alter (helper-85). It is refused, naming it.
    @Test func aSecondByteOrderMarkIsRefusedNamingIt() throws {
        for name in ["t.csv", "t.tsv", "t.jsonl"] {
            let body = name == "t.jsonl" ? "{\"id\":\"x\"}\n" : "id\nx\n"
            let message = try error([0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF] + Self.bytes(body), name: name)
            #expect(message.contains("\(name):1 (byte 3): malformed record: a second byte order mark (EF BB BF) follows the first"), "\(message)")
        }
    }

    // MARK: - Line ends

    @Test func mixedCRLFAndLFLineEndsAreBothLineEnds() throws {
        let jsonl = try importText("{\"a\":\"1\"}\r\n{\"a\":\"2\"}\n{\"a\":\"3\"}\r\n", name: "t.jsonl")
        #expect(jsonl.summary?.counts.inserted == 3)
        #expect(!jsonl.dump.contains("\\r"))
        let csv = try importText("a,b\r\n1,x\n2,y\r\n3,\"multi\r\nline\"\n", name: "t.csv")
        #expect(csv.summary?.counts.inserted == 3)
        #expect(csv.dump.contains(#""x""#) && csv.dump.contains(#""y""#) && csv.dump.contains(#""multi\r\nline""#), "\(csv.dump)")
    }

    @Test(arguments: [("t.jsonl", "{\"a\":\"1\"}\n{\"a\":\"2\"}"), ("t.jsonl", "{\"a\":\"1\"}\n{\"a\":\"2\"}\r"), ("t.csv", "a\n1\n2"), ("t.csv", "a\r\n1\r\n\"2\""), ("t.json", "[{\"a\":\"1\"},{\"a\":\"2\"}]")])
    func finalLineWithoutANewlineIsARecord(_ name: String, _ text: String) throws {
        let outcome = try importText(text, name: name)
        #expect(outcome.summary?.counts.inserted == 2, "\(outcome.error ?? "")")
        #expect(outcome.dump.contains("-- t: 2 rows\n"), "\(outcome.dump)")
    }

    // MARK: - Empty input

    @Test(arguments: ["t.jsonl", "t.csv", "t.json", "t.tsv"])
    func emptyFileIsZeroRecordsAndCreatesNoTable(_ name: String) throws {
        // Blank lines too, in JSON; in CSV a blank first line is an empty header.
        for text in ["", "\u{FEFF}"] + (name.hasSuffix("json") || name.hasSuffix("jsonl") ? ["\n\r\n \n"] : []) {
            let outcome = try importText(text, name: name)
            let summary = try #require(outcome.summary, "\(outcome.error ?? "")")
            #expect(summary.counts.read == 0)
            #expect(summary.warnings == [#"the input holds no fields; table "t" was not created"#])
            #expect(!outcome.dump.contains("table t:"))
        }
        let existing = try importText("", name: name, schema: "CREATE TABLE t (a TEXT)")
        #expect(existing.summary?.counts.read == 0)
    }

    @Test func csvWhoseFirstLineIsBlankHasAnEmptyHeader() throws {
        let message = try error(Self.bytes("\na,b\n1,2\n"), name: "t.csv")
        #expect(message.contains("t.csv: bad header row: field 1 of the header on line 1 is empty; name it, or use --no-header"), "\(message)")
    }

    /// A header alone names the columns: a new table gets them (typed ANY, with no value
    /// to infer from), an existing one is checked against them.
    @Test func csvOfOnlyAHeaderCreatesTheTableEmptyOrChecksTheExistingOne() throws {
        let created = try importText("id,name\n", name: "t.csv")
        #expect(created.summary?.counts.read == 0)
        #expect(created.dump.contains(#"table t: CREATE TABLE "t" ("id" ANY, "name" ANY) STRICT"#), "\(created.dump)")
        #expect(created.dump.hasSuffix("-- t: 0 rows"))
        let matching = try importText("id,name\n", name: "t.csv", schema: "CREATE TABLE t (id INTEGER, name TEXT)")
        #expect(matching.summary?.counts.read == 0)
        let unknown = try importText("id,color\n", name: "t.csv", schema: "CREATE TABLE t (id INTEGER, name TEXT)")
        guard let message = unknown.error else {
            Issue.record("an unknown header field was accepted")
            return
        }
        #expect(message.contains(#"table "t" has no column for field(s) "color""#))
    }
}
