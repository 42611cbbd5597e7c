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
            var fields = [#""id":"k\#(key)""#, #""libraryID":\#(library)"#]
            fields.append(Bool.random(using: &random) && key % 5 != 0 ? #""remoteID":"r\#(key)""# : #""remoteID":null"#)
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
                    }.counts)
                }
                results.append((try TestSupport.dump(database), counts))
            }
            for other in results.dropFirst() {
                #expect(other.0 == results[0].0, "seed \(seed), \(policy): databases differ")
                #expect(other.1 == results[0].1, "seed \(seed), \(policy): counts differ")
            }
            let counts = results[0].1[1]
            #expect(counts.inserted + counts.updated + counts.unchanged + counts.skipped == counts.read, "seed \(seed)")
        }
    }

    /// Property: an upsert on `id` that leaves unchanged index columns (`libraryID`,
    /// `remoteID`) out of `SET`, with its guard and fallback statement, leaves the same
    /// database and counts as statements that assign every column, in every strategy.
    /// Records move between identities, in and out of the partial index, several times
    /// within one multi-row chunk.
    @Test(arguments: policies)
    func leavingUnchangedIndexColumnsUnassignedMatchesAssigningEveryColumn(_ policy: MergePolicy) throws {
        for seed in UInt64(1) ... 8 {
            let directory = TestSupport.temporaryDirectory()
            defer { TestSupport.remove(directory) }
            let first = TestSupport.write(
                Self.randomJSONL(seed: seed, rows: 120, movingIdentities: true), to: directory.appendingPathComponent("a.jsonl"))
            let second = TestSupport.write(
                Self.randomJSONL(seed: seed &+ 1000, rows: 120, movingIdentities: true), to: directory.appendingPathComponent("b.jsonl"))
            var results: [(String, [OutcomeCounts])] = []
            for strategy in [WriteStrategyKind.typed, .cached, .multirow] {
                for leavesUnassigned in [false, true] {
                    let database = directory.appendingPathComponent("\(strategy)-\(leavesUnassigned).db").path
                    try TestSupport.createDatabase(database, schema: TestSupport.seedsSchema)
                    var counts: [OutcomeCounts] = []
                    for (run, input) in [first, second].enumerated() {
                        let summary = try TestSupport.runImport([input], database: database) {
                            $0.table = "items"
                            $0.upsert = ["id"]
                            $0.merge = policy
                            $0.strategy = strategy
                            $0.multirowCap = 7
                            $0.rowsPerBatch = 50
                            $0.leavesUnchangedIndexColumnsUnassigned = leavesUnassigned
                        }
                        counts.append(summary.counts)
                        // The first run builds the index after the load, so only the second has one to guard.
                        let guarded = summary.statementSQL?.contains("runs instead") ?? false
                        #expect(guarded == (run == 1 && leavesUnassigned && policy != .ignore), "seed \(seed): \(summary.statementSQL ?? "")")
                    }
                    results.append((try TestSupport.dump(database), counts))
                }
            }
            for other in results.dropFirst() {
                #expect(other.0 == results[0].0, "seed \(seed), \(policy): databases differ")
                #expect(other.1 == results[0].1, "seed \(seed), \(policy): counts differ")
            }
            if policy == .replace {
                #expect(results[0].1[1].updated > 0, "seed \(seed): the second input updates rows")
            }
        }
    }
}
