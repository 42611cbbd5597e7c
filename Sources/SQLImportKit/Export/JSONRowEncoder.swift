import GRDBSQLite

/// JSON Lines (`{"id":1,"name":"a"}` per line) and JSON arrays (`[` rows `]`, one row
/// per line). Values keep their storage class:
///
/// | SQLite | JSON |
/// |---|---|
/// | INTEGER | integer, exactly |
/// | REAL | shortest round-tripping number (`0.1`, `1e+308`) |
/// | TEXT | string; `"`, `\` and control characters escaped (`\n`, `\u0000`) |
/// | BLOB | `{"$base64":"..."}` (see `BlobMarker`) |
/// | NULL | `null` |
struct JSONRowEncoder: RowEncoder {
    let columns: [String]
    let array: Bool
    /// `{"name":` for the first column, `,"name":` for the others.
    private(set) var keys: [[UInt8]] = []

    init(columns: [String], array: Bool) {
        self.columns = columns
        self.array = array
    }

    mutating func begin(into output: inout [UInt8]) throws(ExportError) {
        keys = []
        for (index, name) in columns.enumerated() {
            var key: [UInt8] = [index == 0 ? UInt8(ascii: "{") : UInt8(ascii: ",")]
            // Swift strings are valid UTF-8, so this cannot fail.
            _ = Array(name.utf8).withUnsafeBytes { Self.appendString($0, to: &key) }
            key.append(UInt8(ascii: ":"))
            keys.append(key)
        }
        if array { output.append(UInt8(ascii: "[")) }
    }

    mutating func encodeRow(_ statement: OpaquePointer, number: Int, into output: inout [UInt8]) throws(ExportError) {
        if array {
            if number > 1 { output.append(UInt8(ascii: ",")) }
            output.append(0x0A)
        }
        for column in 0 ..< Int32(keys.count) {
            output.append(contentsOf: keys[Int(column)])
            let type = sqlite3_column_type(statement, column)
            if ValueText.appendNumber(statement, column, type: type, to: &output) { continue }
            switch type {
            case SQLITE_TEXT:
                guard Self.appendString(ValueText.text(statement, column), to: &output) else {
                    throw .invalidUTF8(column: columns[Int(column)], row: number)
                }
            case SQLITE_BLOB:
                BlobMarker.appendJSON(ValueText.blob(statement, column), to: &output)
            default:
                output.append(contentsOf: Self.null)
            }
        }
        output.append(UInt8(ascii: "}"))
        if !array { output.append(0x0A) }
    }

    mutating func end(rows: Int, into output: inout [UInt8]) {
        if array { output.append(contentsOf: Array((rows == 0 ? "]\n" : "\n]\n").utf8)) }
    }

    private static let null: [UInt8] = Array("null".utf8)
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends `text` as a JSON string: runs of plain bytes are copied whole; `"`, `\`
    /// and bytes below 0x20 are escaped. Returns false, having appended part of it, when
    /// `text` is not valid UTF-8.
    @inline(__always)
    static func appendString(_ text: UnsafeRawBufferPointer, to output: inout [UInt8]) -> Bool {
        output.append(UInt8(ascii: "\""))
        guard let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self), text.count > 0 else {
            output.append(UInt8(ascii: "\""))
            return true
        }
        let count = text.count
        var runStart = 0
        var index = 0
        while index < count {
            let byte = base[index]
            if byte >= 0x80 {
                guard case .valid(let length) = UTF8Validation.validateSequence(base, index, count) else { return false }
                index += length
                continue
            }
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
            output.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): output.append(byte)
            case 0x0A: output.append(UInt8(ascii: "n"))
            case 0x0D: output.append(UInt8(ascii: "r"))
            case 0x09: output.append(UInt8(ascii: "t"))
            case 0x08: output.append(UInt8(ascii: "b"))
            case 0x0C: output.append(UInt8(ascii: "f"))
            default:
                output.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
            index += 1
            runStart = index
        }
        output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: count - runStart))
        output.append(UInt8(ascii: "\""))
        return true
    }
}
