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
    static let chunkSize = 1 << 20

    init(input: InputSource, maxRecordBytes: Int) {
        self.input = input
        self.maxRecordBytes = maxRecordBytes
        capacity = Self.chunkSize * 2
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    var available: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: end) }

    @inline(__always) func absoluteOffset(_ index: Int) -> Int64 { storageOffset + Int64(index) }

    /// Reads more bytes after `end`, keeping `[start, end)`. Returns false at the end of
    /// the stream. Indexes into the buffer shift by the returned `shift` (subtract it).
    @discardableResult
    func refill(shift: inout Int) throws(ReaderError) -> Bool {
        shift = 0
        if atEOF { return false }
        if start > 0 {
            let pending = end - start
            if pending > 0 { memmove(storage, storage + start, pending) }
            storageOffset += Int64(start)
            shift = start
            end = pending
            start = 0
        }
        if capacity - end < Self.chunkSize / 2 {
            if end >= maxRecordBytes {
                throw .recordTooLarge(SourcePosition(input: input.name, line: 0, byteOffset: storageOffset), limit: maxRecordBytes)
            }
            let newCapacity = min(capacity * 2, maxRecordBytes + Self.chunkSize)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
            grown.update(from: storage, count: end)
            storage.deallocate()
            storage = grown
            capacity = newCapacity
        }
        let count: Int
        do {
            count = try input.source.read(into: UnsafeMutableRawBufferPointer(start: storage + end, count: capacity - end))
        } catch {
            throw .input(error)
        }
        if count == 0 {
            atEOF = true
            return false
        }
        end += count
        return true
    }

    /// Skips a UTF-8 byte order mark at the very start of the stream.
    func skipByteOrderMark() throws(ReaderError) {
        var shift = 0
        while end - start < 3, try refill(shift: &shift) {}
        if end - start >= 3, storage[start] == 0xEF, storage[start + 1] == 0xBB, storage[start + 2] == 0xBF {
            start += 3
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
