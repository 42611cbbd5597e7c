#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A window over a decompressed byte stream, refilled in large chunks.
///
/// Readers consume from `start`; `refill()` moves the unconsumed bytes (at most one
/// partial record) to the front and reads another chunk after them. The window grows
/// only when a single record is larger than it, and never past `maxRecordBytes`, so
/// memory is bounded by the largest record, not by the input.
final class InputBuffer {
    let input: InputSource
    let maxRecordBytes: Int
    private(set) var storage: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    var start = 0
    private(set) var end = 0
    private(set) var atEOF = false
    /// Absolute stream offset of `storage[0]`.
    private(set) var storageOffset: Int64 = 0
    /// The size of a read (the window starts at two); 1 MiB outside tests.
    let chunkSize: Int

    init(input: InputSource, maxRecordBytes: Int, chunkSize: Int = 1 << 20) {
        self.input = input
        self.maxRecordBytes = maxRecordBytes
        self.chunkSize = max(chunkSize, 16)
        capacity = self.chunkSize * 2
        storage = malloc(capacity)!.assumingMemoryBound(to: UInt8.self)
    }

    deinit { free(storage) }

    @inline(__always) func absoluteOffset(_ index: Int) -> Int64 { storageOffset + Int64(index) }

    /// Reads more bytes after `end`, keeping `[start, end)`. Returns false when the stream
    /// had no more bytes (`atEOF` may also turn true on a call that read some). Indexes
    /// into the buffer shift by the returned `shift` (subtract it).
    @discardableResult
    func refill(shift: inout Int) throws(ReaderError) -> Bool {
        shift = 0
        // The reader looked at the whole record window without finding the record's end.
        if end - start >= maxRecordBytes + 2 {
            throw .recordTooLarge(SourcePosition(input: input.name, line: 0, byteOffset: absoluteOffset(start)), limit: maxRecordBytes)
        }
        if atEOF { return false }
        if start > 0 {
            let pending = end - start
            if pending > 0 { memmove(storage, storage + start, pending) }
            storageOffset += Int64(start)
            shift = start
            end = pending
            start = 0
        }
        if capacity - end < chunkSize / 2 {
            // realloc: a large block grows in place (mremap), so a record at the limit
            // costs about the limit, not the old block and the new one together.
            let newCapacity = min(capacity * 2, maxRecordBytes + chunkSize)
            guard let grown = realloc(storage, newCapacity) else {
                throw .recordTooLarge(SourcePosition(input: input.name, line: 0, byteOffset: absoluteOffset(start)), limit: maxRecordBytes)
            }
            storage = grown.assumingMemoryBound(to: UInt8.self)
            capacity = newCapacity
        }
        // Readers parse a record that needs more bytes again from its start. Reading at
        // least as many new bytes as are pending keeps that linear in the record's size,
        // even from a pipe that hands out 64 KiB per read.
        let wanted = end >= chunkSize ? end : 1
        var added = 0
        while added < wanted, end < capacity {
            let count: Int
            do {
                count = try input.source.read(into: UnsafeMutableRawBufferPointer(start: storage + end, count: capacity - end))
            } catch {
                throw .input(error)
            }
            if count == 0 {
                atEOF = true
                break
            }
            end += count
            added += count
        }
        return added > 0
    }

    // MARK: - The record size limit

    /// Where a reader stops looking for the end of the record that starts at `start`:
    /// `maxRecordBytes` and a CRLF after them. A reader that needs bytes past it refills,
    /// and the refill refuses the record. Readers look at the same bytes however the
    /// input arrives (one large read from a file, 64 KiB reads from a pipe), so they
    /// accept and refuse the same records.
    @inline(__always) var recordWindowEnd: Int {
        end - start > maxRecordBytes + 2 ? start + maxRecordBytes + 2 : end
    }

    /// The bytes from `storage[0]` to `recordWindowEnd`.
    var recordWindow: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: recordWindowEnd) }

    /// True when the input ends inside the window. A full window is never final: the
    /// reader asks for more, and the refill refuses the record.
    @inline(__always) var recordWindowIsFinal: Bool { atEOF && end - start < maxRecordBytes + 2 }

    /// Refuses a record whose bytes `[from, to)` (its line end left out) are more than
    /// `maxRecordBytes`.
    @inline(__always) func checkRecordSize(from: Int, to: Int, line: Int) throws(ReaderError) {
        if to - from > maxRecordBytes {
            throw .recordTooLarge(SourcePosition(input: input.name, line: line, byteOffset: absoluteOffset(from)), limit: maxRecordBytes)
        }
    }

    /// Skips a UTF-8 byte order mark at the very start of the stream. A second one right
    /// after it is refused: it would begin the first field's name with an invisible
    /// U+FEFF (a new table got a column `"\u{FEFF}id"`, and an existing one was told to
    /// add it with --alter).
    func skipByteOrderMark() throws(ReaderError) {
        var shift = 0
        while end - start < 6, try refill(shift: &shift) {}
        func isMark(at index: Int) -> Bool {
            end - index >= 3 && storage[index] == 0xEF && storage[index + 1] == 0xBB && storage[index + 2] == 0xBF
        }
        guard isMark(at: start) else { return }
        start += 3
        if isMark(at: start) {
            throw .malformedRecord(
                SourcePosition(input: input.name, line: 1, byteOffset: absoluteOffset(start)), field: nil,
                reason: "a second byte order mark (EF BB BF) follows the first, and would begin the first field's name with an invisible U+FEFF; the file was given a byte order mark twice: remove one (sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)")
        }
    }
}

@inline(__always)
func countNewlines(_ base: UnsafePointer<UInt8>, from: Int, to: Int) -> Int {
    var count = 0
    var index = from
    while index < to {
        guard let found = memchr(base + index, 0x0A, to - index) else { break }
        count += 1
        index = UnsafePointer<UInt8>(found.assumingMemoryBound(to: UInt8.self)) - base + 1
    }
    return count
}
