import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// Key-ordered writes (`KeyOrder`): records applied in runs sorted by key leave what
/// records applied in input order leave, on random UUID keys as real apps have them.
extension StrategyEquivalenceTests.Generator {
    mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }

    /// A random UUIDv4, as text.
    mutating func uuid() -> String {
        let a = next(), b = next()
        let chars = Array(String(format: "%016llx%016llx", a, (b & ~(0xC << 60)) | (0x8 << 60)))
        return String(chars[0 ..< 8]) + "-" + String(chars[8 ..< 12]) + "-4" + String(chars[13 ..< 16]) + "-" + String(chars[16 ..< 20]) + "-"
            + String(chars[20 ..< 32])
    }
}

@Suite struct KeyOrderedWriteTests {
    typealias Random = StrategyEquivalenceTests.Generator

    static let schema = """
        CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, libraryID INTEGER NOT NULL, remoteID TEXT, name TEXT, qty INTEGER,
          updatedAt TEXT NOT NULL) STRICT;
        CREATE UNIQUE INDEX items_identity ON items (libraryID, remoteID) WHERE remoteID IS NOT NULL;
        """

    struct Item {
        var id: String
        var library: Int
        var remote: String?
        var name: String
        var qty: Int?
        var updatedAt: Int

        var json: String {
            #"{"id":"\#(id)","libraryID":\#(library),"remoteID":\#(remote.map { "\"\($0)\"" } ?? "null"),"name":"\#(name)","qty":\#(qty.map(String.init) ?? "null"),"updatedAt":"2026-01-01T00:00:\#(String(format: "%02d", updatedAt % 60))Z"}"#
        }
    }

    /// A base of `count` items and a delta that changes a tenth of them and adds a tenth;
    /// `repeats` also repeats keys inside each input.
    static func inputs(seed: UInt64, count: Int, repeats: Bool) -> (base: [Item], delta: [Item]) {
        var random = Random(state: seed)
        var base: [Item] = []
        for index in 0 ..< count {
            base.append(Item(
                id: random.uuid(), library: 1 + random.below(5), remote: random.below(20) == 0 ? nil : "rm-\(random.uuid())",
                name: "n\(index)", qty: random.below(10) == 0 ? nil : random.below(500), updatedAt: random.below(60)))
        }
        var delta: [Item] = []
        var changedIndices = Array(0 ..< count)
        for index in 0 ..< count / 10 {
            // Each changed item once: repeats come only with `repeats`.
            var changed = base[changedIndices.remove(at: random.below(changedIndices.count))]
            changed.name = "changed \(index)"
            changed.updatedAt = random.below(60)
            delta.append(changed)
            delta.append(Item(id: random.uuid(), library: 1 + random.below(5), remote: "rm-\(random.uuid())", name: "new \(index)", qty: nil, updatedAt: 0))
        }
        if repeats {
            for _ in 0 ..< count / 20 {
                var again = base[random.below(base.count)]
                again.name += " again"
                base.append(again)
                var later = delta[random.below(delta.count)]
                later.qty = random.below(500)
                delta.append(later)
            }
        }
        return (base, delta)
    }

