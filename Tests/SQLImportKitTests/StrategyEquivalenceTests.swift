import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// Property: for random inputs (duplicate keys, nulls in key columns, rows inside and
/// outside a partial index, absent fields, each merge policy), every write strategy
/// leaves the same database and reports the same counts.
@Suite struct StrategyEquivalenceTests {
    /// A small deterministic generator (SplitMix64), so a failure can be replayed by seed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// - Parameter movingIdentities: a key's `libraryID` varies from record to record.
    static func randomJSONL(seed: UInt64, rows: Int, movingIdentities: Bool = false) -> String {
        var random = Generator(state: seed)
        var lines: [String] = []
        for _ in 0 ..< rows {
            let key = Int.random(in: 0 ..< rows / 2, using: &random)  // many duplicates
            let library = movingIdentities ? Int.random(in: 0 ..< 3, using: &random) : key % 3
            // Moving identities also share remote ids across keys, so identities collide.
            let remote = movingIdentities ? Int.random(in: 0 ..< rows / 3, using: &random) : key
            var fields = [#""id":"k\#(key)""#, #""libraryID":\#(library)"#]
            fields.append(Bool.random(using: &random) && key % 5 != 0 ? #""remoteID":"r\#(remote)""# : #""remoteID":null"#)
            if Int.random(in: 0 ..< 4, using: &random) > 0 {  // sometimes absent
                fields.append(#""name":"n\#(Int.random(in: 0 ..< 3, using: &random))""#)
            }
            fields.append(Bool.random(using: &random) ? #""notes":null"# : #""notes":"x\#(Int.random(in: 0 ..< 2, using: &random))""#)
            fields.append(#""updatedAt":"2026-11-\#(10 + Int.random(in: 0 ..< 3, using: &random))""#)
            lines.append("{" + fields.shuffled(using: &random).joined(separator: ",") + "}")
        }
        return lines.joined(separator: "\n")
    }

    static let policies: [MergePolicy] = [.replace, .coalesce, .newer(column: "updatedAt"), .ignore]

    @Test(arguments: policies)
    func allStrategiesLeaveIdenticalDatabasesAndCounts(_ policy: MergePolicy) throws {
        for seed in UInt64(1) ... 12 {
            let directory = TestSupport.temporaryDirectory()
            defer { TestSupport.remove(directory) }
            // Two runs per database: a first load, then a second random file on top.
            let first = TestSupport.write(Self.randomJSONL(seed: seed, rows: 120), to: directory.appendingPathComponent("a.jsonl"))
            let second = TestSupport.write(Self.randomJSONL(seed: seed &+ 1000, rows: 120), to: directory.appendingPathComponent("b.jsonl"))
            var results: [(String, [OutcomeCounts])] = []
            for strategy in [WriteStrategyKind.typed, .cached, .multirow] {
                let database = directory.appendingPathComponent("\(strategy).db").path
                try TestSupport.createDatabase(database, schema: TestSupport.seedsSchema)
                var counts: [OutcomeCounts] = []
                for input in [first, second] {
                    counts.append(try TestSupport.runImport([input], database: database) {
                        $0.table = "items"
                        $0.upsert = ["libraryID", "remoteID"]
                        $0.merge = policy
                        $0.strategy = strategy
                        $0.multirowCap = 7  // several chunks per batch, and remainders
                        $0.rowsPerBatch = 50
                        $0.onError = .skip  // identity conflicts are rejected alike
                    }.counts)
                }
                results.append((try TestSupport.dump(database), counts))
            }
            for other in results.dropFirst() {
                #expect(other.0 == results[0].0, "seed \(seed), \(policy): databases differ")
                #expect(other.1 == results[0].1, "seed \(seed), \(policy): counts differ")
            }
            let counts = results[0].1[1]
            // Every record has exactly one outcome; a record superseded by a later one of
            // its batch with the same key is counted as a duplicate only.
            let outcomes = counts.inserted + counts.updated + counts.unchanged + counts.skipped + counts.ignored + counts.rejected
            #expect(outcomes <= counts.read && counts.read <= outcomes + counts.duplicateKeys, "seed \(seed)")
        }
    }

    /// Property: the guarded statements (unchanged index columns left out of `SET`, the
    /// primary-key clause first), with their guards and fallback statement, leave the same
    /// database and counts as the plain statements, in every strategy, for `--upsert id`
    /// and for the mission's `--upsert libraryID,remoteID`. Records move between
    /// identities, in and out of the partial index, several times within one multi-row
    /// chunk, and identities collide across ids (those records are rejected alike).
    @Test(arguments: policies)
    func guardedStatementsMatchThePlainOnes(_ policy: MergePolicy) throws {
        for seed in UInt64(1) ... 8 {
            for target in [["id"], ["libraryID", "remoteID"]] {
                let directory = TestSupport.temporaryDirectory()
                defer { TestSupport.remove(directory) }
                let first = TestSupport.write(
                    Self.randomJSONL(seed: seed, rows: 120, movingIdentities: true), to: directory.appendingPathComponent("a.jsonl"))
                let second = TestSupport.write(
                    Self.randomJSONL(seed: seed &+ 1000, rows: 120, movingIdentities: true), to: directory.appendingPathComponent("b.jsonl"))
                var results: [(String, [OutcomeCounts])] = []
                for strategy in [WriteStrategyKind.typed, .cached, .multirow] {
                    for guarded in [false, true] {
                        let database = directory.appendingPathComponent("\(strategy)-\(guarded).db").path
                        try TestSupport.createDatabase(database, schema: TestSupport.seedsSchema)
                        var counts: [OutcomeCounts] = []
                        for input in [first, second] {
                            let summary = try TestSupport.runImport([input], database: database) {
                                $0.table = "items"
                                $0.upsert = target
                                $0.merge = policy
                                $0.strategy = strategy
                                $0.onError = .skip
                                $0.multirowCap = 7
                                $0.rowsPerBatch = 50
                                $0.usesGuardedStatements = guarded
                            }
                            counts.append(summary.counts)
                            let usesFallback = summary.statementSQL?.contains("runs instead") ?? false
                            #expect(usesFallback == (guarded && policy != .ignore), "seed \(seed): \(summary.statementSQL ?? "")")
                        }
                        results.append((try TestSupport.dump(database), counts))
                    }
                }
                for other in results.dropFirst() {
                    #expect(other.0 == results[0].0, "seed \(seed), \(target), \(policy): databases differ")
                    #expect(other.1 == results[0].1, "seed \(seed), \(target), \(policy): counts differ")
                }
                if policy == .replace {
                    #expect(results[0].1[1].updated > 0, "seed \(seed): the second input updates rows")
                }
            }
        }
    }
}

/// Property: edge values (spaces, signs, exponents, huge numbers, hex, `1.0`, empty
/// strings, leading zeros, NULLs into NOT NULL ... ON CONFLICT REPLACE) go through every
/// strategy, from CSV and from JSON, into STRICT and non-STRICT columns of every type: the
/// strategies accept and refuse the same records and leave the same database.
@Suite struct EdgeValueEquivalenceTests {
    static let edges = [
        "1", "-1", "1.0", " 42", "42 ", "+7", "1e3", "1E-2", ".5", "5.", "-0", "0", "9.22e18", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "0x1F", "0959", "007", "00.5", "", "abc", "1,5", "NaN", "inf", "1e999",
        "true", "12345678901234567890", "0.1", "3.14159265358979323846",
    ]

    static let schema = """
        CREATE TABLE s (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, a ANY, n INTEGER NOT NULL ON CONFLICT REPLACE DEFAULT 5) STRICT;
        CREATE TABLE p (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, a, num NUMERIC);
        """

    @Test(arguments: ["s", "p"])
    func everyStrategyAcceptsAndRefusesTheSameEdgeValues(_ table: String) throws {
        var generator = StrategyEquivalenceTests.Generator(state: table == "s" ? 1 : 2)
        let columns = table == "s" ? ["i", "r", "t", "a", "n"] : ["i", "r", "t", "a", "num"]
        var csv = "id," + columns.joined(separator: ",") + "\n"
        var json = ""
        for id in 1 ... 400 {
            let values = columns.map { _ in Self.edges[Int.random(in: 0 ..< Self.edges.count, using: &generator)] }
            csv += "\(id)," + values.map { $0.contains(",") || $0.hasPrefix(" ") || $0.hasSuffix(" ") ? "\"\($0)\"" : $0 }.joined(separator: ",") + "\n"
            // JSON: numbers where the text is JSON number syntax, else strings; "" as null.
            let fields = zip(columns, values).map { column, value -> String in
                if value.isEmpty { return "\"\(column)\":null" }
                let isNumber = value.utf8.withContiguousStorageIfAvailable { NumberText.isNumberSyntax(UnsafeRawBufferPointer($0)) } ?? false
                return "\"\(column)\":" + (isNumber ? value : "\"\(value)\"")
            }
            json += "{\"id\":\(id)," + fields.joined(separator: ",") + "}\n"
        }
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        for (name, text) in [("edges.csv", csv), ("edges.jsonl", json)] {
            let input = TestSupport.write(text, to: directory.appendingPathComponent(name))
            var results: [(WriteStrategyKind, String, OutcomeCounts)] = []
            for strategy in [WriteStrategyKind.typed, .cached, .multirow] {
                let database = directory.appendingPathComponent("\(name)-\(strategy).db").path
                try TestSupport.createDatabase(database, schema: Self.schema)
                let counts = try TestSupport.runImport([input], database: database) {
                    $0.table = table
                    $0.upsert = ["id"]
                    $0.strategy = strategy
                    $0.onError = .skip
                    $0.multirowCap = 9
                }.counts
                results.append((strategy, try TestSupport.dump(database), counts))
            }
            for other in results.dropFirst() {
                #expect(other.1 == results[0].1, "\(table) \(name): \(other.0) and \(results[0].0) leave different databases")
                #expect(other.2 == results[0].2, "\(table) \(name): \(other.0) and \(results[0].0) count differently")
            }
            let counts = results[0].2
            #expect(counts.inserted > 0 && counts.inserted + counts.rejected == 400, "\(table) \(name): \(counts)")
        }
    }
}
