import Foundation
import Testing
@testable import SQLImportKit

@Suite struct DelimitedReaderTests {
    func read(_ text: String, name: String = "t.csv", _ configure: (inout ReaderOptions) -> Void = { _ in }) throws -> [[String: RecordsReader.Value]] {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        var options = ReaderOptions()
        configure(&options)
        return try RecordsReader.read(TestSupport.write(text, to: directory.appendingPathComponent(name)), options: options)
    }

    @Test func noHeaderNamesColumnsC1ToCNAndKeepsTheFirstRecord() throws {
        let records = try read("1,a\n2,b\n") { $0.hasHeader = false }
        #expect(records.count == 2)
        #expect(records[0] == ["c1": .untyped("1"), "c2": .untyped("a")])
        #expect(records[1] == ["c1": .untyped("2"), "c2": .untyped("b")])
    }

    @Test func customDelimiterAndNullText() throws {
        let records = try read("a;b;c\nNA;\"NA\";x;y\n".replacingOccurrences(of: ";x;y", with: ";x")) {
            $0.delimiter = UInt8(ascii: ";")
            $0.nullText = "NA"
        }
        // Unquoted NA is NULL; quoted "NA" is the text NA.
        #expect(records == [["a": .null, "b": .untyped("NA"), "c": .untyped("x")]])
    }

    @Test func tsvIsChosenByExtension() throws {
        let records = try read("a\tb\n1\tx y\n", name: "t.tsv")
        #expect(records == [["a": .untyped("1"), "b": .untyped("x y")]])
    }

    @Test func crlfBomAndFinalLineWithoutNewline() throws {
        let records = try read("\u{FEFF}a,b\r\n1,\"two\r\nlines\"\r\n3,4")
        #expect(records == [["a": .untyped("1"), "b": .untyped("two\r\nlines")], ["a": .untyped("3"), "b": .untyped("4")]])
    }

    @Test func longQuotedFieldsCrossBufferRefills() throws {
        let long = String(repeating: "x\"\"y,", count: 400_000)  // 2 MiB decoded, with escapes
        let records = try read("a,b\n\"\(long)\",end\n")
        #expect(records.count == 1)
        #expect(records[0]["a"] == .untyped(long.replacingOccurrences(of: "\"\"", with: "\"")))
        #expect(records[0]["b"] == .untyped("end"))
    }

    @Test func textAfterAClosingQuoteIsAnErrorWithItsLine() throws {
        #expect {
            try read("a,b\n1,2\n\"x\"y,3\n")
        } throws: { error in
            "\(error)".contains("t.csv:3") && "\(error)".contains("after a closing quote")
        }
    }

    /// Text after a closing quote, with no quote in it, leaves the record's end clear:
    /// `--on-error skip` sets the record aside and goes on, as for a JSON Lines record
    /// with junk after it (it ended the run, exit 65, nothing committed: a helper). A
    /// quote among such text leaves the end unclear, and still ends the run.
    @Test func textAfterAClosingQuoteIsARejectUnderSkipWhereTheRecordsEndIsClear() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)'", in: directory)
        TestSupport.write("id,v\n1,\"abc\" \n2,ok\n3,\"x\"y z\r\n4,\"multi\nline\"\n", to: directory.appendingPathComponent("r.csv"))
        let strict = try TestSupport.run(["r.csv", "--db", "app.db", "--table", "t", "--upsert", "id"], in: directory)
        #expect(strict.status == 65 && strict.stderr.contains("r.csv:2") && strict.stderr.contains("\"v\""), "\(strict.stderr)")
        let skip = try TestSupport.run(["r.csv", "--db", "app.db", "--table", "t", "--upsert", "id", "--on-error", "skip", "--rejects", "rejects.jsonl"], in: directory)
        #expect(skip.status == 2, "\(skip.stderr)")
        #expect(try TestSupport.runShell("sqlite3 app.db 'SELECT group_concat(id || \":\" || v, \" \") FROM t'", in: directory).stdout == "2:ok 4:multi\nline\n")
        let rejects = try String(contentsOf: directory.appendingPathComponent("rejects.jsonl"), encoding: .utf8)
        #expect(rejects.components(separatedBy: "\n").filter { !$0.isEmpty }.count == 2 && rejects.contains(#""line":2"#) && rejects.contains(#""line":4"#), "\(rejects)")
        TestSupport.write("id,v\n1,\"abc\"x\"y\n2,ok\n", to: directory.appendingPathComponent("q.csv"))
        let unclear = try TestSupport.run(["q.csv", "--db", "app.db", "--table", "t", "--upsert", "id", "--on-error", "skip"], in: directory)
        #expect(unclear.status == 65 && unclear.stderr.contains("after a closing quote"), "\(unclear.stderr)")
    }

    @Test func unclosedQuoteIsAnError() throws {
        #expect {
            try read("a,b\n1,\"open\n")
        } throws: { error in
            "\(error)".contains("not closed before the end of input")
        }
    }

    /// The error names where the quote opened, not the end of input thousands of lines
    /// later (found by a helper's adversarial test).
    @Test func anUnclosedQuoteIsNamedWhereItOpens() throws {
        let text = "id,v\n1,a\n2,\"oops\n" + (3 ..< 10000).map { "\($0),x\n" }.joined()
        #expect {
            try read(text)
        } throws: { error in
            "\(error)".contains("t.csv:3 (byte 11)") && "\(error)".contains("a quoted field opens here")
        }
    }

    /// Lone CRs end records (old Mac files): they end lines too, so errors and rejects
    /// name the right line, as for LF and CRLF.
    @Test(arguments: ["\r", "\n", "\r\n"])
    func errorsNameTheRightLineWhateverTheLineEnds(_ end: String) throws {
        let text = ["id,v", "1,a", "2,\"b\(end)c\"", "3,c,extra"].joined(separator: end) + end
        #expect {
            try read(text)
        } throws: { error in
            "\(error)".contains("t.csv:5 (byte \(13 + 4 * end.utf8.count)):")
        }
    }
}
