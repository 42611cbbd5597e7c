#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The decoded keys of the nested JSON objects being copied as JSON text, innermost
/// object last, so that a key that appears twice in one object is refused. RFC 8259
/// leaves such an object's meaning open, and its readers disagree: SQLite's JSON
/// functions read the first value, PostgreSQL's `jsonb`, Python and JavaScript the last.
/// (A record's own fields keep the last value, as documented; they are columns.)
///
/// One set serves a reader for all its records, and its storage is kept between
/// objects: raw buffers, since every nested key of every record passes through here.
final class NestedKeySet {
    private var bytes: UnsafeMutablePointer<UInt8>
    private var byteCount = 0
    private var byteCapacity = 1024
    /// The end offset in `bytes` of each key.
    private var ends: UnsafeMutablePointer<Int>
    private var keyCount = 0
    private var keyCapacity = 64

    init() {
        bytes = .allocate(capacity: byteCapacity)
        ends = .allocate(capacity: keyCapacity)
    }

    deinit {
        bytes.deallocate()
        ends.deallocate()
    }

    /// Starts an object; returns its mark for `insert` and `close`.
    @inline(__always)
    func open() -> Int { keyCount }

    /// Forgets the keys of the object opened at `mark` (and of any inside it).
    @inline(__always)
    func close(_ mark: Int) {
        keyCount = mark
        byteCount = mark == 0 ? 0 : ends[mark - 1]
    }

    /// Adds a key of the object opened at `mark`; false when it has that key already.
    func insert(_ key: UnsafeRawBufferPointer, object mark: Int) -> Bool {
        var start = mark == 0 ? 0 : ends[mark - 1]
        var index = mark
        while index < keyCount {
            let end = ends[index]
            if end - start == key.count && (key.count == 0 || memcmp(bytes + start, key.baseAddress!, key.count) == 0) {
                return false
            }
            start = end
            index += 1
        }
        if byteCount + key.count > byteCapacity {
            byteCapacity = max(byteCapacity * 2, byteCount + key.count)
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: byteCapacity)
            grown.update(from: bytes, count: byteCount)
            bytes.deallocate()
            bytes = grown
        }
        if keyCount == keyCapacity {
            keyCapacity *= 2
            let grown = UnsafeMutablePointer<Int>.allocate(capacity: keyCapacity)
            grown.update(from: ends, count: keyCount)
            ends.deallocate()
            ends = grown
        }
        if key.count > 0 { (bytes + byteCount).update(from: key.baseAddress!.assumingMemoryBound(to: UInt8.self), count: key.count) }
        byteCount += key.count
        ends[keyCount] = byteCount
        keyCount += 1
        return true
    }
}
