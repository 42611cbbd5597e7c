import Foundation

/// Key-ordered writes: the reading thread sorts each run of records by the key of the
/// index the statements probe first, so that SQLite walks that B-tree in order instead
/// of jumping to a random page per record. With random keys (UUIDs, server IDs) this is
/// the difference between a cache miss per record and a page per ~10 records
/// (bench/README.md, "Key-ordered writes").
///
/// A run is one batch, read while the writer writes the previous one. Reordering never
/// changes what a run leaves in the database, because only records that cannot affect
/// each other trade places:
/// - the sort is stable: records with equal keys keep their input order, so the later
///   of two still wins;
/// - two records with the same key in the other conflict clause (the target when the
///   primary key goes first) but different sort keys would land in an order-dependent
///   way: a batch holding such a pair is left in input order;
/// - keys compare as the index does: integers numerically, text by its collation
///   (`BINARY`, `NOCASE`, `RTRIM`); a batch with a key value whose stored form could
///   differ (numeric text into an INTEGER key, a number into a TEXT key) is left in
///   input order;
/// - `ImportRun.keyOrderSpec` turns it off where order itself is visible: triggers,
///   self-referencing foreign keys, `ON CONFLICT REPLACE` or `IGNORE` constraints, a
///   rowid alias the run generates, a unique index other than the two clauses' (an
///   update may free a value that an earlier-sorted record takes), `--alter` (a new
///   column's type comes from the batch it first appears in); and a run keeps its input
///   order when a record lacks the rowid alias or a key column with a default, or holds a
///   NUL in a `NOCASE` key.
///
/// Checkpoints stay exact: a batch never crosses a `--commit-every` boundary, and a
/// resumed run skips committed records by their byte offsets (`ImportRun.write`).
///
/// Runs start at the same record in every run of the same input: the reader reads the
/// batches the writer may hold before it creates the table (`batchesTheWriterMayHold`,
/// counting those that hold records) in input order, and then waits for the writer's
/// decision (`decide`, at its first batch with records) before it reads on, however fast
/// either thread is. (Where runs started used to depend on timing, so two runs of one
/// input could give new rows different rowids.)
final class KeyOrder: @unchecked Sendable {
    enum Comparison: Sendable, Equatable {
        case integer
        case binary
        case noCase
        case rightTrim
    }

    struct Column: Sendable, Equatable {
        var input: Int
        var comparison: Comparison
        /// The table's rowid alias (`INTEGER PRIMARY KEY`): a record without it gets a
        /// rowid in write order, so a run where one lacks it keeps its input order.
        var isRowidAlias = false
        /// The column has a DEFAULT: a record without it gets that value, not NULL, so a
        /// run where one lacks it keeps its input order (a NULL never conflicts; the
        /// default may). (The writer fills literal defaults in, `ImportRun.fillKeyDefaults`,
        /// after the run is sorted.)
        var hasDefault = false
    }

    struct Spec: Sendable, Equatable {
        /// The probed index's columns, in its order.
        var sortColumns: [Column]
        /// The other conflict clause's columns (none without one).
        var guardColumns: [Column]
        /// The columns' names, for the report.
        var description: String
    }

    /// What one run may take (`RecordBatch.memoryBytes`): three are in memory at once,
    /// the one read, its sorted copy, and the one written.
    let runBytes: Int
    private let lock = NSLock()
    private var current: Spec?
    private var sorted = 0
    private var leftInOrder = 0
    private var largestRun = 0
    /// Memory per record in the last run, which sizes the next one.
    private var bytesPerRecord = 0

    /// - Parameter memoryBytes: what the runs in memory may take (`--sort-memory`).
    /// - Parameter runBytes: overrides the size of a run (tests use small ones).
    init(memoryBytes: Int, runBytes: Int? = nil) {
        self.runBytes = runBytes ?? max(memoryBytes / 3, 1 << 16)
    }

    /// Records and text the next run may hold: the text alone is capped at half the
    /// run until a run has shown what a record takes.
    var nextRunLimits: (records: Int, textBytes: Int) {
        lock.withLock { bytesPerRecord == 0 ? (Int.max, runBytes / 2) : (max(runBytes / bytesPerRecord, 2), runBytes) }
    }

