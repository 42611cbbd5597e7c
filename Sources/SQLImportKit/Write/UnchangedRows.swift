import Foundation
import GRDBSQLite

/// The rows of the table by the hash of their content, so that a record equal to a row
/// in every column is counted `unchanged` without a statement: what a re-run of an
/// unchanged file is made of.
///
/// An upsert that finds nothing to change still looks its row up twice (the key's index,
/// then the table by rowid) and compares every column: about 2.7 µs per record on random
/// keys, however the records are ordered, since the table's pages come in rowid order
/// and the keys do not. One scan of the table in rowid order (`build`) costs about 0.5 µs
/// per row; after it, a record whose values hash as a row's does is that row, unchanged.
///
/// Why equal hashes mean that the upsert would change nothing (`ImportRun+UnchangedRows`
/// decides where this holds):
/// - The hash of a record is taken over the values `StatementBinder` binds, through the
///   same code; the hash of a row over the values stored. Every stored value is already
///   what its column's affinity makes of it, so a bound value equal to a stored one (same
///   type, same bytes) is stored as that value: the `IS` comparisons of the upsert's
///   `DO UPDATE ... WHERE` find every column equal, under every merge policy but `ignore`.
/// - The record supplies every column the table lets it write, so its key equals the
///   row's in every unique index, the conflict target first, which SQLite checks first.
///   Only rows inside the target's predicate and with no NULL in its columns are hashed.
/// - A row this run has written since the scan is never taken as unchanged
///   (`TouchedRows`), nor is any row once another connection may have changed the table
///   (`--commit-every`; `PRAGMA data_version`).
///
/// The hash is 128 bits wide, with seeds drawn for each run: two different rows or
/// records collide with a probability of about 2^-128, and a file cannot be made to.
///
/// Hand-written: an open-addressing table of 24-byte slots in one allocation, which no
/// Swift collection offers without a hash of its own and an allocation per entry.
final class UnchangedRows {
    /// The table columns hashed, in the order of the statement's columns (`RowShape`).
    let tableColumns: [Int]
    /// Rows hashed.
    private(set) var count = 0
    /// A hash's two halves and the row's rowid (`ambiguous` for a hash two rows share),
    /// side by side: one cache line per probe.
    private struct Slot {
        var high: UInt64
        var low: UInt64
        var rowid: Int64
    }
    private var slots: UnsafeMutablePointer<Slot>
    private var capacity: Int
    let seeds: (UInt64, UInt64)
    /// `PRAGMA data_version` when the table was scanned.
    let dataVersion: Int64
    /// The last shape whose columns were found to be `tableColumns`.
    private var matchingShape: RowShape?

    static let ambiguous = Int64.min
    /// Bytes per slot; slots are 4/3 of the rows.
    static let bytesPerSlot = MemoryLayout<Slot>.stride

