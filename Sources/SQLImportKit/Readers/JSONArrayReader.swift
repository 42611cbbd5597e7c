/// A JSON document holding an array of objects, streamed element by element (a 10 GB
/// array is never loaded whole), or a single object, read as one record.
final class JSONArrayReader: RecordReader {
    private enum State {
        case beforeDocument, firstElement, afterElement, afterDocument
    }

    private let buffer: InputBuffer
    private let options: ReaderOptions
    private let namer: ColumnNamer
    private let keepRaw: Bool
    private var state = State.beforeDocument
    private var line = 1
    private let keys = ByteStore(capacity: 256)

    init(buffer: InputBuffer, options: ReaderOptions, namer: ColumnNamer, keepRaw: Bool) {
        self.buffer = buffer
        self.options = options
        self.namer = namer
        self.keepRaw = keepRaw
    }

    var bytesConsumed: Int64 { buffer.absoluteOffset(buffer.start) }

    private var position: SourcePosition {
        SourcePosition(input: buffer.input.name, line: line, byteOffset: buffer.absoluteOffset(buffer.start))
    }

    /// Skips whitespace, counting lines; returns the next byte, or nil at the end of input.
    private func nextSignificantByte() throws(ReaderError) -> UInt8? {
        var shift = 0
        while true {
            while buffer.start < buffer.end {
                let byte = buffer.storage[buffer.start]
                switch byte {
                case 0x0A: line += 1
                case 0x20, 0x0D, 0x09: break
                default: return byte
                }
                buffer.start += 1
            }
            guard try buffer.refill(shift: &shift) else { return nil }
        }
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
            let byte = try nextSignificantByte()
            switch state {
            case .beforeDocument:
                guard let byte else {
                    batch.inputBytesConsumed = bytesConsumed
                    return false
                }
                if byte == UInt8(ascii: "[") {
                    buffer.start += 1
                    state = .firstElement
                } else {
                    try readElement(batch)
                    state = .afterDocument
                }
            case .firstElement:
                guard let byte else { throw .malformedRecord(position, field: nil, reason: "the JSON array is not closed (missing ']')") }
                if byte == UInt8(ascii: "]") {
                    buffer.start += 1
                    state = .afterDocument
                } else {
                    try readElement(batch)
                    state = .afterElement
                }
            case .afterElement:
                guard let byte else { throw .malformedRecord(position, field: nil, reason: "the JSON array is not closed (missing ']')") }
                buffer.start += 1
                if byte == UInt8(ascii: "]") {
                    state = .afterDocument
                } else if byte == UInt8(ascii: ",") {
                    guard try nextSignificantByte() != nil else {
                        throw .malformedRecord(position, field: nil, reason: "the JSON array ends after ','")
                    }
                    try readElement(batch)
                } else {
                    buffer.start -= 1
                    throw .malformedRecord(position, field: nil, reason: "expected ',' or ']' between array elements, found \(JSONScanner.describe(byte))")
                }
            case .afterDocument:
                guard let byte else {
                    batch.inputBytesConsumed = bytesConsumed
                    return false
                }
                throw .malformedRecord(position, field: nil, reason: "unexpected \(JSONScanner.describe(byte)) after the end of the JSON document; use --format jsonl for one object per line")
            }
        }
        batch.inputBytesConsumed = bytesConsumed
        return true
    }

    /// Parses the element at `buffer.start`, reading more input until it is whole.
    private func readElement(_ batch: RecordBatch) throws(ReaderError) {
        var shift = 0
        while true {
            var scanner = JSONScanner(
                buffer.recordWindow, start: buffer.start, endIsFinal: buffer.recordWindowIsFinal,
                maxDepth: options.maxDepth, flatten: options.flatten, keys: keys)
            batch.beginRow()
            do {
                try scanner.parseRecord(into: batch, namer: namer)
            } catch .needMoreData {
                batch.discardRow()
                if try buffer.refill(shift: &shift) { continue }
                continue  // now at EOF: the next pass reports the truncation
            } catch {
                batch.discardRow()
                if case .notAnObject(let found, _) = error, options.skipBadRecords {
                    // The element was read whole, so reading can go on after it.
                    try buffer.checkRecordSize(from: buffer.start, to: scanner.index, line: line)
                    let raw = UnsafeRawBufferPointer(start: buffer.storage + buffer.start, count: scanner.index - buffer.start)
                    batch.reject(.notAnObject(position, found: found), at: position, raw: raw)
                    line += countNewlines(buffer.storage, from: buffer.start, to: scanner.index)
                    buffer.start = scanner.index
                    return
                }
                let start = buffer.start
                let base = buffer.storage
                let recordLine = line
                throw error.readerError(
                    input: buffer.input.name, recordLine: recordLine,
                    lineOf: { recordLine + countNewlines(base, from: start, to: $0) },
                    offsetOf: { [buffer] in buffer.absoluteOffset($0 == 0 ? start : $0) }, field: scanner.currentField)
            }
            do {
                try buffer.checkRecordSize(from: buffer.start, to: scanner.index, line: line)
            } catch {
                batch.discardRow()
                throw error
            }
            batch.commitRow(line: line, byteOffset: buffer.absoluteOffset(buffer.start))
            if keepRaw {
                batch.appendRaw(UnsafeRawBufferPointer(start: buffer.storage + buffer.start, count: scanner.index - buffer.start))
            }
            line += countNewlines(buffer.storage, from: buffer.start, to: scanner.index)
            buffer.start = scanner.index
            return
        }
    }
}
