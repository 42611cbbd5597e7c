import GRDBSQLite

/// Turns the rows of a stepped `sqlite3_stmt` into output bytes, appended to one reusable
/// buffer (see `ChunkedWriter`). One implementation per family of formats:
/// `JSONRowEncoder` (JSON Lines, JSON array) and `DelimitedRowEncoder` (CSV, TSV).
protocol RowEncoder {
    /// What comes before the first row: a CSV header, a JSON array's `[`.
    mutating func begin(into output: inout [UInt8]) throws(ExportError)
    /// The current row of `statement`; `number` is 1-based, for error messages.
    mutating func encodeRow(_ statement: OpaquePointer, number: Int, into output: inout [UInt8]) throws(ExportError)
    /// What comes after the last of `rows` rows.
    mutating func end(rows: Int, into output: inout [UInt8])
}

/// Value spellings shared by every format.
enum ValueText {
    /// The encoder for `format`, given the result's column names.
    /// - Throws: `.duplicateColumns` when two columns share a name (as import matches
    ///   fields: ASCII case aside), which would make the later value replace the earlier
    ///   on import; `.conflictingOptions` for a `--null` text that would break a field.
    /// - Parameter namesFoldCase: true for SQLite, whose names ignore ASCII case (a
    ///   PostgreSQL table may hold `"Name"` and `name`, which its import keeps apart).
    static func encoder(for format: InputFormat, columns: [String], nullText: String?, namesFoldCase: Bool = true) throws(ExportError) -> RowEncoder {
        var seen = Set<NameKey>()
        let repeated = columns.filter { !seen.insert(namesFoldCase ? $0.sqliteFolded : NameKey($0)).inserted }
        if !repeated.isEmpty { throw .duplicateColumns(names: repeated) }
        if let nullText, format == .json || format == .jsonl {
            throw .conflictingOptions("--null \(nullText) sets how CSV and TSV write NULL, and JSON writes null; drop --null, or export CSV or TSV (--format csv)")
        }
        if let nullText, format == .csv || format == .tsv,
            nullText.utf8.contains(where: { [UInt8(ascii: format == .csv ? "," : "\t"), UInt8(ascii: "\""), 0x0A, 0x0D].contains($0) })
        {
            throw .conflictingOptions(
                "--null \(nullText): the text holds a delimiter, a quote or a line break, which would split or end the field it stands in; choose a plain marker such as NULL or \\N")
        }
        switch format {
        case .jsonl: return JSONRowEncoder(columns: columns, array: false)
        case .json: return JSONRowEncoder(columns: columns, array: true)
        case .csv: return DelimitedRowEncoder(columns: columns, delimiter: UInt8(ascii: ","), nullText: nullText)
        case .tsv: return DelimitedRowEncoder(columns: columns, delimiter: UInt8(ascii: "\t"), nullText: nullText)
        }
    }

    /// Appends an INTEGER or REAL column's value the same way in every format; false,
    /// appending nothing, for the other storage classes.
    @inline(__always)
    static func appendNumber(_ statement: OpaquePointer, _ column: Int32, type: Int32, to output: inout [UInt8]) -> Bool {
        switch type {
        case SQLITE_INTEGER: appendInteger(sqlite3_column_int64(statement, column), to: &output)
        case SQLITE_FLOAT: appendReal(sqlite3_column_double(statement, column), to: &output)
        default: return false
        }
        return true
    }

    /// Decimal digits, exactly: `-9223372036854775808`.
    @inline(__always)
    static func appendInteger(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        if magnitude < 10 {
            output.append(UInt8(ascii: "0") + UInt8(magnitude))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var index = 20
            while magnitude > 0 {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[index...]))
        }
    }

    /// The shortest text that reads back as the same Double (`0.1`, `1e+308`, `5e-324`):
    /// valid JSON and valid SQL. SQLite can hold infinities (`SELECT 1e999`), which have
    /// no JSON spelling: they are written `1e999` and `-1e999`, which read back as
    /// infinities. (NaN cannot be stored: SQLite turns it into NULL.)
    @inline(__always)
    static func appendReal(_ value: Double, to output: inout [UInt8]) {
        if value.isFinite {
            output.append(contentsOf: NumberText.shortest(value).utf8)
        } else {
            output.append(contentsOf: (value < 0 ? "-1e999" : "1e999").utf8)
        }
    }

    /// The bytes of a TEXT column (SQLite's pointer is valid until the next step).
    @inline(__always)
    static func text(_ statement: OpaquePointer, _ column: Int32) -> UnsafeRawBufferPointer {
        let pointer = sqlite3_column_text(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        return UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count)
    }

    /// The bytes of a BLOB column; a zero-length BLOB has no pointer.
    @inline(__always)
    static func blob(_ statement: OpaquePointer, _ column: Int32) -> UnsafeRawBufferPointer {
        let pointer = sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        return UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count)
    }
}