    private init(tableColumns: [Int], rows: Int, seeds: (UInt64, UInt64), dataVersion: Int64) {
        self.tableColumns = tableColumns
        let capacity = Self.slots(forRows: rows)
        self.capacity = capacity
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(high: 0, low: 0, rowid: 0), count: capacity)
        self.seeds = seeds
        self.dataVersion = dataVersion
    }

    deinit { slots.deallocate() }

    /// Whether `shape` writes the columns hashed, in their order.
    @inline(__always)
    func hashes(_ shape: RowShape) -> Bool {
        if shape === matchingShape { return true }
        guard shape.tableColumns == tableColumns else { return false }
        matchingShape = shape
        return true
    }

    /// The memory the table takes for `rows` rows.
    static func bytes(forRows rows: Int) -> Int { slots(forRows: rows) * bytesPerSlot }

    /// The memory the table takes.
    var bytes: Int { capacity * Self.bytesPerSlot }

    private static func slots(forRows rows: Int) -> Int { max(rows + rows / 3, 16) }

    /// Scans `table` in rowid order and hashes `columns` of each row that `filter` (SQL,
    /// the target's predicate and NOT NULL tests of its columns) admits.
    ///
    /// - Parameters:
    ///   - expectedRows: the rows to size the table for (`max(rowid)`); it grows past them.
    ///   - maxBytes: the most the table may take.
    ///   - dataVersion: `PRAGMA data_version` of the run's own connection when the scan
    ///     began (`connection` may be another one).
    ///   - shouldStop: asked every 1,024 rows; true ends the scan (`SQLITE_INTERRUPT`).
    /// - Returns: nil when the rows need more than `maxBytes`.
    /// - Throws: the scan's SQLite error.
    static func build(
        connection: OpaquePointer, table: String, rowidName: String, columns: [(index: Int, name: String, affinity: ColumnAffinity)],
        filter: String, expectedRows: Int, maxBytes: Int, dataVersion: Int64, shouldStop: () -> Bool = { false }
    ) throws(SQLiteFailure) -> UnchangedRows? {
        var generator = SystemRandomNumberGenerator()
        let seeds = (generator.next() as UInt64, generator.next() as UInt64)
        let rows = UnchangedRows(tableColumns: columns.map(\.index), rows: expectedRows, seeds: seeds, dataVersion: dataVersion)
        let sql = "SELECT \(rowidName), \(columns.map { SQLIdentifier.quote($0.name) }.joined(separator: ", ")) FROM \(SQLIdentifier.quote(table)) NOT INDEXED WHERE \(filter)"
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteFailure(connection)
        }
        defer { sqlite3_finalize(statement) }
        // Inserted a block at a time: the block's slots are loaded together, so that
        // their cache misses overlap.
        var block: [(hash: (UInt64, UInt64), rowid: Int64)] = []
        block.reserveCapacity(64)
        var hashed = 0
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw SQLiteFailure(connection) }
            hashed += 1
            if hashed & 1023 == 0, shouldStop() { throw SQLiteFailure(code: SQLITE_INTERRUPT, description: "interrupted") }
            // Room for the rows so far and a block more, or a table twice the size.
            if (hashed + 64) * 4 > rows.capacity * 3 {
                guard rows.bytes * 2 <= maxBytes else { return nil }
                rows.grow()
            }
            var hasher = RowHasher(seeds: seeds)
            for (offset, column) in columns.enumerated() {
                hasher.next(affinity: column.affinity)
                guard hasher.hashColumn(Int32(offset + 1), of: statement) else { throw SQLiteFailure(code: SQLITE_NOMEM, description: "out of memory") }
            }
            block.append((hasher.finish(), sqlite3_column_int64(statement, 0)))
            if block.count == 64 {
                rows.insert(block)
                block.removeAll(keepingCapacity: true)
            }
        }
        rows.insert(block)
        return rows
    }

    static func dataVersion(_ connection: OpaquePointer) throws(SQLiteFailure) -> Int64 {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(connection, "PRAGMA data_version", -1, &statement, nil) == SQLITE_OK, let statement else {
            throw SQLiteFailure(connection)
        }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { throw SQLiteFailure(connection) }
        return sqlite3_column_int64(statement, 0)
    }

    @inline(__always)
    private func home(_ hash: (UInt64, UInt64)) -> Int {
        Int(truncatingIfNeeded: hash.0.multipliedFullWidth(by: UInt64(capacity)).high)
    }

    /// Doubles the table (rowids sparse, or below 0, beyond what `max(rowid)` said).
    private func grow() {
        let old = slots
        let oldCapacity = capacity
        capacity *= 2
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(high: 0, low: 0, rowid: 0), count: capacity)
        count = 0
        for index in 0 ..< oldCapacity where old[index].high != 0 || old[index].low != 0 {
            insertSlot(old[index])
        }
        old.deallocate()
    }

    private func insertSlot(_ slot: Slot) {
        var index = home((slot.high, slot.low))
        while slots[index].high != 0 || slots[index].low != 0 {
            index += 1
            if index == capacity { index = 0 }
        }
        slots[index] = slot
        count += 1
    }

    private func insert(_ block: [(hash: (UInt64, UInt64), rowid: Int64)]) {
        var touched: UInt64 = 0
        for entry in block { touched &+= slots[home(entry.hash)].high }
        withExtendedLifetime(touched) {}
        for entry in block { insert(entry.hash, rowid: entry.rowid) }
    }

    private func insert(_ hash: (UInt64, UInt64), rowid: Int64) {
        var index = home(hash)
        while true {
            let slot = slots[index]
            if slot.high == 0 && slot.low == 0 {
                slots[index] = Slot(high: hash.0, low: hash.1, rowid: rowid)
                count += 1
                return
            }
            if slot.high == hash.0 && slot.low == hash.1 {
                slots[index].rowid = Self.ambiguous
                return
            }
            index += 1
            if index == capacity { index = 0 }
        }
    }

    /// The rowid of the row whose content hashes as `hash`, if exactly one does.
    @inline(__always)
    func rowid(of hash: (UInt64, UInt64)) -> Int64? {
        var index = home(hash)
        while true {
            let slot = slots[index]
            if slot.high == hash.0 && slot.low == hash.1 { return slot.rowid == Self.ambiguous ? nil : slot.rowid }
            if slot.high == 0 && slot.low == 0 { return nil }
            index += 1
            if index == capacity { index = 0 }
        }
    }
}

