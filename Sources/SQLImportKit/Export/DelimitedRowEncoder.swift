import GRDBSQLite

/// CSV and TSV with a header row of column names, one row per line (LF), quoted as RFC
/// 4180 says and as the importer reads it back:
///
/// - A field is quoted (`"..."`, with `"` doubled) when it contains the delimiter, `"`,
///   CR or LF, when it is the empty string, or when it equals the `--null` text.
/// - NULL is an empty unquoted field, or the `--null` text unquoted; so the empty string
///   (`""`) and NULL stay apart.
/// - Text is written as its raw bytes; INTEGER and REAL as in JSON; a BLOB as
///   `base64:...` (see `BlobMarker`).
struct DelimitedRowEncoder: RowEncoder {
    let columns: [String]
    let delimiter: UInt8
    let nullText: [UInt8]?

    init(columns: [String], delimiter: UInt8, nullText: String?) {
        self.columns = columns
        self.delimiter = delimiter
        self.nullText = nullText.map { Array($0.utf8) }
    }

    mutating func begin(into output: inout [UInt8]) throws(ExportError) {
        for (index, name) in columns.enumerated() {
            if index > 0 { output.append(delimiter) }
            // A first name that begins with U+FEFF would begin the file with a byte order
            // mark, which import strips: quoted, it stays part of the name. One that
            // begins (after spaces) with `[` or `{` would make import read the file as
            // JSON (`RecordReader.detect`): quoted, the file begins with `"`.
            let firstByte = name.utf8.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
            let startsLikeJSON = firstByte == UInt8(ascii: "[") || firstByte == UInt8(ascii: "{")
            let quoted = index == 0 && (name.utf8.starts(with: [0xEF, 0xBB, 0xBF]) || startsLikeJSON)
            Array(name.utf8).withUnsafeBytes { appendText($0, to: &output, quoted: quoted) }
        }
        output.append(0x0A)
    }

    mutating func encodeRow(_ statement: OpaquePointer, number: Int, into output: inout [UInt8]) throws(ExportError) {
        for column in 0 ..< Int32(columns.count) {
            if column > 0 { output.append(delimiter) }
            let start = output.count
            let type = sqlite3_column_type(statement, column)
            if type == SQLITE_TEXT {
                appendText(ValueText.text(statement, column), to: &output)
                continue
            }
            if type == SQLITE_NULL {
                if let nullText { output.append(contentsOf: nullText) }
                continue
            }
            if !ValueText.appendNumber(statement, column, type: type, to: &output) {
                BlobMarker.appendText(ValueText.blob(statement, column), to: &output)
            }
            // A number or BLOB marker that happens to equal the --null text is quoted.
            if let nullText, output[start...].elementsEqual(nullText) {
                output.insert(UInt8(ascii: "\""), at: start)
                output.append(UInt8(ascii: "\""))
            }
        }
        output.append(0x0A)
    }

    mutating func end(rows: Int, into output: inout [UInt8]) {}

    /// Appends a text field, quoted when it must be: when it holds the delimiter, a quote
    /// or a line break, and also when it holds any other delimiter import may guess
    /// (`RecordReader.delimiterCandidates`: `,` `;` tab `|`), so that the file reads back
    /// with this delimiter whatever its name (a one-column export whose values hold `;`
    /// read as two `;`-separated columns).
    @inline(__always)
    func appendText(_ text: UnsafeRawBufferPointer, to output: inout [UInt8], quoted: Bool = false) {
        let quote = UInt8(ascii: "\"")
        var needsQuotes = quoted || text.isEmpty || (nullText.map { text.elementsEqual($0) } ?? false)
        if !needsQuotes {
            for byte in text
            where byte == delimiter || byte == quote || byte == 0x0A || byte == 0x0D || byte == UInt8(ascii: ",") || byte == UInt8(ascii: ";")
                || byte == 0x09 || byte == UInt8(ascii: "|")
            {
                needsQuotes = true
                break
            }
        }
        guard needsQuotes else {
            output.append(contentsOf: text)
            return
        }
        output.append(quote)
        for byte in text {
            output.append(byte)
            if byte == quote { output.append(quote) }
        }
        output.append(quote)
    }
}
