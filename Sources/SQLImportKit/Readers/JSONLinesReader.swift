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

    private func parseLine(_ batch: RecordBatch, from: Int, to: Int) throws(ReaderError) {
        let lineBuffer = UnsafeBufferPointer(start: buffer.storage + from, count: to - from)
        var scanner = JSONScanner(lineBuffer, endIsFinal: true, maxDepth: options.maxDepth, flatten: options.flatten, keys: keys)
        scanner.skipWhitespace()
        if scanner.index == lineBuffer.count { return }  // blank line
        batch.beginRow()
        do throws(JSONScanner.Failure) {
            try scanner.parseRecord(into: batch, namer: namer)
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
