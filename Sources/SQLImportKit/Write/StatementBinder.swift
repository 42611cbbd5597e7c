import GRDBSQLite

/// Binds cells straight to a prepared statement with `sqlite3_bind_*`: no `DatabaseValue`,
/// no String, no allocation per value. Text is bound in place (`SQLITE_STATIC`) from the
/// batch's byte store, which outlives the step. A BLOB marker (see `BlobMarker`) binds as
/// bytes into a column that holds BLOBs; CSV number text binds into a REAL column as its
/// correctly rounded Double, and into an `ANY` or untyped column as the type it looks
/// like (`TypeTracker.classify`: integer, real, or text when it has a leading zero), so
/// that CSV and JSON inputs of the same data store the same values.
enum StatementBinder {
    /// Why a value was not bound.
    enum Refusal: Error {
        case bigIntegerInNumericColumn
        /// `0959` into an INTEGER, REAL or NUMERIC column, which would store 959.
        case leadingZeroNumber
        /// `1e400` or `1e-400` (as text) into such a column, which would store infinity
        /// or zero.
        case unrepresentableNumber
        /// An integer a Double cannot hold (past 2^53, also spelled `9007199254740993.0`)
        /// into a REAL column, which would store a neighbour.
        case inexactReal
        /// A number kept with its exact digits (a `Decimal` of the Encodable API) into a
        /// column that would round it.
        case exactDecimal
        /// A value past the sample that the sample would have typed wider than the
        /// INTEGER or REAL this run inferred for a new column (`" 3"`, `"2"`, `1.5`):
        /// SQLite would make it the column's number.
        case notTheInferredType
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bytes.
    static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    /// Binds `cell` to parameter `index` of `statement`.
    /// - Parameter anyColumnHoldsBlobs: true for a table that is not STRICT, whose every
    ///   column may hold a BLOB: a JSON marker (`{"$base64":...}`, what export writes for
    ///   a BLOB whatever the column) binds as bytes into any column of it.
    @inline(__always)
    static func bind(
        _ cell: Cell, affinity: ColumnAffinity, to statement: OpaquePointer, at index: Int32, bytes: UnsafePointer<UInt8>,
        anyColumnHoldsBlobs: Bool = false
    ) throws(Refusal) {
        var sink = StatementParameter(statement: statement, index: index)
        try bind(cell, affinity: affinity, into: &sink, bytes: bytes, anyColumnHoldsBlobs: anyColumnHoldsBlobs)
    }

