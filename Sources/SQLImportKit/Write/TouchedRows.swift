/// The rows of a rowid table that the run has written, so that a record whose conflict
/// lands on such a row is known to repeat an earlier record's key (`duplicateKeys`).
///
/// SQLite decides the conflict, so keys compare exactly as the index compares them. A
/// row inserted by this run has a rowid above the table's largest rowid at the start
/// (`startMax`), whatever the input; a row that existed before is marked in a bitmap of
/// 4,096-rowid pages the first time the run touches it. Memory is an eighth of a byte per
/// rowid of the pages touched: 1M pre-existing rows take 128 KiB, whatever the input's
/// size. Hand-written because no library offers a sparse bitmap with an undo log, which
/// a statement that SQLite rolls back needs.
final class TouchedRows {
    /// `max(rowid)` when the run began (0 for an empty table).
    let startMax: Int64
    /// Word offset of each page in `words`, by page number, -1 for a page not touched;
    /// pages beyond `directory` (rowids above 2^34, or negative) are in `farPages`.
    private var directory: [Int32]
    private var farPages: [Int64: Int] = [:]
    private var words: [UInt64] = []
    /// Rowids marked since `beginStatement`, unmarked again by `undoStatement`.
    private var log: [Int64] = []

    static let wordsPerPage = 64

    init(startMax: Int64) {
        self.startMax = startMax
        directory = Array(repeating: -1, count: Int(min(max(startMax, 0), 1 << 34) >> 12) + 1)
    }

    /// Rowids above `startMax` that another connection inserted while a `--commit-every`
    /// run had committed and released the lock: rows of others, not of this run.
    private var foreign: [ClosedRange<Int64>] = []

    /// Records rows another connection inserted between two checkpoints.
    func insertedByOthers(_ range: ClosedRange<Int64>) { foreign.append(range) }

    /// Marks `rowid` as written by this run; returns whether it already was.
    func testAndSet(_ rowid: Int64) -> Bool {
        if rowid > startMax && !foreign.contains(where: { $0.contains(rowid) }) { return true }
        let (word, bit) = locate(rowid)
        if words[word] & bit != 0 { return true }
        words[word] |= bit
        log.append(rowid)
        return false
    }

    /// Whether `--delete-missing` must keep `rowid`: a row the run touched, or one
    /// inserted since the run began (by it, or by another connection between checkpoints).
    func protects(_ rowid: Int64) -> Bool {
        if rowid > startMax { return true }
        let page = rowid >> 12
        let index: Int
        if page >= 0 && page < directory.count {
            guard directory[Int(page)] >= 0 else { return false }
            index = Int(directory[Int(page)])
        } else if let known = farPages[page] {
            index = known
        } else {
            return false
        }
        let offset = Int(rowid & 4095)
        return words[index + (offset >> 6)] & (1 << UInt64(offset & 63)) != 0
    }

    /// Marks `rowid` (a row this run inserted with a rowid it supplied) without asking.
    func mark(_ rowid: Int64) {
        guard rowid <= startMax || foreign.contains(where: { $0.contains(rowid) }) else { return }
        _ = testAndSet(rowid)
    }

    func beginStatement() { log.removeAll(keepingCapacity: true) }

    /// Forgets what the statement marked: SQLite undid the statement.
    func undoStatement() {
        for rowid in log {
            let (word, bit) = locate(rowid)
            words[word] &= ~bit
        }
        log.removeAll(keepingCapacity: true)
    }

    private func locate(_ rowid: Int64) -> (word: Int, bit: UInt64) {
        let page = rowid >> 12
        let index: Int
        if page >= 0 && page < directory.count {
            if directory[Int(page)] < 0 {
                directory[Int(page)] = Int32(words.count)
                words.append(contentsOf: repeatElement(0, count: Self.wordsPerPage))
            }
            index = Int(directory[Int(page)])
        } else if let known = farPages[page] {
            index = known
        } else {
            index = words.count
            farPages[page] = index
            words.append(contentsOf: repeatElement(0, count: Self.wordsPerPage))
        }
        let offset = Int(rowid & 4095)
        return (index + (offset >> 6), 1 << UInt64(offset & 63))
    }
}