    /// The table's rows, without rowids.
    static func rows(_ path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM items ORDER BY id").map { $0.databaseValues.map(\.description).joined(separator: "|") }
        }
    }

    struct Outcome: Equatable {
        var rows: [String]
        var counts: [OutcomeCounts]
        var keyOrder: [String?]
    }

    static func importBoth(
        _ inputs: (base: [Item], delta: [Item]), in directory: URL, name: String, sorted: Bool,
        _ configure: (inout ImportOptions) -> Void
    ) throws -> Outcome {
        let database = directory.appendingPathComponent("\(name).db").path
        try TestSupport.createDatabase(database, schema: schema)
        var outcome = Outcome(rows: [], counts: [], keyOrder: [])
        for (file, items) in [("base", inputs.base), ("delta", inputs.delta)] where !items.isEmpty {
            let input = TestSupport.write(items.map(\.json).joined(separator: "\n") + "\n", to: directory.appendingPathComponent("\(name)-\(file).jsonl"))
            let summary = try TestSupport.runImport([input], database: database) { options in
                options.table = "items"
                options.rowsPerBatch = 64
                options.inferRows = 64  // a small pool: few records are read before the key is known
                options.sortRunBytes = sorted ? 16 << 10 : nil
                options.sortMemoryMiB = sorted ? 48 : 0
                configure(&options)
            }
            outcome.counts.append(summary.counts)
            outcome.keyOrder.append(summary.keyOrder)
        }
        outcome.rows = try rows(database)
        return outcome
    }

    @Test(arguments: [UInt64(1), 2, 3])
    func sortedAndUnsortedRunsLeaveTheSameRowsAndCounts(seed: UInt64) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        for repeats in [false, true] {
            let data = Self.inputs(seed: seed, count: 1500, repeats: repeats)
            for target in [["id"], ["libraryID", "remoteID"]] {
                for strategy in [WriteStrategyKind.typed, .cached, .multirow] {
                    for policy in [MergePolicy.replace, .coalesce, .newer(column: "updatedAt"), .ignore] {
                        let configure: (inout ImportOptions) -> Void = {
                            $0.upsert = target
                            $0.strategy = strategy
                            $0.merge = policy
                            $0.nullKey = .insert
                        }
                        let context = "seed \(seed), repeats \(repeats), \(target), \(strategy), \(policy)"
                        let inOrder = try Self.importBoth(data, in: directory, name: "in-order", sorted: false, configure)
                        let sorted = try Self.importBoth(data, in: directory, name: "sorted", sorted: true, configure)
                        if target == ["id"] {
                            // The identity index is a unique index of neither clause: an
                            // update may free a value an earlier-sorted record would take.
                            #expect(sorted.keyOrder.allSatisfy { $0?.contains(#"input order: unique index "items_identity""#) == true }, "\(context): \(String(describing: sorted.keyOrder))")
                        } else {
                            // (The delta is small enough to be read before the key is known.)
                            #expect(sorted.keyOrder[0]?.contains("run(s) sorted") == true, "\(context): \(String(describing: sorted.keyOrder))")
                        }
                        #expect(inOrder.keyOrder.allSatisfy { $0 == nil })
                        #expect(sorted.rows == inOrder.rows, "\(context)")
                        for (a, b) in zip(sorted.counts, inOrder.counts) {
                            #expect(a.read == b.read && a.inserted == b.inserted && a.duplicateKeys == b.duplicateKeys && a.rejected == b.rejected, "\(context)")
                            if !repeats {
                                // A repeat inside one slice of a batch is merged before
                                // writing (`decideKeys`), and sorting puts repeats together:
                                // only then may updated and unchanged differ.
                                #expect(a == b, "\(context)")
                            }
                        }
                        TestSupport.remove(directory.appendingPathComponent("in-order.db"))
                        TestSupport.remove(directory.appendingPathComponent("sorted.db"))
                    }
                }
            }
        }
    }

    @Test func aFirstLoadWritesItsRowsInKeyOrderWithinEachRun() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let data = Self.inputs(seed: 7, count: 3000, repeats: false)
        let outcome = try Self.importBoth(data, in: directory, name: "sorted", sorted: true) {
            $0.upsert = ["libraryID", "remoteID"]
            $0.nullKey = .insert
        }
        let ids = try DatabaseQueue(path: directory.appendingPathComponent("sorted.db").path).read {
            try String.fetchAll($0, sql: "SELECT id FROM items ORDER BY rowid")
        }
        // The first batches are read before the writer knows the key: past them, in input
        // order about half the neighbours would descend; sorted, one per run boundary.
        let tail = ids[600 ..< 3000]  // the base's rows; the delta's new rows follow
        let descents = zip(tail, tail.dropFirst()).filter { $0.0 > $0.1 }.count
        let runs = Int(outcome.keyOrder[0]!.split(separator: ":")[1].split(separator: " ")[0])!
        #expect(runs > 10, "\(outcome.keyOrder)")
        #expect(descents <= runs + 1, "\(descents) descents for \(runs) runs")
    }

    /// Sorted runs start at the same record in every run of one input: after the batches
    /// the writer may hold before it decides (here two of 64 records), never later because
    /// the reader ran ahead, nor earlier after an empty first input. (They started where the reader happened to be, so new rows
    /// got other rowids from one run of the same command to the next.)
    @Test func sortedRunsStartAtTheSameRecordInEveryRun() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let base = Self.inputs(seed: 21, count: 3000, repeats: false).base
        let input = TestSupport.write(base.map(\.json).joined(separator: "\n") + "\n", to: directory.appendingPathComponent("base.jsonl"))
        // An empty input first reads as an empty batch, which must not start anything.
        let empty = TestSupport.write("", to: directory.appendingPathComponent("empty.jsonl"))
        var layouts: [[String]] = []
        for attempt in 0 ..< 3 {
            let database = directory.appendingPathComponent("run\(attempt).db").path
            try TestSupport.createDatabase(database, schema: Self.schema)
            let summary = try TestSupport.runImport(attempt == 0 ? [input] : [empty, input], database: database) { options in
                options.table = "items"
                options.upsert = ["libraryID", "remoteID"]
                options.nullKey = .insert
                options.rowsPerBatch = 64
                options.inferRows = 64
                options.sortRunBytes = 16 << 10
            }
            #expect(summary.keyOrder?.contains("run(s) sorted") == true, "\(summary.keyOrder ?? "")")
            layouts.append(try DatabaseQueue(path: database).read { try String.fetchAll($0, sql: "SELECT id FROM items ORDER BY rowid") })
        }
        #expect(layouts[1] == layouts[0] && layouts[2] == layouts[0])
        let ids = layouts[0]
        #expect(Array(ids[0 ..< 128]) == base[0 ..< 128].map(\.id))
        #expect(ids[128 ..< 160].elementsEqual(ids[128 ..< 160].sorted()), "the first sorted run starts at record 129")
        #expect(ids[128] != base[128].id)
    }

    /// A writer that decides before the reader has read the batches it may hold (an
    /// existing table decides at its first batch) does not make the reader sort earlier:
    /// whether it had decided was timing, and two runs of one input alternated between
    /// two rowid orders.
    @Test func theBatchesBeforeTheDecisionAreBatchesEvenWhenTheWriterDecidedEarly() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let lines = (0 ..< 400).map { #"{"id":"\#(UUID().uuidString)","v":\#($0)}"# }
        let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        let keyOrder = KeyOrder(memoryBytes: 1 << 20, runBytes: 16 << 10)
        keyOrder.spec = KeyOrder.Spec(sortColumns: [KeyOrder.Column(input: 0, comparison: .binary)], guardColumns: [], description: "id")
        keyOrder.decide()
        let reader = BatchReader(paths: [input], options: ReaderOptions(), rowsPerBatch: 64, spareBatches: 1, keyOrder: keyOrder)
        reader.start()
        defer { reader.stop() }
        var runs: [Bool] = []
        reading: while let item = reader.next() {
            switch item {
            case .batch(let batch):
                if batch.rowCount > 0 { runs.append(batch.isRun) }
                reader.recycle(batch)
            case .finished: break reading
            case .failed(let error): throw error
            case .opened: continue
            }
        }
        #expect(reader.batchesTheWriterMayHold == 2)
        #expect(runs.count > 3 && runs.prefix(3) == [false, false, true], "\(runs)")
    }

    @Test func aRunWhereTwoRecordsShareTheOtherClausesKeyKeepsItsInputOrder() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        // Two records with the same (libraryID, remoteID) and different ids: in input order
        // the second updates the first one's row; sorted by id, the first would update
        // the second's.
        var data = Self.inputs(seed: 11, count: 600, repeats: false)
        var twin = data.base[500]
        twin.id = "00000000-0000-4000-8000-000000000000"
        twin.name = "twin"
        data.base.insert(twin, at: 501)  // in the same run as its pair
        data.delta = []
        let configure: (inout ImportOptions) -> Void = { $0.upsert = ["libraryID", "remoteID"] }
        let inOrder = try Self.importBoth(data, in: directory, name: "in-order", sorted: false, configure)
        let sorted = try Self.importBoth(data, in: directory, name: "sorted", sorted: true, configure)
        #expect(sorted.rows == inOrder.rows)
        #expect(sorted.keyOrder[0]?.contains("left in input order") == true, "\(sorted.keyOrder)")
        #expect(sorted.rows.contains { $0.contains("twin") })
    }

    @Test func keysCompareAsTheirIndexDoes() throws {
        let batch = RecordBatch()
        batch.bytes.append(0)
        func add(_ text: String?, _ integer: Int64? = nil) {
            batch.beginRow()
            if let text {
                let start = batch.bytes.count
                batch.bytes.append(contentsOf: Array(text.utf8).withUnsafeBytes { $0 })
                batch.set(column: 0, Cell(kind: .text, payload: Int64(start), length: UInt32(text.utf8.count)))
            } else if let integer {
                batch.set(column: 0, .integer(integer))
            } else {
                batch.set(column: 0, .null)
            }
            batch.commitRow(line: batch.rowCount + 1, byteOffset: Int64(batch.rowCount))
        }
        for text in ["b", "B", "a", "A", "b "] { add(text) }
        func order(_ comparison: KeyOrder.Comparison) -> [Int32]? {
            KeyOrder.order(of: batch, by: KeyOrder.Spec(sortColumns: [.init(input: 0, comparison: comparison)], guardColumns: [], description: "k"))
        }
        // Equal keys keep their input order: "b" (0) before "B" (1) under NOCASE.
        #expect(order(.binary) == [3, 1, 2, 0, 4])
        #expect(order(.noCase) == [2, 3, 0, 1, 4])
        #expect(order(.rightTrim) == [3, 1, 2, 0, 4])
        // A text key into an INTEGER key would be converted by SQLite: no order is made.
        #expect(order(.integer) == nil)
        batch.reset(inputIndex: 0)
        batch.bytes.append(0)
        for value: Int64 in [10, -3, 2, Int64.min, Int64.max] { add(nil, value) }
        add(nil)
        #expect(order(.integer) == [5, 3, 1, 2, 0, 4])
    }

    @Test func aResumedSortedRunSkipsExactlyWhatWasCommitted() throws {
        let workspace = try CronRunTests.Workspace()
        defer { workspace.cleanUp() }
        TestSupport.remove(URL(fileURLWithPath: workspace.database))
        try TestSupport.createDatabase(workspace.database, schema: Self.schema)
        let data = Self.inputs(seed: 5, count: 20_000, repeats: false)
        let input = workspace.file("in.jsonl", data.base.map(\.json).joined(separator: "\n") + "\n")
        var options = ImportOptions(inputs: [input], databasePath: workspace.database)
        options.table = "items"
        options.upsert = ["libraryID", "remoteID"]
        options.nullKey = .insert
        options.commitEvery = 3000
        options.sortRunBytes = 256 << 10
        try FaultTests.withFullDisk(workspace, extraPages: 400) { db in
            #expect(throws: DatabaseFault.self) { try Importer(options: options).run(in: db) }
        }
        let committed = try workspace.count()
        #expect(committed > 0 && committed < 20_000 && committed % 3000 == 0, "\(committed)")
        options.resume = true
        let summary = try Importer(options: options).run()
        #expect(summary.resumedRecords == committed)
        #expect(summary.counts.inserted == 20_000 - committed)
        #expect(summary.keyOrder?.contains("run(s) sorted") == true, "\(summary.keyOrder ?? "") (\(committed) committed)")
        let clean = try CronRunTests.Workspace()
        defer { clean.cleanUp() }
        TestSupport.remove(URL(fileURLWithPath: clean.database))
        try TestSupport.createDatabase(clean.database, schema: Self.schema)
        options.databasePath = clean.database
        options.resume = false
        options.commitEvery = nil
        options.sortMemoryMiB = 0
        try Importer(options: options).run()
        #expect(try Self.rows(workspace.database) == Self.rows(clean.database))
    }
}

