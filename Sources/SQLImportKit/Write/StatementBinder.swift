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
    }

    /// SQLite's `SQLITE_TRANSIENT`: copy the bytes.
    static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    @inline(__always)
    static func bind(
        _ cell: Cell, affinity: ColumnAffinity, to statement: OpaquePointer, at index: Int32, bytes: UnsafePointer<UInt8>
    ) throws(Refusal) {
        switch cell.kind {
        case .absent, .null:
            sqlite3_bind_null(statement, index)
        case .integer:
            sqlite3_bind_int64(statement, index, cell.payload)
        case .real:
            sqlite3_bind_double(statement, index, cell.doubleValue)
        case .text, .json:
            if cell.kind == .json, affinity == .blob, bindBlob(cell, to: statement, at: index, bytes: bytes, BlobMarker.decodeJSON) { return }
            if affinity.roundsBigIntegers, cell.kind == .text, isBigInteger(cell, bytes) { throw .bigIntegerInNumericColumn }
            if cell.kind == .text, affinity.convertsNumbers, isLeadingZeroNumber(cell, bytes) { throw .leadingZeroNumber }
            bindText(cell, to: statement, at: index, bytes: bytes)
        case .numberAsText:
            if affinity != .text && affinity != .blob { throw .bigIntegerInNumericColumn }
            bindText(cell, to: statement, at: index, bytes: bytes)
        case .untypedText:
            if affinity == .blob, bindBlob(cell, to: statement, at: index, bytes: bytes, BlobMarker.decodeText) { return }
            let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
            if affinity == .blob {
                // No affinity: the value gets the type it looks like, as inference types it.
                switch TypeTracker.classify(text) {
                case .integer:
                    if case .value(let value) = NumberText.parseInteger(text) {
                        sqlite3_bind_int64(statement, index, value)
                        return
                    }
                case .real:
                    if let value = NumberText.parseDouble(text) {
                        sqlite3_bind_double(statement, index, value)
                        return
                    }
                default:
                    break
                }
                return bindText(cell, to: statement, at: index, bytes: bytes)
            }
            if affinity.convertsNumbers, NumberText.isLeadingZeroNumber(text) { throw .leadingZeroNumber }
            if affinity.roundsBigIntegers {
                switch NumberText.parseInteger(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))) {
                case .value(let value):
                    sqlite3_bind_int64(statement, index, value)
                    return
                case .overflow:
                    throw .bigIntegerInNumericColumn
                case .notAnInteger:
                    break
                }
            }
            if affinity == .real, let value = exactDouble(cell, bytes) {
                // SQLite's own text-to-REAL conversion is not correctly rounded for
                // every input (3.40: about 1 in 200 random doubles is off by one ulp).
                sqlite3_bind_double(statement, index, value)
                return
            }
            // Other text is bound as text; the column's affinity (or STRICT type) applies.
            bindText(cell, to: statement, at: index, bytes: bytes)
        }
    }

    @inline(__always)
    private static func bindText(_ cell: Cell, to statement: OpaquePointer, at index: Int32, bytes: UnsafePointer<UInt8>) {
        if cell.length == 0 {
            sqlite3_bind_text(statement, index, "", 0, transient)
        } else {
            let start = UnsafeRawPointer(bytes + Int(cell.payload)).assumingMemoryBound(to: CChar.self)
            sqlite3_bind_text(statement, index, start, Int32(cell.length), nil)
        }
    }

    /// Binds the bytes of a BLOB marker (see `BlobMarker`); false when the cell is no marker.
    private static func bindBlob(
        _ cell: Cell, to statement: OpaquePointer, at index: Int32, bytes: UnsafePointer<UInt8>,
        _ decode: (UnsafeRawBufferPointer) -> [UInt8]?
    ) -> Bool {
        guard let blob = decode(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))) else { return false }
        if blob.isEmpty {
            // A NULL pointer would bind NULL: a zero-length BLOB needs zeroblob.
            sqlite3_bind_zeroblob(statement, index, 0)
        } else {
            _ = blob.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32($0.count), transient) }
        }
        return true
    }

    /// The correctly rounded Double of a cell of JSON number syntax, else nil.
    private static func exactDouble(_ cell: Cell, _ bytes: UnsafePointer<UInt8>) -> Double? {
        let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
        return NumberText.isNumberSyntax(text) ? NumberText.parseDouble(text) : nil
    }

    private static func isLeadingZeroNumber(_ cell: Cell, _ bytes: UnsafePointer<UInt8>) -> Bool {
        NumberText.isLeadingZeroNumber(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length)))
    }

    private static func isBigInteger(_ cell: Cell, _ bytes: UnsafePointer<UInt8>) -> Bool {
        NumberText.parseInteger(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))) == .overflow
    }
}