    /// Gives `sink` the value that `cell` binds as: the one place that decides it, for
    /// statements and for the content hashes of `UnchangedRows` alike.
    @inline(__always)
    static func bind<Sink: BoundValueSink>(
        _ cell: Cell, affinity: ColumnAffinity, into sink: inout Sink, bytes: UnsafePointer<UInt8>, anyColumnHoldsBlobs: Bool = false
    ) throws(Refusal) {
        switch cell.kind {
        case .absent, .null:
            sink.null()
        case .integer:
            if affinity == .real, !NumberText.isExactDouble(cell.payload) { throw .inexactReal }
            sink.integer(cell.payload)
        case .real:
            if affinity == .text, let text = NumberText.textWhereSQLiteWouldRound(cell.doubleValue) {
                // SQLite would turn the REAL into text with 15 significant digits
                // (0.30000000000000004 → "0.3"): bind the shortest text that reads back
                // as the same double. Where 15 digits are exact, SQLite's own spelling.
                var text = text
                text.withUTF8 { sink.text($0.baseAddress!, count: $0.count, stable: false) }
                return
            }
            sink.real(cell.doubleValue)
        case .text, .json:
            if cell.kind == .json, affinity == .blob || anyColumnHoldsBlobs, bindBlob(cell, into: &sink, bytes: bytes, BlobMarker.decodeJSON) { return }
            if cell.kind == .text, affinity.convertsNumbers {
                // A JSON string that looks like a number: the column stores the number.
                if isLeadingZeroNumber(cell, bytes) { throw .leadingZeroNumber }
                if try bindNumber(cell, affinity: affinity, into: &sink, bytes: bytes) { return }
            }
            bindText(cell, into: &sink, bytes: bytes)
        case .numberAsText:
            if affinity != .text && affinity != .blob {
                switch NumberText.affinityNumber(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))) {
                case .bigInteger: throw .bigIntegerInNumericColumn
                case .unrepresentable: throw .unrepresentableNumber
                default: throw .exactDecimal
                }
            }
            bindText(cell, into: &sink, bytes: bytes)
        case .untypedText:
            if affinity == .blob, bindBlob(cell, into: &sink, bytes: bytes, BlobMarker.decodeText) { return }
            let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
            if affinity == .blob {
                // No affinity: the value gets the type it looks like, as inference types it.
                switch NumberText.typelessNumber(text) {
                case .integer(let value): sink.integer(value)
                case .real(let value): sink.real(value)
                default: bindText(cell, into: &sink, bytes: bytes)
                }
                return
            }
            if affinity.convertsNumbers {
                if NumberText.isLeadingZeroNumber(text) { throw .leadingZeroNumber }
                if try bindNumber(cell, affinity: affinity, into: &sink, bytes: bytes) { return }
            }
            // Other text is bound as text; the column's affinity (or STRICT type) applies.
            bindText(cell, into: &sink, bytes: bytes)
        }
    }

    @inline(__always)
    private static func bindText<Sink: BoundValueSink>(_ cell: Cell, into sink: inout Sink, bytes: UnsafePointer<UInt8>) {
        sink.text(bytes + Int(cell.payload), count: Int(cell.length), stable: true)
    }

    /// Binds the bytes of a BLOB marker (see `BlobMarker`); false when the cell is no marker.
    private static func bindBlob<Sink: BoundValueSink>(
        _ cell: Cell, into sink: inout Sink, bytes: UnsafePointer<UInt8>, _ decode: (UnsafeRawBufferPointer) -> [UInt8]?
    ) -> Bool {
        guard let blob = decode(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))) else { return false }
        blob.withUnsafeBytes { sink.blob($0) }
        return true
    }

    /// Binds text that a column with INTEGER, REAL or NUMERIC affinity would store as a
    /// number, as that number, and returns true; false for other text. Refuses what the
    /// column would store otherwise than written: an integer past Int64 (an inexact
    /// REAL), a real literal past a Double's range (infinity or zero), an integer a REAL
    /// column would round.
    @inline(__always)
    private static func bindNumber<Sink: BoundValueSink>(
        _ cell: Cell, affinity: ColumnAffinity, into sink: inout Sink, bytes: UnsafePointer<UInt8>
    ) throws(Refusal) -> Bool {
        switch NumberText.affinityNumber(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))) {
        case .notANumber:
            return false
        case .bigInteger:
            throw .bigIntegerInNumericColumn
        case .unrepresentable:
            throw .unrepresentableNumber
        case .integer(let value):
            if affinity == .real, !NumberText.isExactDouble(value) { throw .inexactReal }
            sink.integer(value)
            return true
        case .real(let value):
            // SQLite's own text-to-REAL conversion is not correctly rounded for every
            // input (3.40: about 1 in 200 random doubles is off by one ulp).
            sink.real(value)
            return true
        }
    }

    private static func isLeadingZeroNumber(_ cell: Cell, _ bytes: UnsafePointer<UInt8>) -> Bool {
        NumberText.isLeadingZeroNumber(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length)))
    }
}

/// Where `StatementBinder` puts the value a cell binds as: a statement's parameter
/// (`StatementParameter`), or a content hash (`RowHasher`).
protocol BoundValueSink {
    /// Called before each value of a row: the value is for a column of `affinity`.
    mutating func next(affinity: ColumnAffinity)
    mutating func null()
    mutating func integer(_ value: Int64)
    mutating func real(_ value: Double)
    /// UTF-8 text; `stable` when the bytes outlive the statement's step (the batch's
    /// byte store), so that SQLite need not copy them.
    mutating func text(_ start: UnsafePointer<UInt8>, count: Int, stable: Bool)
    mutating func blob(_ bytes: UnsafeRawBufferPointer)
}

/// Parameter `index` of a prepared statement.
struct StatementParameter: BoundValueSink {
    let statement: OpaquePointer
    /// The parameter; `next` moves to the following one.
    var index: Int32

    @inline(__always) mutating func next(affinity: ColumnAffinity) { index += 1 }

    @inline(__always) func null() { sqlite3_bind_null(statement, index) }
    @inline(__always) func integer(_ value: Int64) { sqlite3_bind_int64(statement, index, value) }
    @inline(__always) func real(_ value: Double) { sqlite3_bind_double(statement, index, value) }

    @inline(__always)
    func text(_ start: UnsafePointer<UInt8>, count: Int, stable: Bool) {
        if count == 0 {
            sqlite3_bind_text(statement, index, "", 0, StatementBinder.transient)
        } else {
            let characters = UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
            sqlite3_bind_text(statement, index, characters, Int32(count), stable ? nil : StatementBinder.transient)
        }
    }

    @inline(__always)
    func blob(_ bytes: UnsafeRawBufferPointer) {
        if bytes.isEmpty {
            // A NULL pointer would bind NULL: a zero-length BLOB needs zeroblob.
            sqlite3_bind_zeroblob(statement, index, 0)
        } else {
            sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), StatementBinder.transient)
        }
    }
}