    /// Set by the writer once the conflict clauses are known; read by the reader.
    var spec: Spec? {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }

    private let decision = NSCondition()
    private var decided = false

    /// Tells the reader that the writer has decided how runs are ordered (`spec`, set
    /// before, or none).
    func decide() {
        decision.withLock {
            decided = true
            decision.broadcast()
        }
    }

    /// On the reading thread: waits for `decide()` (or `cancel()`).
    func awaitDecision() {
        decision.withLock {
            while !decided { decision.wait() }
        }
    }

    /// Releases a reader waiting for a decision that will not come (the run stopped).
    func cancel() { decide() }

    /// Runs sorted, runs left in input order, and the largest run, for the report.
    var counts: (sorted: Int, leftInOrder: Int, largestRun: Int) {
        lock.withLock { (sorted, leftInOrder, largestRun) }
    }

    /// Copies `stage`'s records into `run` sorted (on the reading thread), and counts
    /// the outcome.
    func sortRun(_ stage: RecordBatch, into run: RecordBatch, by spec: Spec) {
        let order = Self.order(of: stage, by: spec)
        run.copyRows(from: stage, order: order)
        lock.withLock {
            if order != nil { sorted += 1 } else { leftInOrder += 1 }
            largestRun = max(largestRun, run.rowCount)
            if run.rowCount > 0 { bytesPerRecord = max(run.memoryBytes / run.rowCount, 1) }
        }
    }

    /// The report's line once the run is over (nil when no spec was set).
    var reportLine: String? {
        guard let spec else { return nil }
        let counts = counts
        guard counts.sorted + counts.leftInOrder > 0 else {
            return "input order: the input was read before its key was known (sorted runs begin after the first batches)"
        }
        return "sorted by \(spec.description) in runs of up to \(counts.largestRun) records: \(counts.sorted) run(s) sorted"
            + (counts.leftInOrder > 0 ? ", \(counts.leftInOrder) left in input order (a key value that may be stored differently, or two records with one key of the other clause)" : "")
    }

    // MARK: - Sorting

    /// One record's place: its first key column's leading bytes (or its integer, biased
    /// to sort unsigned), then the row, which makes the order stable.
    private struct Entry {
        var isNull: Bool
        var prefix: UInt64
        var row: Int32
    }

    /// The rows of `batch` in key order, or nil when the batch must keep its input order.
    static func order(of batch: RecordBatch, by spec: Spec) -> [Int32]? {
        let count = batch.rowCount
        guard count > 1, count < Int(Int32.max), !spec.sortColumns.isEmpty else { return count <= 1 ? Array(0 ..< Int32(count)) : nil }
        if batch.bytes.isEmpty { batch.bytes.append(0) }  // a valid base address
        let base = batch.bytes.base
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        let first = spec.sortColumns[0]
        let checked = spec.sortColumns + spec.guardColumns
        for row in 0 ..< count {
            for column in checked {
                let cell = batch.cell(row: row, column: column.input)
                guard fits(cell, column.comparison) else { return nil }
                if column.isRowidAlias && (cell.kind == .null || cell.kind == .absent) { return nil }
                if column.hasDefault && cell.kind == .absent { return nil }
                // NOCASE stops comparing at a NUL byte (it compares C strings).
                if column.comparison == .noCase && cell.kind != .null && cell.kind != .absent
                    && text(cell, .binary, base).contains(0)
                {
                    return nil
                }
            }
            let cell = batch.cell(row: row, column: first.input)
            if cell.kind == .null || cell.kind == .absent {
                entries.append(Entry(isNull: true, prefix: 0, row: Int32(row)))
            } else {
                entries.append(Entry(isNull: false, prefix: prefix(cell, first.comparison, base), row: Int32(row)))
            }
        }
        entries.sort { a, b in
            if a.isNull != b.isNull { return a.isNull }
            if a.prefix != b.prefix { return a.prefix < b.prefix }
            let order = compare(Int(a.row), Int(b.row), spec.sortColumns, batch, base)
            return order != 0 ? order < 0 : a.row < b.row
        }
        if !spec.guardColumns.isEmpty && !guardKeysAgree(batch, spec, base) { return nil }
        return entries.map(\.row)
    }

