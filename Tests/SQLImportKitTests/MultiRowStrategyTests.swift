import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import SQLImportKit

@Suite struct MultiRowStrategyTests {
    static func rows(_ count: Int) -> String {
        (1 ... count).map { #"{"id":\#($0),"a":"v\#($0)","b":\#($0 * 2)}"# }.joined(separator: "\n")
    }

    /// `SQLITE_LIMIT_VARIABLE_NUMBER` is read at run time: lowered to 7 with three
    /// columns, statements hold 2 records (a 500-record statement would not even prepare).
    @Test func chunksFitTheVariableLimitReadAtRunTime() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let input = TestSupport.write(Self.rows(11), to: directory.appendingPathComponent("t.jsonl"))
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("db").path)
        let summary = try queue.inDatabase { db -> ImportSummary in
            #expect(sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_VARIABLE_NUMBER, 7) > 7)
            var options = ImportOptions(inputs: [input], databasePath: "")
            options.strategy = .multirow
            options.upsert = ["id"]
            return try Importer(options: options).run(in: db)
        }
        #expect(summary.rowsPerStatement == 2)
        #expect(summary.counts.inserted == 11)
        let total = try queue.read { try Int.fetchOne($0, sql: "SELECT sum(b) FROM t") }
        #expect(total == (1 ... 11).reduce(0) { $0 + $1 * 2 })
    }

    /// A record refused inside a multi-row chunk is isolated: the error names its line,
    /// not the chunk's first one.
    @Test func failingRecordInsideAChunkIsNamed() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT NOT NULL, b INTEGER CHECK (b < 100))")
        var lines = (1 ... 20).map { #"{"id":\#($0),"a":"v","b":\#($0)}"# }
        lines[12] = #"{"id":13,"a":"v","b":500}"#
        let input = TestSupport.write(lines.joined(separator: "\n"), to: directory.appendingPathComponent("t.jsonl"))
        #expect {
            try TestSupport.runImport([input], database: database) { $0.strategy = .multirow; $0.upsert = ["id"] }
        } throws: { error in
            let text = "\(error)"
            return text.contains("t.jsonl:13") && text.contains("CHECK constraint failed")
        }
        #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 0)
    }

    @Test func capIsHonouredAndRemainderGetsItsOwnStatement() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let input = TestSupport.write(Self.rows(1003), to: directory.appendingPathComponent("t.jsonl"))
        let summary = try TestSupport.runImport([input], database: directory.appendingPathComponent("db").path) {
            $0.strategy = .multirow
            $0.upsert = ["id"]
        }
        #expect(summary.rowsPerStatement == MultiRowStrategy.defaultCap)
        #expect(summary.counts.inserted == 1003)
    }
}
