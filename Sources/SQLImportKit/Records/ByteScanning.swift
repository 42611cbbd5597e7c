/// Word-at-a-time byte tests ("SWAR"): eight bytes per step instead of one, to skip runs
/// of bytes that need no attention in the readers' hot loops.
enum ByteScanning {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The word at `pointer`, unaligned.
    @inline(__always) static func word(at pointer: UnsafePointer<UInt8>) -> UInt64 {
        UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self)
    }

    /// Non-zero in the high bit of some byte when a byte of `word` equals `byte` (it may
    /// also flag a byte after a match; callers only need to know whether to stop).
    @inline(__always) static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let difference = word ^ (ones &* UInt64(byte))
        return (difference &- ones) & ~difference & highs
    }

    /// Non-zero when a byte of `word` is below 0x20 or at least 0x80.
    @inline(__always) static func controlOrNonASCII(_ word: UInt64) -> UInt64 {
        ((word &- ones &* 0x20) | word) & highs
    }

    /// Non-zero when a byte of `word` is at least 0x80.
    @inline(__always) static func nonASCII(_ word: UInt64) -> UInt64 {
        word & highs
    }
}
