/// What a cell holds. Readers decide the kind from the input's own syntax; the writer
/// maps kinds onto SQLite storage classes (see `StatementBinder`).
package enum CellKind: UInt8, Sendable, BitwiseCopyable {
    /// The record has no such field: the column is left out of the statement.
    case absent
    case null
    /// `payload` is the value. JSON integers that fit Int64, `true`/`false` as 1/0
    /// (`length` 1 marks those: `Cell.isBoolean`).
    case integer
    /// `payload` is the Double's bit pattern.
    case real
    /// UTF-8 text at `payload ..< payload + length` in the batch's byte store.
    case text
    /// CSV/TSV text, typed by the target column's declared type when it is bound.
    case untypedText
    /// Compact JSON text of a nested object or array.
    case json
    /// A JSON number that neither Int64 nor Double holds exactly (e.g. 2^64 - 1),
    /// kept as its exact text.
    case numberAsText
}

/// One field of one record. 16 bytes, stored inline in `RecordBatch.cells`.
package struct Cell: Sendable, BitwiseCopyable {
    package var payload: Int64
    package var length: UInt32
    package var kind: CellKind

    @inline(__always) init(kind: CellKind, payload: Int64 = 0, length: UInt32 = 0) {
        self.payload = payload
        self.length = length
        self.kind = kind
    }

    static let absent = Cell(kind: .absent)
    static let null = Cell(kind: .null)

    @inline(__always) static func integer(_ value: Int64) -> Cell { Cell(kind: .integer, payload: value) }
    /// A JSON `true` or `false`: the integer 1 or 0 (SQLite has no booleans), marked so
    /// that a PostgreSQL `json`/`jsonb` column still gets `true` or `false`.
    @inline(__always) static func boolean(_ value: Bool) -> Cell { Cell(kind: .integer, payload: value ? 1 : 0, length: 1) }
    /// True for a cell made by `boolean(_:)`.
    var isBoolean: Bool { kind == .integer && length == 1 }
    @inline(__always) static func real(_ value: Double) -> Cell {
        Cell(kind: .real, payload: Int64(bitPattern: value.bitPattern))
    }

    package var doubleValue: Double { Double(bitPattern: UInt64(bitPattern: payload)) }
    package var isTextual: Bool { kind == .text || kind == .untypedText || kind == .json || kind == .numberAsText }
}
