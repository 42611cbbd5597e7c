/// CSV (RFC 4180) and TSV: quoted fields, `""` escapes, embedded newlines, CRLF or LF.
///
/// - An empty unquoted field is NULL; a quoted empty field `""` is the empty string.
/// - An unquoted field equal to `--null TEXT` is NULL.
/// - A bare `"` inside an unquoted field is kept as a character (lenient, like most
///   readers); a character other than a delimiter or line end after a closing quote is
///   an error.
/// - Fields are `untypedText`: the target column's declared type decides how they bind.
final class DelimitedReader: RecordReader {
    private let buffer: InputBuffer
    private let options: ReaderOptions
    private let namer: ColumnNamer
    private let keepRaw: Bool
    private let delimiter: UInt8
    private let nullText: [UInt8]?
    private var line = 1
    /// Column number of each field position, from the header (or c1…cN).
    private var fieldColumns: [Int] = []
    private var headerRead = false
    private var fieldStarts: [(start: Int, length: Int, quoted: Bool)] = []
    /// The first invalid UTF-8 byte of the record being scanned, and its field. The scan
    /// goes on to the record's end, so that the record can be set aside whole.
    private var invalidUTF8: (at: Int, field: Int)?

    init(buffer: InputBuffer, options: ReaderOptions, namer: ColumnNamer, keepRaw: Bool, delimiter: UInt8) {
        self.buffer = buffer
        self.options = options
        self.namer = namer
        self.keepRaw = keepRaw
        self.delimiter = delimiter
        nullText = options.nullText.map { Array($0.utf8) }
    }

    var bytesConsumed: Int64 { buffer.absoluteOffset(buffer.start) }

    private enum Failure: Error {
        case needMoreData
        case syntax(String, at: Int, field: Int)
    }

    func fill(_ batch: RecordBatch, maxRows: Int, maxBytes: Int) throws(ReaderError) -> Bool {
        var scratch: [UInt8] = []
        while batch.recordCount < maxRows && batch.bytes.count < maxBytes {
            // Parse one record's fields into `scratch`, reading more input until it is whole.
            var recordEnd = 0
            var shift = 0
            while true {
                if buffer.start == buffer.end, buffer.atEOF {
                    batch.inputBytesConsumed = bytesConsumed
                    return false
                }
                scratch.removeAll(keepingCapacity: true)
                fieldStarts.removeAll(keepingCapacity: true)
                invalidUTF8 = nil
                let failure: Failure
                do {
                    recordEnd = try scanRecord(into: &scratch)
                    break
                } catch {
                    failure = error
                }
                switch failure {
                case .needMoreData:
                    if try !buffer.refill(shift: &shift), buffer.start == buffer.end {
                        batch.inputBytesConsumed = bytesConsumed
                        return false
                    }
                case .syntax(let reason, let at, let field):
                    let start = buffer.start
                    let errorLine = line + countNewlines(buffer.storage, from: start, to: at)
                    throw .malformedRecord(
                        SourcePosition(input: buffer.input.name, line: errorLine, byteOffset: buffer.absoluteOffset(at)),
                        field: fieldName(field), reason: reason)
                }
            }
            let recordStart = buffer.start
            let recordLine = line
            let newlines = countNewlines(buffer.storage, from: recordStart, to: recordEnd)
            defer {
                line += newlines
                buffer.start = recordEnd
            }
            if !headerRead {
                headerRead = true
                if invalidUTF8 != nil, options.hasHeader {
                    throw .badHeader(input: buffer.input.name, reason: "line \(recordLine) is not valid UTF-8")
                }
                try readHeader(scratch, line: recordLine, batch: batch)
                if options.hasHeader { continue }
            }
            if fieldStarts.count == 1, fieldStarts[0].length == 0, !fieldStarts[0].quoted { continue }  // blank line
            let position = SourcePosition(input: buffer.input.name, line: recordLine, byteOffset: buffer.absoluteOffset(recordStart))
            var failure: ReaderError?
            if let invalid = invalidUTF8 {
                let errorLine = recordLine + countNewlines(buffer.storage, from: recordStart, to: invalid.at)
                failure = .malformedRecord(
                    SourcePosition(input: buffer.input.name, line: errorLine, byteOffset: buffer.absoluteOffset(invalid.at)),
                    field: fieldName(invalid.field), reason: "invalid UTF-8 byte \(JSONScanner.describe(buffer.storage[invalid.at]))")
            } else if fieldStarts.count != fieldColumns.count {
                failure = .raggedRow(position, expected: fieldColumns.count, found: fieldStarts.count)
            }
            if let failure {
                guard options.skipBadRecords else { throw failure }
                batch.reject(failure, at: position, raw: UnsafeRawBufferPointer(start: buffer.storage + recordStart, count: recordEnd - recordStart))
                continue
            }
            batch.beginRow()
            scratch.withUnsafeBufferPointer { fields in
                for (number, field) in fieldStarts.enumerated() {
                    let text = UnsafeBufferPointer(rebasing: fields[field.start ..< field.start + field.length])
                    let cell: Cell
                    if !field.quoted && (field.length == 0 || (nullText.map { text.elementsEqual($0) } ?? false)) {
                        cell = .null
                    } else {
                        let offset = batch.bytes.count
                        batch.bytes.append(contentsOf: text)
                        cell = Cell(kind: .untypedText, payload: Int64(offset), length: UInt32(field.length))
                    }
                    batch.set(column: fieldColumns[number], cell)
                }
            }
            batch.commitRow(line: recordLine, byteOffset: position.byteOffset)
            if keepRaw {
                var rawEnd = recordEnd
                while rawEnd > recordStart, buffer.storage[rawEnd - 1] == 0x0A || buffer.storage[rawEnd - 1] == 0x0D { rawEnd -= 1 }
                batch.appendRaw(UnsafeRawBufferPointer(start: buffer.storage + recordStart, count: rawEnd - recordStart))
            }
        }
        batch.inputBytesConsumed = bytesConsumed
        return true
    }

