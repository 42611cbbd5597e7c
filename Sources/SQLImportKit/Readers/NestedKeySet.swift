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

    /// Objects with more keys than this are looked up by hash (`hashed`), not scanned: a
    /// record's map of 40,000 keys took seconds.
    private static let scanLimit = 32
    /// For each large object open (by its mark): its keys' indexes by their hash.
    private var hashed: [Int: [Int: [Int]]] = [:]

    /// Forgets the keys of the object opened at `mark` (and of any inside it).
    @inline(__always)
    func close(_ mark: Int) {
        keyCount = mark
        byteCount = mark == 0 ? 0 : ends[mark - 1]
        if !hashed.isEmpty { hashed = hashed.filter { $0.key < mark } }
    }

    @inline(__always) private func start(of index: Int) -> Int { index == 0 ? 0 : ends[index - 1] }

    private static func hash(_ key: UnsafeRawBufferPointer) -> Int {
        var hasher = Hasher()
        hasher.combine(bytes: key)
        return hasher.finalize()
    }

    @inline(__always)
    private func equals(_ index: Int, _ key: UnsafeRawBufferPointer) -> Bool {
        let start = start(of: index)
        guard ends[index] - start == key.count else { return false }
        guard key.count > 0 else { return true }
        // The first byte first: most keys differ there, and a call to memcmp costs more.
        return bytes[start] == key[0] && memcmp(bytes + start, key.baseAddress!, key.count) == 0
    }

    /// Adds a key of the object opened at `mark`; false when it has that key already.
    func insert(_ key: UnsafeRawBufferPointer, object mark: Int) -> Bool {
        let large = keyCount - mark >= Self.scanLimit
        var keyHash = 0
        if large {
            if hashed[mark] == nil {
                var table: [Int: [Int]] = [:]
                for index in mark ..< keyCount {
                    table[Self.hash(UnsafeRawBufferPointer(start: bytes + start(of: index), count: ends[index] - start(of: index))), default: []].append(index)
                }
                hashed[mark] = table
            }
            keyHash = Self.hash(key)
            if let candidates = hashed[mark]?[keyHash], candidates.contains(where: { equals($0, key) }) { return false }
        } else {
            var index = mark
            while index < keyCount {
                if equals(index, key) { return false }
                index += 1
            }
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
        if large { hashed[mark]?[keyHash, default: []].append(keyCount) }
        keyCount += 1
        return true
    }
}