/// A SQLite error of the scan, with its message.
struct SQLiteFailure: Error, CustomStringConvertible {
    let code: Int32
    let description: String

    init(_ connection: OpaquePointer) {
        code = sqlite3_extended_errcode(connection)
        description = String(cString: sqlite3_errmsg(connection))
    }

    init(code: Int32, description: String) {
        self.code = code
        self.description = description
    }
}

/// `UnchangedRows.build` on a read-only connection and a thread of its own, so that the
/// run's writing thread goes on with its records while the table is scanned, and the
/// reading thread is not held up by a writer that stopped to scan.
///
/// The second connection reads what the run's transaction began with: no other
/// connection can commit while the run holds its write lock, and the run's own changes
/// are not on disk (a page cache that spills holds the EXCLUSIVE lock, which this
/// connection cannot share: the scan then fails at once, and the run scans on its own
/// connection). The rows the run changes meanwhile are in `TouchedRows`, which
/// `ImportRun.passUnchanged` checks. The scan ends before any commit (`finish`).
final class UnchangedRowsScan: @unchecked Sendable {
    private let lock = NSLock()
    private let connection: OpaquePointer
    private var outcome: Result<UnchangedRows?, SQLiteFailure>?
    private var closed = false
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)

    /// Whether `finish(interrupt: true)` was called: the scan checks it between rows, as
    /// `sqlite3_interrupt` before its first step would be forgotten.
    var shouldStop: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopping
    }

    /// Opens `path` read-only, through the VFS `writer` uses; nil when it cannot be.
    init?(path: String, like writer: OpaquePointer) {
        var vfs: UnsafeMutablePointer<sqlite3_vfs>?
        sqlite3_file_control(writer, "main", SQLITE_FCNTL_VFS_POINTER, &vfs)
        var connection: OpaquePointer?
        // One thread uses it (`sqlite3_interrupt` needs no mutex): no mutex per call.
        guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, vfs?.pointee.zName) == SQLITE_OK, let connection else {
            sqlite3_close(connection)
            return nil
        }
        self.connection = connection
        // A lock it cannot have now is a reason to stop, not to wait.
        sqlite3_busy_timeout(connection, 0)
        sqlite3_exec(connection, "PRAGMA cache_size = -2048", nil, nil, nil)
    }

    func start(_ build: @escaping @Sendable (OpaquePointer, _ shouldStop: () -> Bool) throws(SQLiteFailure) -> UnchangedRows?) {
        let thread = Thread { [self] in
            let result: Result<UnchangedRows?, SQLiteFailure>
            do throws(SQLiteFailure) {
                result = .success(try build(connection) { shouldStop })
            } catch {
                result = .failure(error)
            }
            lock.lock()
            outcome = result
            lock.unlock()
            done.signal()
        }
        thread.name = "sqlimport-scan"
        thread.start()
    }

    /// The scan's outcome once it has finished; nil while it runs.
    var finished: Result<UnchangedRows?, SQLiteFailure>? {
        lock.lock()
        defer { lock.unlock() }
        return outcome
    }

    /// Waits for the scan (stopping it first when `interrupt`), closes the connection,
    /// and returns the outcome.
    @discardableResult
    func finish(interrupt: Bool) -> Result<UnchangedRows?, SQLiteFailure> {
        lock.lock()
        let open = !closed
        closed = true
        if interrupt { stopping = true }
        lock.unlock()
        if open {
            if interrupt { sqlite3_interrupt(connection) }
            done.wait()
            sqlite3_close(connection)
        }
        return finished!
    }
}