    private func fieldName(_ number: Int) -> String {
        if number < fieldColumns.count { return namer.names[fieldColumns[number]] }
        return "field \(number + 1)"
    }

    /// Names the columns from the header (or c1…cN), announcing them in `batch`.
    private func readHeader(_ scratch: [UInt8], line: Int, batch: RecordBatch) throws(ReaderError) {
        if !options.hasHeader {
            for number in 0 ..< fieldStarts.count {
                let name = "c\(number + 1)"
                fieldColumns.append(name.utf8CString.withUnsafeBufferPointer { chars in
                    chars.withMemoryRebound(to: UInt8.self) { namer.column(for: UnsafeBufferPointer(rebasing: $0.dropLast()), slot: number, batch: batch) }
                })
            }
            return
        }
        var seen: [String: Int] = [:]
        for (number, field) in fieldStarts.enumerated() {
            let name = String(decoding: scratch[field.start ..< field.start + field.length], as: UTF8.self)
            if name.isEmpty {
                throw .badHeader(input: buffer.input.name, reason: "field \(number + 1) of the header on line \(line) is empty; name it, or use --no-header")
            }
            if let previous = seen[name.lowercased()] {
                throw .badHeader(input: buffer.input.name, reason: "fields \(previous + 1) and \(number + 1) of the header on line \(line) are both named \"\(name)\" (SQLite column names ignore case); rename one")
            }
            seen[name.lowercased()] = number
            let column = scratch.withUnsafeBufferPointer {
                namer.column(for: UnsafeBufferPointer(rebasing: $0[field.start ..< field.start + field.length]), slot: number, batch: batch)
            }
            fieldColumns.append(column)
        }
    }

    /// Scans the record at `buffer.start`; appends each field's decoded bytes to
    /// `output` and records where they are. Returns the index just past the record's
    /// line end.
    private func scanRecord(into output: inout [UInt8]) throws(Failure) -> Int {
        let base = buffer.storage
        let end = buffer.end
        let final = buffer.atEOF
        var index = buffer.start
        let quote = UInt8(ascii: "\"")
        while true {
            let fieldStart = output.count
            var quoted = false
            if index < end, base[index] == quote {
                quoted = true
                index += 1
                while true {
                    guard index < end else {
                        if final { throw .syntax("a quoted field is not closed before the end of input", at: index, field: fieldStarts.count) }
                        throw .needMoreData
                    }
                    let byte = base[index]
                    if byte == quote {
                        if index + 1 >= end, !final { throw .needMoreData }
                        if index + 1 < end, base[index + 1] == quote {
                            output.append(quote)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    if byte >= 0x80 {
                        switch UTF8Validation.validateSequence(base, index, end) {
                        case .valid(let length):
                            output.append(contentsOf: UnsafeBufferPointer(start: base + index, count: length))
                            index += length
                            continue
                        case .incomplete:
                            if final { fallthrough } else { throw .needMoreData }
                        case .invalid:
                            if invalidUTF8 == nil { invalidUTF8 = (index, fieldStarts.count) }
                        }
                    }
                    output.append(byte)
                    index += 1
                }
            } else {
                var runStart = index
                while index < end {
                    let byte = base[index]
                    if byte == delimiter || byte == 0x0A || byte == 0x0D { break }
                    if byte >= 0x80 {
                        switch UTF8Validation.validateSequence(base, index, end) {
                        case .valid(let length):
                            index += length
                            continue
                        case .incomplete:
                            if final { fallthrough } else { throw .needMoreData }
                        case .invalid:
                            if invalidUTF8 == nil { invalidUTF8 = (index, fieldStarts.count) }
                        }
                    }
                    index += 1
                }
                if index == end, !final { throw .needMoreData }
                output.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: index - runStart))
                runStart = index
            }
            fieldStarts.append((fieldStart, output.count - fieldStart, quoted))
            // After a field: a delimiter, a line end, or the end of input.
            guard index < end else {
                if final { return index }
                throw .needMoreData
            }
            let byte = base[index]
            if byte == delimiter {
                index += 1
                continue
            }
            if byte == 0x0A { return index + 1 }
            if byte == 0x0D {
                if index + 1 < end {
                    return base[index + 1] == 0x0A ? index + 2 : index + 1
                }
                if final { return index + 1 }
                throw .needMoreData
            }
            throw .syntax("unexpected \(JSONScanner.describe(byte)) after a closing quote; a quoted field must end at a delimiter or a line end", at: index, field: fieldStarts.count - 1)
        }
    }
}
