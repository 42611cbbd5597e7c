/// A reusable block of parsed records, handed from the reading thread to the writing one.
///
/// Records are stored densely: row `r` owns `cells[rowStarts[r] ..< rowEnd(r)]`, where
/// the cell at offset `c` is the field of input column `c` (columns are numbered in the
/// order the reader first met them). A row may be shorter than the current column count:
/// the missing tail is `absent`. Text lives in one byte store. Nothing is allocated per
/// row once the arrays have grown to their working size.
package final class RecordBatch: @unchecked Sendable {
    package let cells = GrowableBuffer<Cell>(capacity: 1 << 16)
    package let rowStarts = GrowableBuffer<Int>(capacity: 4096)
    /// Cells of each row, so that rows can be reordered without moving their cells.
    let rowLengths = GrowableBuffer<UInt32>(capacity: 4096)
    package let lines = GrowableBuffer<Int>(capacity: 4096)
    package let byteOffsets = GrowableBuffer<Int64>(capacity: 4096)
    /// Decoded text of every textual cell.
    package let bytes = ByteStore(capacity: 1 << 20)
    /// Input columns first seen in this batch, in column-number order.
    package internal(set) var newColumns: [String] = []
    /// Index of the input this batch came from, in the run's input list.
    package internal(set) var inputIndex = 0
    /// How many numbers were kept as text because no SQLite number holds them exactly.
    package internal(set) var numbersKeptAsText = 0
    /// The text of JSON numbers whose double does not give their decimal back
    /// (`NumberText.keepsDecimal`: more digits than it keeps, or a subnormal or zero
    /// double of a number that is not zero), by record and input column, with the double:
    /// a PostgreSQL `numeric` column stores the digits as written (its export's
    /// `12345678901234.5678` came back `12345678901234.568`). Rare, so a dictionary.
    private(set) var exactNumbers: [ExactNumberKey: (bits: Int64, text: [UInt8])] = [:]
    private var pendingExactNumbers: [(column: Int, bits: Int64, text: [UInt8])] = []

    struct ExactNumberKey: Hashable {
        var byteOffset: Int64
        var column: Int
    }

    /// Raw bytes of each record (only when rejects are kept), `rawRanges[r]` into `rawBytes`.
    package internal(set) var rawBytes: [UInt8] = []
    package internal(set) var rawRanges: [Range<Int>] = []
    var keepRawRecords = false
    /// Records the reader set aside (`ReaderOptions.skipBadRecords`).
    package internal(set) var rejects: [RejectedRecord] = []
    /// Decompressed bytes of input consumed up to the end of this batch.
    package internal(set) var inputBytesConsumed: Int64 = 0
    /// Bytes of the input file read from disk by the end of this batch (compressed bytes
    /// for a compressed input; the reader may have read ahead).
    package internal(set) var fileBytesConsumed: Int64 = 0
    /// True when this batch ends its input.
    package internal(set) var endsInput = false
    /// The line of a CSV/TSV input's last record when it has no line end (a file cut
    /// short ends that way, its last field cut too), for the run's warning.
    package internal(set) var unterminatedLastLine: Int?
    /// True when the run's record count reaches a multiple of `--commit-every` at the end
    /// of this batch: the writer commits after it.
    package internal(set) var endsCommitInterval = false
    /// True for a batch of the reader's pool of sorted runs (`KeyOrder`).
    var isRun = false
    /// True when the rows were reordered by key (`KeyOrder`): lines and byte offsets are
    /// then not ascending.
    package internal(set) var isReordered = false

    /// Where the row being built starts in `cells` and `bytes` (behind a pointer, like
    /// `GrowableBuffer`'s state, to keep per-field writes free of exclusivity checks).
    private let cursor: UnsafeMutablePointer<(cells: Int, bytes: Int)> = {
        let pointer = UnsafeMutablePointer<(cells: Int, bytes: Int)>.allocate(capacity: 1)
        pointer.initialize(to: (0, 0))
        return pointer
    }()

    deinit { cursor.deallocate() }

    package init() {}

    package var rowCount: Int { rowStarts.count }

    /// Records read into this batch: rows, and records set aside by the reader.
    package var recordCount: Int { rowStarts.count + rejects.count }

    @inline(__always) package func rowEnd(_ row: Int) -> Int {
        rowStarts[row] + Int(rowLengths[row])
    }

    /// The field of input column `column` in `row`, or `absent`.
    @inline(__always) package func cell(row: Int, column: Int) -> Cell {
        let index = rowStarts[row] + column
        return index < rowEnd(row) ? cells[index] : .absent
    }

    package func position(row: Int, inputName: String) -> SourcePosition {
        SourcePosition(input: inputName, line: lines[row], byteOffset: byteOffsets[row])
    }

    package func text(_ cell: Cell) -> String {
        bytes.string(Int(cell.payload) ..< Int(cell.payload) + Int(cell.length))
    }

    /// A cell as messages show it: `null`, a number, or text in quotes (cut at 80).
    func describe(_ cell: Cell) -> String {
        switch cell.kind {
        case .absent, .null: return "null"
        case .integer: return String(cell.payload)
        case .real: return NumberText.shortest(cell.doubleValue)
        case .text, .untypedText, .json, .numberAsText:
            var text = self.text(cell)
            if text.count > 80 { text = String(text.prefix(77)) + "..." }
            return cell.kind == .numberAsText ? text : "\"\(text)\""
        }
    }

    /// Calls `body` with the bytes of a textual cell.
    package func withText<Result>(_ cell: Cell, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        body(UnsafeRawBufferPointer(start: bytes.base + Int(cell.payload), count: Int(cell.length)))
    }

    package func rawRecord(row: Int) -> String? {
        guard row < rawRanges.count else { return nil }
        return String(decoding: rawBytes[rawRanges[row]], as: UTF8.self)
    }

    /// The raw bytes of `row`'s record, when the batch keeps them.
    func rawBytes(row: Int) -> ArraySlice<UInt8> {
        row < rawRanges.count ? rawBytes[rawRanges[row]] : []
    }

    func reset(inputIndex: Int) {
        cells.removeAll()
        rowStarts.removeAll()
        rowLengths.removeAll()
        lines.removeAll()
        byteOffsets.removeAll()
        bytes.removeAll()
        newColumns.removeAll(keepingCapacity: true)
        rawBytes.removeAll(keepingCapacity: true)
        rawRanges.removeAll(keepingCapacity: true)
        numbersKeptAsText = 0
        if !exactNumbers.isEmpty { exactNumbers.removeAll() }
        pendingExactNumbers.removeAll()
        rejects.removeAll()
        endsInput = false
        endsCommitInterval = false
        isReordered = false
        unterminatedLastLine = nil
        self.inputIndex = inputIndex
    }

    /// Puts row `order[i]` at position `i` (`order` is a permutation of the rows). Cells
    /// and text stay where they are: only the rows' bookkeeping moves.
    func reorder(_ order: [Int32]) {
        precondition(order.count == rowCount)
        let starts = order.map { rowStarts[Int($0)] }
        let lengths = order.map { rowLengths[Int($0)] }
        let newLines = order.map { lines[Int($0)] }
        let newOffsets = order.map { byteOffsets[Int($0)] }
        for index in 0 ..< order.count {
            rowStarts[index] = starts[index]
            rowLengths[index] = lengths[index]
            lines[index] = newLines[index]
            byteOffsets[index] = newOffsets[index]
        }
        if rawRanges.count == order.count { rawRanges = order.map { rawRanges[Int($0)] } }
        isReordered = true
    }

    /// Makes this batch a copy of `source` with its rows in `order` (nil: as they are),
    /// each row's cells and text laid out one after the other, so that the writer reads
    /// memory in order (a reordered row that stayed where it was read costs cache misses
    /// on every field).
    func copyRows(from source: RecordBatch, order: [Int32]?) {
        reset(inputIndex: source.inputIndex)
        cells.reserve(source.cells.count)
        bytes.reserve(source.bytes.count)
        let sourceBytes = source.bytes.base
        let rows = source.rowCount
        for index in 0 ..< rows {
            let row = order.map { Int($0[index]) } ?? index
            let start = source.rowStarts[row]
            let length = Int(source.rowLengths[row])
            rowStarts.append(cells.count)
            rowLengths.append(UInt32(length))
            for offset in start ..< start + length {
                var cell = source.cells[offset]
                if cell.isTextual {
                    let moved = bytes.count
                    bytes.append(sourceBytes + Int(cell.payload), count: Int(cell.length))
                    cell.payload = Int64(moved)
                }
                cells.append(cell)
            }
            lines.append(source.lines[row])
            byteOffsets.append(source.byteOffsets[row])
            if row < source.rawRanges.count {
                let begin = rawBytes.count
                rawBytes.append(contentsOf: source.rawBytes[source.rawRanges[row]])
                rawRanges.append(begin ..< rawBytes.count)
            }
        }
        newColumns = source.newColumns
        numbersKeptAsText = source.numbersKeptAsText
        exactNumbers = source.exactNumbers
        rejects = source.rejects
        inputBytesConsumed = source.inputBytesConsumed
        endsInput = source.endsInput
        endsCommitInterval = source.endsCommitInterval
        unterminatedLastLine = source.unterminatedLastLine
        keepRawRecords = source.keepRawRecords
        isReordered = order != nil
    }

    /// Sets input column `column` to `cell` in every row that lacks it (the cell is
    /// `absent`, or the row ends before it); returns how many rows it set. Rows that end
    /// before the column are widened, which moves the cells (a rare path: a record that
    /// omits a key column with a default, `ImportRun.fillKeyDefaults`).
    @discardableResult
    func fillAbsent(column: Int, with cell: Cell) -> Int {
        guard lacks(column: column) else { return 0 }
        var widens = false
        for row in 0 ..< rowCount where Int(rowLengths[row]) <= column {
            widens = true
            break
        }
        if widens {
            let old = Array(UnsafeBufferPointer(start: cells.base, count: cells.count))
            cells.removeAll()
            for row in 0 ..< rowCount {
                let start = rowStarts[row]
                let length = Int(rowLengths[row])
                rowStarts[row] = cells.count
                for offset in start ..< start + length { cells.append(old[offset]) }
                for _ in length ..< max(length, column + 1) { cells.append(.absent) }
                rowLengths[row] = UInt32(max(length, column + 1))
            }
        }
        var filled = 0
        for row in 0 ..< rowCount where cells[rowStarts[row] + column].kind == .absent {
            cells[rowStarts[row] + column] = cell
            filled += 1
        }
        return filled
    }

    /// `fillAbsent` with text of `kind`, stored once in the batch, and only when a row
    /// lacks the column.
    @discardableResult
    func fillAbsent(column: Int, text: String, kind: CellKind) -> Int {
        guard lacks(column: column) else { return 0 }
        let start = bytes.count
        bytes.append(contentsOf: Array(text.utf8))
        return fillAbsent(column: column, with: Cell(kind: kind, payload: Int64(start), length: UInt32(bytes.count - start)))
    }

    /// Whether a row lacks input column `column` (absent, or the row ends before it).
    private func lacks(column: Int) -> Bool {
        (0 ..< rowCount).contains { Int(rowLengths[$0]) <= column || cells[rowStarts[$0] + column].kind == .absent }
    }

    /// Empties the batch and gives its memory back (a small batch once sorted runs
    /// have taken over, `BatchReader.recycle`).
    func releaseMemory() {
        reset(inputIndex: inputIndex)
        cells.releaseMemory()
        rowStarts.releaseMemory()
        lines.releaseMemory()
        rowLengths.releaseMemory()
        byteOffsets.releaseMemory()
        bytes.releaseMemory()
        rawBytes = []
        rawRanges = []
    }

    /// Memory the batch's records take, for `KeyOrder`'s budget.
    var memoryBytes: Int {
        bytes.count + cells.count * MemoryLayout<Cell>.stride + rowCount * 28 + rawBytes.count
    }

    /// Moves the rows whose byte offset is below `offset` to the front, each group in
    /// its order; returns how many there are.
    func partition(before offset: Int64) -> Int {
        let before = (0 ..< rowCount).filter { byteOffsets[$0] < offset }
        guard !before.isEmpty, before.count < rowCount, before.last != before.count - 1 else { return before.count }
        let after = (0 ..< rowCount).filter { byteOffsets[$0] >= offset }
        reorder((before + after).map(Int32.init))
        return before.count
    }

    // MARK: - Building rows (reader side)

    @inline(__always) func beginRow() {
        cursor.pointee = (cells.count, bytes.count)
    }

    /// Begins a row whose text was already decoded into `bytes` from `bytesStart` on.
    @inline(__always) func beginRow(bytesStart: Int) {
        cursor.pointee = (cells.count, bytesStart)
    }

    @inline(__always) func set(column: Int, _ cell: Cell) {
        let index = cursor.pointee.cells + column
        if index < cells.count {
            cells[index] = cell
        } else {
            cells.reserve(index + 1 - cells.count)
            while cells.count < index { cells.append(Cell.absent) }
            cells.append(cell)
        }
    }

    /// Keeps the row built since `beginRow()`.
    @inline(__always) func commitRow(line: Int, byteOffset: Int64) {
        rowStarts.append(cursor.pointee.cells)
        rowLengths.append(UInt32(cells.count - cursor.pointee.cells))
        lines.append(line)
        byteOffsets.append(byteOffset)
        if !pendingExactNumbers.isEmpty { keepExactNumbers(byteOffset: byteOffset) }
    }

    /// Drops a partly built row (the record needs more input, or was malformed).
    @inline(__always) func discardRow() {
        cells.truncate(to: cursor.pointee.cells)
        bytes.truncate(to: cursor.pointee.bytes)
        if !pendingExactNumbers.isEmpty { pendingExactNumbers.removeAll() }
    }

    /// Keeps the text of the number just read into `column` as a `.real` cell of
    /// `value` (`exactNumbers`).
    func noteExactNumber(column: Int, value: Double, text: UnsafeRawBufferPointer) {
        pendingExactNumbers.append((column, Int64(bitPattern: value.bitPattern), Array(text)))
    }

    /// Forgets the text kept for `column` of the row being built: a field given twice
    /// (`{"p":1.00000000000000001,"p":1}`) stores its last value, whose double an earlier
    /// text may share.
    @inline(__always) func forgetExactNumber(column: Int) {
        if !pendingExactNumbers.isEmpty { pendingExactNumbers.removeAll { $0.column == column } }
    }

    private func keepExactNumbers(byteOffset: Int64) {
        for number in pendingExactNumbers {
            exactNumbers[ExactNumberKey(byteOffset: byteOffset, column: number.column)] = (number.bits, number.text)
        }
        pendingExactNumbers.removeAll()
    }

    /// The digits as written of `cell`, row `row`'s `.real` of input column `column`,
    /// when a double does not keep them all (`exactNumbers`); nil for any other cell.
    package func exactNumber(row: Int, column: Int, cell: Cell) -> [UInt8]? {
        guard !exactNumbers.isEmpty, cell.kind == .real,
            let number = exactNumbers[ExactNumberKey(byteOffset: byteOffsets[row], column: column)], number.bits == cell.payload
        else { return nil }
        return number.text
    }

    /// Sets aside a record the reader could not read; `position` is where it starts.
    func reject(_ error: ReaderError, at position: SourcePosition, raw: UnsafeRawBufferPointer) {
        rejects.append(RejectedRecord(
            input: position.input, line: position.line, byteOffset: position.byteOffset, reason: error.description, raw: raw))
    }

    func appendRaw(_ record: UnsafeRawBufferPointer) {
        let start = rawBytes.count
        rawBytes.append(contentsOf: record)
        rawRanges.append(start ..< rawBytes.count)
    }
}
