/// UTF-8 validation as the readers need it: byte by byte, over a buffer that may end
/// in the middle of a character.
enum UTF8Validation {
    enum Result {
        /// A well-formed character of this many bytes.
        case valid(Int)
        /// The buffer ends inside the character.
        case incomplete
        case invalid
    }

    /// Checks the multi-byte character starting at `base[index]` (a byte >= 0x80).
    /// Rejects overlong forms, surrogates (U+D800–DFFF) and code points above U+10FFFF.
    @inline(__always)
    static func validateSequence(_ base: UnsafePointer<UInt8>, _ index: Int, _ end: Int) -> Result {
        let lead = base[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2 ... 0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1 ... 0xEC, 0xEE ... 0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1 ... 0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return .invalid
        }
        var offset = 1
        while offset < length {
            if index + offset >= end { return .incomplete }
            let byte = base[index + offset]
            if offset == 1 {
                if byte < low || byte > high { return .invalid }
            } else if byte & 0xC0 != 0x80 {
                return .invalid
            }
            offset += 1
        }
        return .valid(length)
    }

    /// Appends the UTF-8 encoding of a scalar value.
    @inline(__always)
    static func append(_ scalar: UInt32, to bytes: ByteStore) {
        switch scalar {
        case 0 ..< 0x80:
            bytes.append(UInt8(scalar))
        case 0x80 ..< 0x800:
            bytes.append(UInt8(0xC0 | (scalar >> 6)))
            bytes.append(UInt8(0x80 | (scalar & 0x3F)))
        case 0x800 ..< 0x10000:
            bytes.append(UInt8(0xE0 | (scalar >> 12)))
            bytes.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (scalar & 0x3F)))
        default:
            bytes.append(UInt8(0xF0 | (scalar >> 18)))
            bytes.append(UInt8(0x80 | ((scalar >> 12) & 0x3F)))
            bytes.append(UInt8(0x80 | ((scalar >> 6) & 0x3F)))
            bytes.append(UInt8(0x80 | (scalar & 0x3F)))
        }
    }
}
