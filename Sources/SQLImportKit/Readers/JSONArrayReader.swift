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
    private let nestedKeys = NestedKeySet()

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
                if let path = options.path {
                    try descend(path)
                    state = .firstElement
                    continue
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
                // With --path, the rest of the enclosing document is not read.
                guard let byte, options.path == nil else {
                    batch.inputBytesConsumed = bytesConsumed
                    return false
                }
                throw .malformedRecord(position, field: nil, reason: "unexpected \(JSONScanner.describe(byte)) after the end of the JSON document; use --format jsonl for one object per line")
            }
        }
        batch.inputBytesConsumed = bytesConsumed
        return true
    }

    /// Moves `buffer.start` past the `[` of the array at `path` (`--path data.items`):
    /// through each object to its member of that name, other members' values skipped
    /// (each one read whole, within --max-record-bytes), so that the array's elements
    /// then stream as a top-level array's do.
    private func descend(_ path: [String]) throws(ReaderError) {
        let wanted = path.joined(separator: ".")
        for (depth, component) in path.enumerated() {
            guard let open = try nextSignificantByte(), open == UInt8(ascii: "{") else {
                throw .malformedRecord(
                    position, field: nil,
                    reason: "--path \(wanted): expected an object at \(path[..<depth].joined(separator: ".").isEmpty ? "the top of the document" : path[..<depth].joined(separator: "."))")
            }
            buffer.start += 1
            var first = true
            while true {
                guard let byte = try nextSignificantByte() else {
                    throw .malformedRecord(position, field: nil, reason: "--path \(wanted): the document ends before its key \(SQLIdentifier.quote(component))")
                }
                if byte == UInt8(ascii: "}") {
                    throw .malformedRecord(position, field: nil, reason: "--path \(wanted): the object has no key \(SQLIdentifier.quote(component))")
                }
                if !first {
                    guard byte == UInt8(ascii: ",") else {
                        throw .malformedRecord(position, field: nil, reason: "--path \(wanted): expected ',' between members, found \(JSONScanner.describe(byte))")
                    }
                    buffer.start += 1
                    _ = try nextSignificantByte()
                }
                first = false
                if try member(named: component) { break }
            }
        }
        guard try nextSignificantByte() == UInt8(ascii: "[") else {
            throw .malformedRecord(position, field: nil, reason: "--path \(wanted): expected an array there")
        }
        buffer.start += 1
    }

    /// Reads the member at `buffer.start`: true, past its `:`, when its key is `name`;
    /// false, past its value, otherwise.
    private func member(named name: String) throws(ReaderError) -> Bool {
        var shift = 0
        let key = ByteStore(capacity: 64)
        while true {
            // (A member skipped on the way to --path is not stored: its keys are not checked.)
            var scanner = JSONScanner(
                buffer.recordWindow, start: buffer.start, endIsFinal: buffer.recordWindowIsFinal, maxDepth: options.maxDepth, keys: keys, nestedKeys: nil)
            key.removeAll()
            do throws(JSONScanner.Failure) {
                guard try scanner.peek() == UInt8(ascii: "\"") else {
                    throw JSONScanner.Failure.syntax("expected a key, found \(JSONScanner.describe(try scanner.peek()))", at: scanner.index)
                }
                try scanner.scanString(decodingInto: key)
                scanner.skipWhitespace()
                try scanner.expect(UInt8(ascii: ":"), "':' after the key")
                let matches = NameKey(key.string(0 ..< key.count)) == NameKey(name)
                if !matches {
                    scanner.skipWhitespace()
                    try scanner.copyValue(into: ByteStore(capacity: 64), depth: 1)
                }
                line += countNewlines(buffer.storage, from: buffer.start, to: scanner.index)
                buffer.start = scanner.index
                return matches
            } catch .needMoreData {
                if try buffer.refill(shift: &shift) { continue }
                continue  // now at EOF: the next pass reports the truncation
            } catch {
                let start = buffer.start
                let base = buffer.storage
                let recordLine = line
                throw error.readerError(
                    input: buffer.input.name, recordLine: recordLine, lineOf: { recordLine + countNewlines(base, from: start, to: $0) },
                    offsetOf: { [buffer] in buffer.absoluteOffset($0) }, field: nil)
            }
        }
    }

    /// Parses the element at `buffer.start`, reading more input until it is whole.
    private func readElement(_ batch: RecordBatch) throws(ReaderError) {
        var shift = 0
        while true {
            var scanner = JSONScanner(
                buffer.recordWindow, start: buffer.start, endIsFinal: buffer.recordWindowIsFinal,
                maxDepth: options.maxDepth, flatten: options.flatten, keys: keys, nestedKeys: nestedKeys)
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