    /// Whether a key cell's stored value is the value compared: text into a text key,
    /// an integer into an integer key; nulls go first.
    private static func fits(_ cell: Cell, _ comparison: Comparison) -> Bool {
        switch cell.kind {
        case .null, .absent: return true
        case .integer: return comparison == .integer
        case .text, .untypedText: return comparison != .integer
        case .real, .json, .numberAsText: return false
        }
    }

    private static func text(_ cell: Cell, _ comparison: Comparison, _ base: UnsafePointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var length = Int(cell.length)
        let start = base + Int(cell.payload)
        if comparison == .rightTrim { while length > 0 && start[length - 1] == 0x20 { length -= 1 } }
        return UnsafeBufferPointer(start: start, count: length)
    }

    @inline(__always) private static func fold(_ byte: UInt8, _ comparison: Comparison) -> UInt8 {
        comparison == .noCase && byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    private static func prefix(_ cell: Cell, _ comparison: Comparison, _ base: UnsafePointer<UInt8>) -> UInt64 {
        if cell.kind == .integer { return UInt64(bitPattern: cell.payload) ^ (1 << 63) }
        let bytes = text(cell, comparison, base)
        var value: UInt64 = 0
        for index in 0 ..< 8 { value = value << 8 | UInt64(index < bytes.count ? fold(bytes[index], comparison) : 0) }
        return value
    }

    /// -1, 0 or 1: rows `a` and `b` by `columns`, as the index compares them (SQLite
    /// sorts NULL first).
    private static func compare(_ a: Int, _ b: Int, _ columns: [Column], _ batch: RecordBatch, _ base: UnsafePointer<UInt8>) -> Int {
        for column in columns {
            let x = batch.cell(row: a, column: column.input)
            let y = batch.cell(row: b, column: column.input)
            let xNull = x.kind == .null || x.kind == .absent
            let yNull = y.kind == .null || y.kind == .absent
            if xNull || yNull {
                if xNull != yNull { return xNull ? -1 : 1 }
                continue
            }
            if column.comparison == .integer {
                if x.payload != y.payload { return x.payload < y.payload ? -1 : 1 }
                continue
            }
            let p = text(x, column.comparison, base)
            let q = text(y, column.comparison, base)
            let shared = min(p.count, q.count)
            if column.comparison == .noCase {
                for index in 0 ..< shared {
                    let (c, d) = (fold(p[index], .noCase), fold(q[index], .noCase))
                    if c != d { return c < d ? -1 : 1 }
                }
            } else if shared > 0 {
                let order = memcmp(p.baseAddress!, q.baseAddress!, shared)
                if order != 0 { return order < 0 ? -1 : 1 }
            }
            if p.count != q.count { return p.count < q.count ? -1 : 1 }
        }
        return 0
    }

    /// False when two records share a key of the other clause (all columns non-null)
    /// but not the sort key: their order would matter.
    private static func guardKeysAgree(_ batch: RecordBatch, _ spec: Spec, _ base: UnsafePointer<UInt8>) -> Bool {
        var firstRowOfKey: [Int: Int] = [:]
        firstRowOfKey.reserveCapacity(batch.rowCount)
        rows: for row in 0 ..< batch.rowCount {
            var hasher = Hasher()
            for column in spec.guardColumns {
                let cell = batch.cell(row: row, column: column.input)
                switch cell.kind {
                case .null, .absent: continue rows  // a NULL never conflicts
                case .integer: hasher.combine(cell.payload)
                default:
                    let bytes = text(cell, column.comparison, base)
                    hasher.combine(bytes.count)
                    for byte in bytes { hasher.combine(fold(byte, column.comparison)) }
                }
            }
            let key = hasher.finalize()
            if let other = firstRowOfKey[key] {
                // Equal hashes of different keys only cost the sort, never correctness.
                if compare(other, row, spec.sortColumns, batch, base) != 0 { return false }
            } else {
                firstRowOfKey[key] = row
            }
        }
        return true
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
