/// The text forms that carry a BLOB through JSON and CSV: `sqlimport export` writes them,
/// and import turns them back into bytes.
///
/// - JSON and JSON Lines: the object `{"$base64":"AAEC"}` (standard base64, padded).
/// - CSV and TSV: the text `base64:AAEC`.
///
/// Import decodes a marker only into a column that can hold a BLOB: BLOB affinity (a
/// declared type containing `BLOB`, or none), or a STRICT `BLOB` or `ANY` column.
/// Anywhere else, and when the base64 is not valid, the marker stays what it was read as.
package enum BlobMarker {
    /// `{"$base64":"`
    static let jsonPrefix: [UInt8] = Array(#"{"$base64":""#.utf8)
    /// `"}`
    static let jsonSuffix: [UInt8] = Array(#""}"#.utf8)
    /// `base64:`
    static let textPrefix: [UInt8] = Array("base64:".utf8)

    // MARK: - Writing

    /// Appends `{"$base64":"..."}` for `bytes`.
    package static func appendJSON(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.append(contentsOf: jsonPrefix)
        appendBase64(bytes, to: &output)
        output.append(contentsOf: jsonSuffix)
    }

    /// Appends `base64:...` for `bytes`.
    package static func appendText(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.append(contentsOf: textPrefix)
        appendBase64(bytes, to: &output)
    }

    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Appends the standard, padded base64 encoding of `bytes` (RFC 4648, section 4).
    package static func appendBase64(_ bytes: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        output.reserveCapacity(output.count + (bytes.count + 2) / 3 * 4)
        alphabet.withUnsafeBufferPointer { table in
            var index = 0
            while index + 3 <= bytes.count {
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                output.append(table[Int(value >> 18)])
                output.append(table[Int(value >> 12 & 0x3F)])
                output.append(table[Int(value >> 6 & 0x3F)])
                output.append(table[Int(value & 0x3F)])
                index += 3
            }
            let rest = bytes.count - index
            if rest > 0 {
                let value = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                output.append(table[Int(value >> 18)])
                output.append(table[Int(value >> 12 & 0x3F)])
                output.append(rest == 2 ? table[Int(value >> 6 & 0x3F)] : UInt8(ascii: "="))
                output.append(UInt8(ascii: "="))
            }
        }
    }

    // MARK: - Reading

    /// The bytes of `cell` when it is a marker: a JSON object read as JSON text, or CSV/TSV
    /// text (`untypedText`); nil for any other cell.
    static func decode(_ cell: Cell, bytes: UnsafePointer<UInt8>) -> [UInt8]? {
        let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
        switch cell.kind {
        case .json: return decodeJSON(text)
        case .untypedText: return decodeText(text)
        default: return nil
        }
    }

    /// The bytes of a JSON marker, or nil when `text` is not exactly
    /// `{"$base64":"<valid base64>"}` (the compact form the JSON readers produce).
    package static func decodeJSON(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard text.count >= jsonPrefix.count + jsonSuffix.count,
              text.starts(with: jsonPrefix), text[(text.count - jsonSuffix.count)...].elementsEqual(jsonSuffix)
        else { return nil }
        return decodeBase64(UnsafeRawBufferPointer(rebasing: text[jsonPrefix.count ..< text.count - jsonSuffix.count]))
    }

    /// The bytes of a CSV/TSV marker, or nil when `text` is not `base64:<valid base64>`.
    package static func decodeText(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard text.starts(with: textPrefix) else { return nil }
        return decodeBase64(UnsafeRawBufferPointer(rebasing: text[textPrefix.count...]))
    }

    /// Decodes standard, padded base64; nil for any other character, a missing or
    /// misplaced `=`, or a length that is not a multiple of 4.
    package static func decodeBase64(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        guard text.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count / 4 * 3)
        var index = 0
        while index < text.count {
            var value: UInt32 = 0
            var padding = 0
            for offset in 0 ..< 4 {
                let byte = text[index + offset]
                let digit: UInt8
                if byte == UInt8(ascii: "=") {
                    // Padding: only in the last two places of the last quantum.
                    guard index + 4 == text.count, offset >= 2 else { return nil }
                    padding += 1
                    digit = 0
                } else {
                    guard padding == 0, let decoded = sextet(byte) else { return nil }
                    digit = decoded
                }
                value = value << 6 | UInt32(digit)
            }
            output.append(UInt8(value >> 16))
            if padding < 2 { output.append(UInt8(value >> 8 & 0xFF)) }
            if padding < 1 { output.append(UInt8(value & 0xFF)) }
            index += 4
        }
        return output
    }

    @inline(__always)
    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A") ... UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a") ... UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
