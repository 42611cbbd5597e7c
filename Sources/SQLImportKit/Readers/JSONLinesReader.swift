#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// JSON Lines: one object per line, blank lines skipped, CRLF accepted. A final line
/// without a newline is a record like any other.
final class JSONLinesReader: RecordReader {
    private let buffer: InputBuffer
    private let options: ReaderOptions
    private let namer: ColumnNamer
    private let keepRaw: Bool
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

    func fill(_ batch: RecordBatch, maxRows: Int, maxBytes: Int) throws(ReaderError) -> Bool {
        do {
            return try fillBatch(batch, maxRows: maxRows, maxBytes: maxBytes)
        } catch {
            throw error.inRecord(startingOnLine: line)
        }
    }

    private func fillBatch(_ batch: RecordBatch, maxRows: Int, maxBytes: Int) throws(ReaderError) -> Bool {
        var searchFrom = buffer.start
        while batch.recordCount < maxRows && batch.bytes.count < maxBytes {
            let base = buffer.storage
            var lineEnd: Int
            if let found = memchr(base + searchFrom, 0x0A, buffer.recordWindowEnd - searchFrom) {
                lineEnd = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - UnsafePointer(base)
            } else {
                // A line that cannot be a record is refused at its first bytes, before the
                // rest of it is buffered: a decompression bomb of zeros or a binary file
                // costs a chunk of memory, not --max-record-bytes.
                if try refuseEarly(batch) {
                    searchFrom = buffer.start
                    continue
                }
                var shift = 0
                let pendingEnd = buffer.end
                if try buffer.refill(shift: &shift) {
                    searchFrom = pendingEnd - shift
                    continue
                }
                searchFrom = buffer.end - shift
                if buffer.start == buffer.end {
                    batch.inputBytesConsumed = bytesConsumed
                    return false
                }
                lineEnd = buffer.end
            }
            let next = lineEnd + 1
            // Not `base`: a refill that found the end of input may have moved the storage.
            if lineEnd > buffer.start, buffer.storage[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            try buffer.checkRecordSize(from: buffer.start, to: lineEnd, line: line)
            try parseLine(batch, from: buffer.start, to: lineEnd)
            buffer.start = min(next, buffer.end)
            searchFrom = buffer.start
            line += 1
        }
        batch.inputBytesConsumed = bytesConsumed
        return true
    }

    /// Looks at the start of a line whose end is not in the buffer yet. A first byte
    /// other than a blank that is not `{`
    /// makes the line a bad record now: the parse of what is buffered fails at that byte,
    /// as the parse of the whole line does (JSON Lines does not validate a non-object),
    /// and the rest of the line is skipped without being kept. Returns true when it
    /// consumed the line.
    private func refuseEarly(_ batch: RecordBatch) throws(ReaderError) -> Bool {
        var index = buffer.start
        while index < buffer.end, [0x20, 0x09, 0x0D].contains(buffer.storage[index]) { index += 1 }
        guard index < buffer.end else { return false }
        guard buffer.storage[index] != UInt8(ascii: "{") else { return false }
        try parseLine(batch, from: buffer.start, to: buffer.end)  // throws, or sets the record aside
        // Skip to the end of the line, a chunk at a time. The line may end past the record
        // window (`recordWindowEnd`) but inside what is buffered: look there first.
        if let found = memchr(buffer.storage + buffer.start, 0x0A, buffer.end - buffer.start) {
            buffer.start = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - UnsafePointer(buffer.storage) + 1
            line += 1
            return true
        }
        while true {
            buffer.start = buffer.end
            var shift = 0
            let more = try buffer.refill(shift: &shift)
            if let found = memchr(buffer.storage + buffer.start, 0x0A, buffer.end - buffer.start) {
                buffer.start = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - UnsafePointer(buffer.storage) + 1
                break
            }
            if !more && buffer.atEOF {
                buffer.start = buffer.end
                break
            }
        }
        line += 1
        return true
    }

    private func parseLine(_ batch: RecordBatch, from: Int, to: Int) throws(ReaderError) {
        let lineBuffer = UnsafeBufferPointer(start: buffer.storage + from, count: to - from)
        var scanner = JSONScanner(lineBuffer, endIsFinal: true, maxDepth: options.maxDepth, flatten: options.flatten, keys: keys, nestedKeys: nestedKeys)
        scanner.skipWhitespace()
        if scanner.index == lineBuffer.count { return }  // blank line
        batch.beginRow()
        do throws(JSONScanner.Failure) {
            try scanner.parseRecord(into: batch, namer: namer, validatesNonObjects: false)
            scanner.skipWhitespace()
            if scanner.index != lineBuffer.count {
                throw JSONScanner.Failure.syntax(
                    "unexpected \(JSONScanner.describe(lineBuffer[scanner.index])) after the object; JSON Lines holds one object per line",
                    at: scanner.index)
            }
        } catch {
            batch.discardRow()
            let recordLine = line
            let failure = error.readerError(
                input: buffer.input.name, recordLine: recordLine, lineOf: { _ in recordLine },
                offsetOf: { self.buffer.absoluteOffset(from + $0) }, field: scanner.currentField)
            // A line is a record: a bad one can be set aside and reading goes on.
            guard options.skipBadRecords else { throw failure }
            let start = SourcePosition(input: buffer.input.name, line: recordLine, byteOffset: buffer.absoluteOffset(from))
            batch.reject(failure, at: start, raw: UnsafeRawBufferPointer(lineBuffer))
            return
        }
        batch.commitRow(line: line, byteOffset: buffer.absoluteOffset(from))
        if keepRaw { batch.appendRaw(UnsafeRawBufferPointer(lineBuffer)) }
    }
}
