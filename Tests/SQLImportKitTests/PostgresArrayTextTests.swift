import Foundation
import Testing

@testable import SQLImportKit

/// `PostgresArrayText` reads an array's text into the elements PostgreSQL reads from it,
/// compared with the server's own `unnest`, and writes a JSON array as text the server
/// reads back as the same elements.
@Suite struct PostgresArrayTextTests {
    static let literals = [
        #"{1,2,3}"#, #"{ 1 , 2 }"#, #"{{1,2},{3,4}}"#, #"[0:1]={a,b}"#, #"{}"#, #"{NULL,null,"NULL",\NULL}"#,
        #"{"a \"b\" \\c",d\,e,  f g  ,"  h  "}"#, #"{é,"x,y",""}"#, #"{"{\"a\": 1}",NULL}"#, #"  {{ a },{"b"}}  "#,
    ]

    /// Each element as `hex` of its UTF-8 bytes, or `NULL`: what the server prints.
    static func spelled(_ elements: [[UInt8]?]) -> String {
        elements.map { $0.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "NULL" }.joined(separator: "\n") + "\n"
    }

    @Test
    func arrayTextIsReadAsThePostgreSQLServerReadsIt() throws {
        let url = try PostgresServer.database(schema: PostgresTargetTests.schemaName(#function), setUp: "SELECT 1;")
        for literal in Self.literals {
            let mine = try #require(Array(literal.utf8).withUnsafeBytes(PostgresArrayText.elements), "\(literal)")
            let server = try PostgresServer.query(
                url, "SELECT coalesce(encode(convert_to(x, 'UTF8'), 'hex'), 'NULL') FROM unnest($q$\(literal)$q$::text[]) WITH ORDINALITY AS u(x, n) ORDER BY n;")
            #expect(Self.spelled(mine) == (server.isEmpty ? "\n" : server), "\(literal)")
        }
    }

    @Test
    func aJSONArrayIsWrittenAsTextTheServerReadsAsItsElements() throws {
        let url = try PostgresServer.database(schema: PostgresTargetTests.schemaName(#function), setUp: "SELECT 1;")
        let arrays: [(json: String, elements: [String])] = [
            (#"[1,-2.5e3,"a \"b\" \\c","NULL",null,true]"#, ["1", "-2.5e3", #"a "b" \c"#, "NULL", "(null)", "true"]),
            (#"[["x,y","{z}"],["é\n",""]]"#, ["x,y", "{z}", "é\n", ""]),
            (#"[{"a":[1,"}"]},{}]"#, [#"{"a":[1,"}"]}"#, "{}"]),
            ("[]", []),
        ]
        for (json, elements) in arrays {
            let text = try #require(try Self.text(json), "\(json)")
            let server = try PostgresServer.query(
                url, "SELECT coalesce(encode(convert_to(x, 'UTF8'), 'hex'), '(null)') FROM unnest($q$\(String(decoding: text, as: UTF8.self))$q$::text[]) WITH ORDINALITY AS u(x, n) ORDER BY n;")
            let expected = elements.map { $0 == "(null)" ? $0 : $0.utf8.map { String(format: "%02x", $0) }.joined() }
            #expect(server == expected.map { $0 + "\n" }.joined(), "\(json)")
        }
        #expect(try Self.text(" [1]").map { String(decoding: $0, as: UTF8.self) } == "{1}")
        // Not a JSON array: an object, PostgreSQL's own text, JSON that is not.
        for other in [#"{"a":1}"#, "{1,2}", "[1:2]={1,2}", "[1,"] { #expect(try Self.text(other) == nil, "\(other)") }
        // Into integer[] a whole number spelled with a point or an exponent is the integer;
        // into bytea[] a string is its bytes, a marker its bytes, a number refused.
        #expect(try Self.text(#"[1.0,"4.0",1e2,2.5,"x"]"#, .integer).map { String(decoding: $0, as: UTF8.self) } == #"{1,4,100,2.5,"x"}"#)
        #expect(try Self.text(#"["A\\",{"$base64":"QQ=="},{"a":1}]"#, .bytea).map { String(decoding: $0, as: UTF8.self) } == #"{"\\x415c","\\x41","{\"a\":1}"}"#)
        #expect(throws: PostgresArrayText.Refusal.self) { try Self.text("[1]", .bytea) }
    }

    static func text(_ json: String, _ family: PostgresValueCheck.Family = .other) throws -> [UInt8]? {
        try Array(json.utf8).withUnsafeBytes { try PostgresArrayText.text(ofJSONArray: $0, element: family) }
    }
}
