/// CSV (RFC 4180) and TSV: quoted fields, `""` escapes, embedded newlines, CRLF or LF.
///
/// - An empty unquoted field is NULL; a quoted empty field `""` is the empty string.
/// - An unquoted field equal to `--null TEXT` is NULL.
/// - A bare `"` inside an unquoted field is kept as a character (lenient, like most
///   readers); a character other than a delimiter or line end after a closing quote is
///   an error.
/// - Fields are `untypedText`: the target column's declared type decides how they bind.
///
/// Fields are decoded straight into the batch's byte store; runs of plain bytes are
/// skipped eight at a time, as in `JSONScanner`.
final class DelimitedReader: RecordReader {
    /// Where a field's decoded bytes are in the output store.
    private struct FieldSpan {
        var start: Int
        var length: Int
        var quoted: Bool
    }

    private let buffer: InputBuffer
    private let options: ReaderOptions
    private let namer: ColumnNamer
    private let keepRaw: Bool
    private let delimiter: UInt8
    private let nullText: [UInt8]?
    private var line = 1
    /// Set at the first record ended by a lone CR (old Mac line ends): lines are then
    /// counted at CRs too (`countLines`).
    private var endsLinesWithCR = false
    /// Column number of each field position, from the header (or c1…cN).
    private var fieldColumns: [Int] = []
    private var headerRead = false
    private let fields = GrowableBuffer<FieldSpan>(capacity: 64)
    private let headerBytes = ByteStore(capacity: 1024)
    /// The first invalid UTF-8 byte of the record being scanned, and its field. The scan
    /// goes on to the record's end, so that the record can be set aside whole.
    private var invalidUTF8: (at: Int, field: Int)?
    /// The first byte after a closing quote that is no delimiter or line end, if any.
    private var strayAfterQuote: (at: Int, field: Int)?

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
        do {
            return try fillBatch(batch, maxRows: maxRows, maxBytes: maxBytes)
        } catch {
            throw error.inRecord(startingOnLine: line)
        }
    }

    private func fillBatch(_ batch: RecordBatch, maxRows: Int, maxBytes: Int) throws(ReaderError) -> Bool {
        while batch.recordCount < maxRows && batch.bytes.count < maxBytes {
            // The header is decoded aside; records straight into the batch.
            let output = headerRead || !options.hasHeader ? batch.bytes : headerBytes
            let mark = output.count
            var recordEnd = 0
            var shift = 0
            while true {
                if buffer.start == buffer.end, buffer.atEOF {
                    batch.inputBytesConsumed = bytesConsumed
                    return false
                }
                output.truncate(to: mark)
                fields.removeAll()
                invalidUTF8 = nil
                strayAfterQuote = nil
                let failure: Failure
                do {
                    recordEnd = try scanRecord(into: output)
                    break
                } catch {
                    failure = error
                }
                switch failure {
                case .needMoreData:
                    if try !buffer.refill(shift: &shift), buffer.start == buffer.end {
                        output.truncate(to: mark)
                        batch.inputBytesConsumed = bytesConsumed
                        return false
                    }
                case .syntax(let reason, let at, let field):
                    output.truncate(to: mark)
                    let errorLine = line + countLines(buffer.storage, from: buffer.start, to: at)
                    throw .malformedRecord(
                        SourcePosition(input: buffer.input.name, line: errorLine, byteOffset: buffer.absoluteOffset(at)),
                        field: fieldName(field), reason: reason)
                }
            }
            var contentEnd = recordEnd
            if contentEnd > buffer.start, buffer.storage[contentEnd - 1] == 0x0A { contentEnd -= 1 }
            if contentEnd > buffer.start, buffer.storage[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            try buffer.checkRecordSize(from: buffer.start, to: contentEnd, line: line)
            let recordStart = buffer.start
            let recordLine = line
            let newlines = countLines(buffer.storage, from: recordStart, to: recordEnd)
            defer {
                line += newlines
                buffer.start = recordEnd
            }
            if !headerRead {
                headerRead = true
                if let stray = strayAfterQuote, options.hasHeader {
                    throw .badHeader(
                        input: buffer.input.name,
                        reason: "line \(recordLine) has \(JSONScanner.describe(buffer.storage[stray.at])) after a closing quote; a quoted name must end at a delimiter or a line end")
                }
                if invalidUTF8 != nil, options.hasHeader {
                    throw .badHeader(input: buffer.input.name, reason: "line \(recordLine) is not valid UTF-8; if the file is in another encoding, pass --encoding latin1, windows-1252 or utf-16")
                }
                // With a header, its names; without one, c1…cN, and the record is data.
                try readHeader(line: recordLine, batch: batch)
                headerBytes.removeAll()
                if options.hasHeader { continue }
            }
            if fields.count == 1, fields[0].length == 0, !fields[0].quoted {  // blank line
                output.truncate(to: mark)
                continue
            }
            let position = SourcePosition(input: buffer.input.name, line: recordLine, byteOffset: buffer.absoluteOffset(recordStart))
            var failure: ReaderError?
            if let invalid = invalidUTF8 {
                let errorLine = recordLine + countLines(buffer.storage, from: recordStart, to: invalid.at)
                failure = .malformedRecord(
                    SourcePosition(input: buffer.input.name, line: errorLine, byteOffset: buffer.absoluteOffset(invalid.at)),
                    field: fieldName(invalid.field),
                    reason: "invalid UTF-8 \(JSONScanner.describe(buffer.storage[invalid.at])); if the file is in another encoding, pass --encoding latin1, windows-1252 or utf-16")
            } else if let stray = strayAfterQuote {
                let errorLine = recordLine + countLines(buffer.storage, from: recordStart, to: stray.at)
                failure = .malformedRecord(
                    SourcePosition(input: buffer.input.name, line: errorLine, byteOffset: buffer.absoluteOffset(stray.at)),
                    field: fieldName(stray.field),
                    reason: "unexpected \(JSONScanner.describe(buffer.storage[stray.at])) after a closing quote; a quoted field must end at a delimiter or a line end")
            } else if fields.count != fieldColumns.count {
                let unterminated = buffer.atEOF && recordEnd == buffer.end && buffer.storage[recordEnd - 1] != 0x0A && buffer.storage[recordEnd - 1] != 0x0D
                failure = .raggedRow(position, expected: fieldColumns.count, found: fields.count, cutShort: unterminated && fields.count < fieldColumns.count)
            }
            if let failure {
                output.truncate(to: mark)
                guard options.skipBadRecords else { throw failure }
                batch.reject(failure, at: position, raw: UnsafeRawBufferPointer(start: buffer.storage + recordStart, count: recordEnd - recordStart))
                continue
            }
            batch.beginRow(bytesStart: mark)
            for number in 0 ..< fields.count {
                let field = fields[number]
                let cell: Cell
                if !field.quoted && (field.length == 0 || isNullText(field, in: output)) {
                    cell = .null
                } else {
                    cell = Cell(kind: .untypedText, payload: Int64(field.start), length: UInt32(field.length))
                }
                batch.set(column: fieldColumns[number], cell)
            }
            batch.commitRow(line: recordLine, byteOffset: position.byteOffset)
            if buffer.atEOF, recordEnd == buffer.end, buffer.storage[recordEnd - 1] != 0x0A, buffer.storage[recordEnd - 1] != 0x0D {
                batch.unterminatedLastLine = recordLine
            }
            if keepRaw {
                var rawEnd = recordEnd
                while rawEnd > recordStart, buffer.storage[rawEnd - 1] == 0x0A || buffer.storage[rawEnd - 1] == 0x0D { rawEnd -= 1 }
                batch.appendRaw(UnsafeRawBufferPointer(start: buffer.storage + recordStart, count: rawEnd - recordStart))
            }
        }
        batch.inputBytesConsumed = bytesConsumed
        return true
    }

    @inline(__always)
    private func isNullText(_ field: FieldSpan, in output: ByteStore) -> Bool {
        guard let nullText, nullText.count == field.length else { return false }
        return nullText.withUnsafeBufferPointer { memcmp(output.base + field.start, $0.baseAddress!, field.length) == 0 }
    }

    private func fieldName(_ number: Int) -> String {
        if number < fieldColumns.count { return namer.names[fieldColumns[number]] }
        return "field \(number + 1)"
    }

    /// Names the columns from the header (or c1…cN), announcing them in `batch`.
    private func readHeader(line: Int, batch: RecordBatch) throws(ReaderError) {
        if !options.hasHeader {
            for number in 0 ..< fields.count {
                let name = Array("c\(number + 1)".utf8)
                fieldColumns.append(name.withUnsafeBufferPointer { namer.column(for: $0, slot: number, batch: batch) })
            }
            return
        }
        var seen: [NameKey: (number: Int, name: String)] = [:]
        for number in 0 ..< fields.count {
            let field = fields[number]
            let name = headerBytes.string(field.start ..< field.start + field.length)
            if name.isEmpty {
                throw .badHeader(input: buffer.input.name, reason: "field \(number + 1) of the header on line \(line) is empty; name it, or use --no-header")
            }
            if name.utf8.contains(FieldPath.separator) {
                throw .badHeader(
                    input: buffer.input.name,
                    reason: "field \(number + 1) of the header on line \(line) holds the control character U+001F, which joins nested names; rename it")
            }
            if let previous = seen[name.sqliteFolded] {
                let named = previous.name == name
                    ? "are both named \"\(name)\""
                    : "are named \"\(previous.name)\" and \"\(name)\", one column to sqlimport (column names ignore case, as SQLite's do)"
                throw .badHeader(input: buffer.input.name, reason: "fields \(previous.number + 1) and \(number + 1) of the header on line \(line) \(named); rename one")
            }
            seen[name.sqliteFolded] = (number, name)
            fieldColumns.append(namer.column(for: UnsafeBufferPointer(start: headerBytes.base + field.start, count: field.length), slot: number, batch: batch))
        }
    }

    /// Line ends from `from` to `to`: LFs, and, once the input has shown lone CRs, CRs
    /// not followed by an LF.
    @inline(__always)
    private func countLines(_ base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
        var count = countNewlines(base, from: from, to: to)
        guard endsLinesWithCR else { return count }
        for index in from ..< to where base[index] == 0x0D && (index + 1 == to || base[index + 1] != 0x0A) { count += 1 }
        return count
    }

    /// Skips bytes that need no attention in an unquoted field (anything but the
    /// delimiter, `"`, CR, LF and non-ASCII), eight at a time.
    @inline(__always)
    private func skipPlainUnquoted(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        while index + 8 <= end {
            let word = ByteScanning.word(at: base + index)
            let special = ByteScanning.matches(word, delimiter) | ByteScanning.matches(word, UInt8(ascii: "\""))
                | ByteScanning.matches(word, 0x0A) | ByteScanning.matches(word, 0x0D) | ByteScanning.nonASCII(word)
            if special != 0 { break }
            index += 8
        }
        return index
    }

    /// Skips bytes that need no attention in a quoted field (anything but `"` and
    /// non-ASCII), eight at a time.
    @inline(__always)
    private func skipPlainQuoted(_ base: UnsafePointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        while index + 8 <= end {
            let word = ByteScanning.word(at: base + index)
            if ByteScanning.matches(word, UInt8(ascii: "\"")) | ByteScanning.nonASCII(word) != 0 { break }
            index += 8
        }
        return index
    }

    /// The length of the UTF-8 character at `index` (a byte of 0x80 or more). An invalid
    /// byte counts as one, and the first is noted so that the record is set aside once
    /// scanned.
    @inline(__always)
    private func stepOverNonASCII(_ base: UnsafePointer<UInt8>, at index: Int, end: Int, final: Bool) throws(Failure) -> Int {
        switch UTF8Validation.validateSequence(base, index, end) {
        case .valid(let length):
            return length
        case .incomplete:
            if !final { throw .needMoreData }
        case .invalid:
            break
        }
        if invalidUTF8 == nil { invalidUTF8 = (index, fields.count) }
        return 1
    }

    /// Scans the record at `buffer.start`, appending each field's decoded bytes to
    /// `output` and recording where they are. Returns the index just past the record's
    /// line end.
    private func scanRecord(into output: ByteStore) throws(Failure) -> Int {
        let base = buffer.storage
        let end = buffer.recordWindowEnd
        let final = buffer.recordWindowIsFinal
        var index = buffer.start
        let quote = UInt8(ascii: "\"")
        while true {
            let fieldStart = output.count
            var quoted = false
            if index < end, base[index] == quote {
                quoted = true
                let opening = index
                index += 1
                var runStart = index
                while true {
                    index = skipPlainQuoted(base, from: index, to: end)
                    guard index < end else {
                        // Named where the quote opened: the end of input is no help.
                        if final {
                            throw .syntax(
                                "a quoted field opens here and is not closed before the end of input; close it, or double a quote inside it (\"\")", at: opening,
                                field: fields.count)
                        }
                        throw .needMoreData
                    }
                    let byte = base[index]
                    if byte == quote {
                        if index + 1 >= end, !final { throw .needMoreData }
                        output.append(base + runStart, count: index - runStart)
                        if index + 1 < end, base[index + 1] == quote {
                            output.append(quote)
                            index += 2
                            runStart = index
                            continue
                        }
                        index += 1
                        break
                    }
                    index += try byte >= 0x80 ? stepOverNonASCII(base, at: index, end: end, final: final) : 1
                }
            } else {
                let runStart = index
                while true {
                    index = skipPlainUnquoted(base, from: index, to: end)
                    guard index < end else { break }
                    let byte = base[index]
                    if byte == delimiter || byte == 0x0A || byte == 0x0D { break }
                    // A bare quote is kept as it is.
                    index += try byte >= 0x80 ? stepOverNonASCII(base, at: index, end: end, final: final) : 1
                }
                if index == end, !final { throw .needMoreData }
                output.append(base + runStart, count: index - runStart)
            }
            fields.append(FieldSpan(start: fieldStart, length: output.count - fieldStart, quoted: quoted))
            // After a field: a delimiter, a line end, or the end of input. Other bytes after
            // a closing quote make the record malformed; its end is still the next delimiter
            // or line end, unless a quote among them leaves it unclear, so `--on-error skip`
            // sets the record aside and goes on.
            while index < end, base[index] != delimiter, base[index] != 0x0A, base[index] != 0x0D {
                if base[index] == quote {
                    throw .syntax(
                        "unexpected \(JSONScanner.describe(base[index])) after a closing quote; a quoted field must end at a delimiter or a line end",
                        at: index, field: fields.count - 1)
                }
                if strayAfterQuote == nil { strayAfterQuote = (index, fields.count - 1) }
                index += 1
            }
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
                    if base[index + 1] == 0x0A { return index + 2 }
                    endsLinesWithCR = true
                    return index + 1
                }
                if final {
                    endsLinesWithCR = true
                    return index + 1
                }
                throw .needMoreData
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
