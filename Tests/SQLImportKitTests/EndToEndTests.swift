import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// Runs the built `sqlimport` binary on `fixtures/` and compares the resulting database,
/// dumped as text in a stable order, with golden files `fixtures/<input>.expected.dump`.
///
/// Re-record the golden files with `SQLIMPORT_RECORD=1 swift test`; a recording run
/// fails on purpose, so that recording can never pass silently.
@Suite(.serialized) struct EndToEndTests {
    static let recording = ProcessInfo.processInfo.environment["SQLIMPORT_RECORD"] == "1"

    func expectGolden(_ actual: String, _ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let url = TestSupport.fixtures.appendingPathComponent(name)
        if Self.recording {
            try Data((actual + "\n").utf8).write(to: url)
            Issue.record("recorded \(name); run again without SQLIMPORT_RECORD", sourceLocation: sourceLocation)
            return
        }
        let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? "(missing \(name))"
        if expected != actual + "\n" {
            let diff = zip(expected.split(separator: "\n", omittingEmptySubsequences: false), actual.split(separator: "\n", omittingEmptySubsequences: false))
                .enumerated().filter { $0.element.0 != $0.element.1 }.prefix(5)
                .map { "line \($0.offset + 1):\n  expected: \($0.element.0)\n  actual:   \($0.element.1)" }.joined(separator: "\n")
            Issue.record("\(name) differs:\n\(diff)", sourceLocation: sourceLocation)
        }
    }

    func copyFixture(_ name: String, to directory: URL) throws -> String {
        try FileManager.default.copyItem(at: TestSupport.fixtures.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        return name
    }

    @Test(arguments: ["items.jsonl", "products.csv", "events.json"])
    func importingAFixtureIntoANewTableMatchesItsGoldenDump(_ fixture: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let input = try copyFixture(fixture, to: directory)
        var arguments = [input]
        if fixture == "products.csv" { arguments += ["--null", "NA", "--pk", "sku"] }
        let result = try TestSupport.run(arguments, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        // The default database is ./sqlimport.db; the table is named after the file.
        try expectGolden(try TestSupport.dump(directory.appendingPathComponent("sqlimport.db").path), "\(fixture).expected.dump")
    }

    @Test func missionCommandOnTheSeedsSchemaIsIdempotentAndAppliesADelta() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: try String(contentsOf: TestSupport.fixtures.appendingPathComponent("items.schema.sql"), encoding: .utf8))
        let input = try copyFixture("items.jsonl", to: directory)
        let delta = try copyFixture("items-delta.jsonl", to: directory)
        let first = try TestSupport.run([input, "--upsert", "libraryID,remoteID"], in: directory, environment: ["SQLIMPORT_DB": database])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("items: 20 read · 20 inserted · 0 updated · 0 unchanged · 2 outside partial index · 0 rejected"))
        let afterFirst = try TestSupport.dump(database)
        let second = try TestSupport.run(["import", input, "--db", database, "--upsert", "remoteID,libraryID"], in: directory)
        #expect(second.status == 0)
        #expect(second.stderr.contains("20 read · 0 inserted · 0 updated · 20 unchanged"))
        #expect(try TestSupport.dump(database) == afterFirst)
        let third = try TestSupport.run([delta, "--db", database, "--table", "items", "--upsert", "libraryID,remoteID", "--merge", "newer:updatedAt", "--report", "-"], in: directory)
        #expect(third.status == 0)
        let report = try JSONSerialization.jsonObject(with: Data(third.stdout.utf8)) as! [String: Any]
        let counts = report["counts"] as! [String: Int]
        #expect(counts["inserted"] == 2)
        #expect(counts["updated"] == 2)
        #expect(counts["unchanged"] == 2)
        #expect(counts["outsidePartialIndex"] == 1)
        #expect(report["conflictPredicate"] as? String == "remoteID IS NOT NULL")
        #expect(report["version"] as? Int == 1)
        try expectGolden(try TestSupport.dump(database), "items-delta.jsonl.expected.dump")
    }

    @Test func standardInputNeedsATableName() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let data = try Data(contentsOf: TestSupport.fixtures.appendingPathComponent("items.jsonl"))
        let refused = try TestSupport.run(["-"], in: directory, stdin: data)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("--table"))
        let accepted = try TestSupport.run(["-", "--table", "items"], in: directory, stdin: data)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(accepted.stderr.contains("20 inserted"))
    }

    @Test func dryRunPrintsThePlanAndTouchesNothing() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let input = try copyFixture("items.jsonl", to: directory)
        let result = try TestSupport.run([input, "--upsert", "id", "--dry-run"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("create: CREATE TABLE \"items\""))
        #expect(result.stdout.contains("conflict target: (id)"))
        #expect(result.stdout.contains("strategy: multirow, 500 row(s) per statement (a first load with no secondary index"))
        #expect(result.stdout.contains("ON CONFLICT (\"id\") DO UPDATE SET"))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("sqlimport.db").path))
    }

    @Test func inspectListsKeysAsUpsertValues() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: try String(contentsOf: TestSupport.fixtures.appendingPathComponent("items.schema.sql"), encoding: .utf8))
        let result = try TestSupport.run(["inspect", "items", "--db", database], in: directory)
        #expect(result.status == 0)
        try expectGolden(result.stdout.trimmingCharacters(in: .newlines), "items.schema.sql.expected.inspect")
    }

    @Test(arguments: [
        (["missing.jsonl"], Int32(66), "no such file"),
        (["bad.jsonl"], Int32(65), #"bad.jsonl:2 (byte 13): malformed record in field "a": unexpected end of input"#),
        (["bad.jsonl", "--strategy", "fastest"], Int32(64), "'fastest' is invalid for '--strategy <strategy>'"),
        (["good.jsonl", "--upsert", "nope"], Int32(64), #"--upsert names "nope", which is neither a field"#),
        (["good.jsonl", "--db", "not-a-db.txt"], Int32(73), "not a database"),
    ])
    func exitCodesFollowTheREADMETable(_ arguments: [String], _ status: Int32, _ message: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write("{\"a\":1}\n{\"a\":\n", to: directory.appendingPathComponent("bad.jsonl"))
        TestSupport.write("{\"a\":1}\n", to: directory.appendingPathComponent("good.jsonl"))
        TestSupport.write(String(repeating: "this is not sqlite\n", count: 200), to: directory.appendingPathComponent("not-a-db.txt"))
        let result = try TestSupport.run(arguments, in: directory)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }
}
