/// A reusable block of parsed records, handed from the reading thread to the writing one.
///
/// Records are stored densely: row `r` owns `cells[rowStarts[r] ..< rowEnd(r)]`, where
/// the cell at offset `c` is the field of input column `c` (columns are numbered in the
/// order the reader first met them). A row may be shorter than the current column count:
/// the missing tail is `absent`. Text lives in one byte store. Nothing is allocated per
/// row once the arrays have grown to their working size.
public final class RecordBatch: @unchecked Sendable {
    public internal(set) var cells: [Cell] = []
    public internal(set) var rowStarts: [Int] = []
    public internal(set) var lines: [Int] = []
    public internal(set) var byteOffsets: [Int64] = []
    /// Decoded text of every textual cell.
    public internal(set) var bytes: [UInt8] = []
    /// Input columns first seen in this batch, in column-number order.
    public internal(set) var newColumns: [String] = []
    /// Index of the input this batch came from, in the run's input list.
    public internal(set) var inputIndex = 0
    /// How many numbers were kept as text because no SQLite number holds them exactly.
    public internal(set) var numbersKeptAsText = 0
    /// Raw bytes of each record (only when rejects are kept), `rawRanges[r]` into `rawBytes`.
    public internal(set) var rawBytes: [UInt8] = []
    public internal(set) var rawRanges: [Range<Int>] = []
    var keepRawRecords = false
    /// Records the reader set aside (`ReaderOptions.skipBadRecords`).
    public internal(set) var rejects: [RejectedRecord] = []
    /// Decompressed bytes of input consumed up to the end of this batch.
    public internal(set) var inputBytesConsumed: Int64 = 0
    /// True when this batch ends its input.
    public internal(set) var endsInput = false
    /// True when the run's record count reaches a multiple of `--commit-every` at the end
    /// of this batch: the writer commits after it.
    public internal(set) var endsCommitInterval = false

    private var currentRowStart = 0
    private var currentBytesStart = 0

    public init() {}

    public var rowCount: Int { rowStarts.count }

    /// Records read into this batch: rows, and records set aside by the reader.
    public var recordCount: Int { rowStarts.count + rejects.count }

    @inline(__always) public func rowEnd(_ row: Int) -> Int {
        row + 1 < rowStarts.count ? rowStarts[row + 1] : cells.count
    }

    /// The field of input column `column` in `row`, or `absent`.
    @inline(__always) public func cell(row: Int, column: Int) -> Cell {
        let index = rowStarts[row] + column
        return index < rowEnd(row) ? cells[index] : .absent
    }

    public func position(row: Int, inputName: String) -> SourcePosition {
        SourcePosition(input: inputName, line: lines[row], byteOffset: byteOffsets[row])
    }

    public func text(_ cell: Cell) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[Int(cell.payload) ..< Int(cell.payload) + Int(cell.length)]), as: UTF8.self)
        }
    }

    /// Calls `body` with the bytes of a textual cell.
    public func withText<Result>(_ cell: Cell, _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[Int(cell.payload) ..< Int(cell.payload) + Int(cell.length)])) }
    }

    public func rawRecord(row: Int) -> String? {
        guard row < rawRanges.count else { return nil }
        return String(decoding: rawBytes[rawRanges[row]], as: UTF8.self)
    }

    func reset(inputIndex: Int) {
        cells.removeAll(keepingCapacity: true)
        rowStarts.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
        byteOffsets.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        newColumns.removeAll(keepingCapacity: true)
        rawBytes.removeAll(keepingCapacity: true)
        rawRanges.removeAll(keepingCapacity: true)
        numbersKeptAsText = 0
        rejects.removeAll()
        endsInput = false
        endsCommitInterval = false
        self.inputIndex = inputIndex
    }

    // MARK: - Building rows (reader side)

    @inline(__always) func beginRow() {
        currentRowStart = cells.count
        currentBytesStart = bytes.count
    }

    @inline(__always) func set(column: Int, _ cell: Cell) {
        let index = currentRowStart + column
        if index < cells.count {
            cells[index] = cell
        } else {
            while cells.count < index { cells.append(.absent) }
            cells.append(cell)
        }
    }

    /// Keeps the row built since `beginRow()`.
    @inline(__always) func commitRow(line: Int, byteOffset: Int64) {
        rowStarts.append(currentRowStart)
        lines.append(line)
        byteOffsets.append(byteOffset)
    }

    /// Drops a partly built row (the record needs more input, or was malformed).
    @inline(__always) func discardRow() {
        cells.removeSubrange(currentRowStart...)
        bytes.removeSubrange(currentBytesStart...)
    }

    /// Sets aside a record the reader could not read; `position` is where it starts.
    func reject(_ error: ReaderError, at position: SourcePosition, raw: UnsafeRawBufferPointer) {
        rejects.append(RejectedRecord(
            input: position.input, line: position.line, byteOffset: position.byteOffset, reason: error.description,
            record: String(decoding: raw, as: UTF8.self)))
    }

    func appendRaw(_ record: UnsafeRawBufferPointer) {
        let start = rawBytes.count
        rawBytes.append(contentsOf: record)
        rawRanges.append(start ..< rawBytes.count)
    }
}