/// A 128-bit hash of a row's values, each with its type (`UnchangedRows`): two lanes of
/// multiply-and-fold mixing (as in wyhash) over 8-byte words, each seeded at random.
struct RowHasher: BoundValueSink {
    private var first: UInt64
    private var second: UInt64
    /// The affinity of the column being hashed: a REAL column stores an integer as a real
    /// (`StatementBinder` binds only integers a Double holds exactly there), a TEXT
    /// column as its digits.
    var affinity = ColumnAffinity.blob

    private static let firstMultiplier: UInt64 = 0xa076_1d64_78bd_642f
    private static let secondMultiplier: UInt64 = 0xe703_7ed1_a0b4_28db

    init(seeds: (UInt64, UInt64)) {
        first = seeds.0
        second = seeds.1
    }

    @inline(__always)
    private mutating func mix(_ word: UInt64) {
        let a = (first ^ word).multipliedFullWidth(by: Self.firstMultiplier)
        first = a.high ^ a.low
        let b = (second ^ word ^ 0x8ebc_6af0_9c88_c6e3).multipliedFullWidth(by: Self.secondMultiplier)
        second = b.high ^ b.low
    }

    /// A value's type and length come first, so that no two sequences of values give the
    /// same words.
    @inline(__always)
    private mutating func begin(_ type: UInt64, length: Int) { mix(type << 56 | UInt64(truncatingIfNeeded: length)) }

    @inline(__always)
    private mutating func mixBytes(_ start: UnsafeRawPointer, count: Int) {
        var offset = 0
        while offset + 8 <= count {
            mix(UInt64(littleEndian: start.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            offset += 8
        }
        if offset < count {
            var tail: UInt64 = 0
            withUnsafeMutableBytes(of: &tail) { $0.baseAddress!.copyMemory(from: start + offset, byteCount: count - offset) }
            mix(UInt64(littleEndian: tail))
        }
    }

    @inline(__always) mutating func next(affinity: ColumnAffinity) { self.affinity = affinity }

    mutating func null() { begin(0, length: 0) }

    mutating func integer(_ value: Int64) {
        if affinity == .real { return real(Double(value)) }
        if affinity == .text {
            // A TEXT column stores an integer as its decimal digits, as SQLite spells it.
            return NumberText.withDecimalDigits(of: value) { digits in
                text(digits.baseAddress!.assumingMemoryBound(to: UInt8.self), count: digits.count, stable: false)
            }
        }
        begin(1, length: 8)
        mix(UInt64(bitPattern: value))
    }

    mutating func real(_ value: Double) {
        begin(2, length: 8)
        mix(value.bitPattern)
    }

    mutating func text(_ start: UnsafePointer<UInt8>, count: Int, stable: Bool) {
        begin(3, length: count)
        mixBytes(start, count: count)
    }

    mutating func blob(_ bytes: UnsafeRawBufferPointer) {
        begin(4, length: bytes.count)
        if let base = bytes.baseAddress { mixBytes(base, count: bytes.count) }
    }

    /// Hashes column `index` of the statement's current row, as stored; false when SQLite
    /// could not give its bytes (out of memory).
    mutating func hashColumn(_ index: Int32, of statement: OpaquePointer) -> Bool {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER:
            integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT:
            real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let start = sqlite3_column_text(statement, index)
            let count = Int(sqlite3_column_bytes(statement, index))
            guard let start else {
                guard count == 0 else { return false }
                begin(3, length: 0)
                return true
            }
            text(start, count: count, stable: true)
        case SQLITE_BLOB:
            let start = sqlite3_column_blob(statement, index)
            let count = Int(sqlite3_column_bytes(statement, index))
            if start == nil && count > 0 { return false }
            blob(UnsafeRawBufferPointer(start: start, count: count))
        default:
            null()
        }
        return true
    }

    /// The hash; never (0, 0), which marks an empty slot.
    func finish() -> (UInt64, UInt64) {
        // A last round, so that the final words reach every bit.
        var copy = self
        copy.mix(0x9e37_79b9_7f4a_7c15)
        return copy.first == 0 && copy.second == 0 ? (1, 0) : (copy.first, copy.second)
    }
}