extension KeyOrderedWriteTests {
    /// Cases of an adversarial review: where order shows, runs keep their input order.
    @Test func orderStaysWhereItShows() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        func run(_ schema: String, _ lines: [String], _ arguments: [String]) throws -> (status: Int32, keyOrder: String?, rows: [String]) {
            let database = directory.appendingPathComponent("t.db").path
            TestSupport.remove(URL(fileURLWithPath: database))
            try TestSupport.createDatabase(database, schema: schema)
            let input = TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
            let result = try TestSupport.run([input, "--db", database, "--table", "t", "--report", "-", "--sort-memory", "1"] + arguments, in: directory)
            let report = try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
            let rows = try DatabaseQueue(path: database).read { try Row.fetchAll($0, sql: "SELECT * FROM t ORDER BY 1").map { $0.description } }
            return (result.status, report?["keyOrder"] as? String, rows)
        }
        var random = Random(state: 3)
        let filler = (0 ..< 20_000).map { _ in random.uuid() }
        // A unique column beside the target: in input order id 2 frees "b@x" before id 1 takes it.
        let swap = try run(
            "CREATE TABLE t (id TEXT PRIMARY KEY, email TEXT UNIQUE, v INTEGER); INSERT INTO t VALUES ('zz1', 'a@x', 0), ('zz2', 'b@x', 0);",
            filler.enumerated().map { #"{"id":"\#($1)","email":"e\#($0)","v":1}"# } + [#"{"id":"zz2","email":"z@x","v":1}"#, #"{"id":"zz1","email":"b@x","v":1}"#],
            ["--upsert", "id"])
        #expect(swap.status == 0)
        #expect(swap.keyOrder?.contains(#"unique index "sqlite_autoindex_t_2""#) == true, "\(swap.keyOrder ?? "")")
        // An INTEGER PRIMARY KEY some records lack: their rowids come in write order.
        var lines = filler.enumerated().map { #"{"id":\#($0 + 1),"k":"\#($1)"}"# }
        lines[12_345] = #"{"k":"no-id"}"#
        let ipk = try run("CREATE TABLE t (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE)", lines, ["--upsert", "k"])
        #expect(ipk.status == 0)
        #expect(ipk.keyOrder?.contains("left in input order") == true, "\(ipk.keyOrder ?? "")")
        #expect(ipk.rows.contains { $0.contains("id:20001") && $0.contains("no-id") } || ipk.rows.contains { $0.contains("no-id") })
        // --alter: a new column's type comes from the batch it first appears in.
        let altered = try run("CREATE TABLE t (id TEXT PRIMARY KEY)", filler.map { #"{"id":"\#($0)","extra":1}"# }, ["--upsert", "id", "--alter"])
        #expect(altered.keyOrder?.contains("input order: --alter") == true, "\(altered.keyOrder ?? "")")
    }

    /// Under NOCASE, "ABC" then "abc" are one key: the row keeps the first spelling, as
    /// one SQL upsert per record would, whether or not the two meet in one batch.
    @Test func aRepeatedKeyInAnotherSpellingKeepsTheFirstSpelling() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("t.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (k TEXT COLLATE NOCASE PRIMARY KEY, v INTEGER)")
        let input = TestSupport.write(#"{"k":"ABC","v":1}"# + "\n" + #"{"k":"abc","v":2}"# + "\n", to: directory.appendingPathComponent("in.jsonl"))
        try TestSupport.runImport([input], database: database) {
            $0.table = "t"
            $0.upsert = ["k"]
        }
        let rows = try DatabaseQueue(path: database).read { try String.fetchAll($0, sql: "SELECT k || '|' || v FROM t") }
        #expect(rows == ["ABC|2"], "\(rows)")
    }
}
