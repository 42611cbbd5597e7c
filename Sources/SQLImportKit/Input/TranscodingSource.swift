/// The character encoding of an input (`--encoding`). Readers take UTF-8; other
/// encodings are transcoded to it while streaming, so that positions (lines, byte
/// offsets) count the UTF-8 text.
public enum TextEncoding: String, Sendable, CaseIterable {
    case utf8 = "utf-8"
    /// ISO-8859-1: each byte is the code point of the same number.
    case latin1 = "latin1"
    /// Windows-1252: Latin-1 but for 0x80–0x9F, which hold €, curly quotes, dashes and a
    /// few letters (the five unassigned bytes map to the C1 controls, as WHATWG does).
    case windows1252 = "windows-1252"
    /// UTF-16 with a byte order mark; little-endian without one (as Windows writes it).
    case utf16 = "utf-16"
    case utf16LittleEndian = "utf-16le"
    case utf16BigEndian = "utf-16be"

    /// Parses `--encoding`, ignoring case and the usual aliases.
    public init?(argument: String) {
        switch argument.lowercased().replacingOccurrences(of: "_", with: "-") {
        case "utf-8", "utf8": self = .utf8
        case "latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1": self = .latin1
        case "windows-1252", "cp1252", "win-1252": self = .windows1252
        case "utf-16", "utf16": self = .utf16
        case "utf-16le", "utf16le": self = .utf16LittleEndian
        case "utf-16be", "utf16be": self = .utf16BigEndian
        default: return nil
        }
    }
}

/// Transcodes a byte stream from `encoding` to UTF-8, a chunk at a time. Hand-written
/// because Foundation's `String(data:encoding:)` needs the whole input in memory, and
/// iconv is not in the toolchain on every platform; the three encodings it knows are
/// the ones exported CSV files come in.
final class TranscodingSource: ByteSource {
    private let base: ByteSource
    private let name: String
    private var encoding: TextEncoding
    private var input: [UInt8]
    private var inputStart = 0
    private var inputEnd = 0
    private var atEnd = false
    /// Bytes of UTF-8 made but not yet handed out (at most 4).
    private var pending: [UInt8] = []
    /// A high surrogate waiting for its low half.
    private var highSurrogate: UInt32?
    /// Input bytes consumed before `input[0]`, for error positions.
    private var consumedBefore: Int64 = 0
    private var sawFirstBytes = false

    init(base: ByteSource, name: String, encoding: TextEncoding) {
        self.base = base
        self.name = name
        self.encoding = encoding
        input = [UInt8](repeating: 0, count: 1 << 16)
    }

    var rawBytesConsumed: Int64 { base.rawBytesConsumed }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        var written = 0
        while written < buffer.count {
            if !pending.isEmpty {
                let count = min(pending.count, buffer.count - written)
                for index in 0 ..< count { buffer[written + index] = pending[index] }
                pending.removeFirst(count)
                written += count
                continue
            }
            guard try ensureInput(atLeast: unitSize) else { break }
            // Decode as many whole units as fit.
            while written + 4 <= buffer.count, inputEnd - inputStart >= unitSize {
                guard let scalar = try nextScalar() else { continue }
                written += Self.encode(scalar, into: buffer, at: written)
            }
            if written + 4 > buffer.count, inputEnd - inputStart >= unitSize, written < buffer.count {
                // Too little room for a whole character: keep it for the next call.
                if let scalar = try nextScalar() {
                    var bytes: [UInt8] = []
                    Self.appendUTF8(scalar, to: &bytes)
                    pending = bytes
                }
            }
            if written > 0 { break }
        }
        return written
    }

    private var unitSize: Int {
        switch encoding {
        case .utf16, .utf16LittleEndian, .utf16BigEndian: return 2
        default: return 1
        }
    }

    /// Makes at least `count` input bytes available; false at the end of the input.
    private func ensureInput(atLeast count: Int) throws(InputError) -> Bool {
        while inputEnd - inputStart < count {
            if atEnd {
                if inputEnd > inputStart {
                    throw .undecodable(
                        input: name, encoding: encoding.rawValue, byteOffset: consumedBefore + Int64(inputStart),
                        reason: "the input ends in the middle of a UTF-16 code unit")
                }
                if highSurrogate != nil {
                    throw .undecodable(
                        input: name, encoding: encoding.rawValue, byteOffset: consumedBefore + Int64(inputStart), reason: "the input ends after a lone high surrogate")
                }
                return false
            }
            if inputStart > 0 {
                let remaining = inputEnd - inputStart
                for index in 0 ..< remaining { input[index] = input[inputStart + index] }
                consumedBefore += Int64(inputStart)
                inputStart = 0
                inputEnd = remaining
            }
            let end = inputEnd
            var failure: InputError?
            let count = input.withUnsafeMutableBytes { bytes -> Int in
                do {
                    return try base.read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[end...]))
                } catch {
                    failure = error as? InputError ?? .unreadable(path: name, reason: "\(error)")
                    return 0
                }
            }
            if let failure { throw failure }
            if count == 0 { atEnd = true }
            inputEnd += count
            if !sawFirstBytes && (inputEnd >= 2 || atEnd) { sawFirstBytes = true; try takeByteOrderMark() }
        }
        return true
    }

    /// A UTF-16 byte order mark picks the byte order and is dropped. A mark of the other
    /// order than `--encoding` names is refused: read in the named order it is U+FFFE, no
    /// character, and the rest of the input would decode to garbage (one long header).
    private func takeByteOrderMark() throws(InputError) {
        guard unitSize == 2, inputEnd - inputStart >= 2 else { return }
        let (first, second) = (input[inputStart], input[inputStart + 1])
        let littleEndianMark = first == 0xFF && second == 0xFE
        let bigEndianMark = first == 0xFE && second == 0xFF
        if littleEndianMark && encoding == .utf16BigEndian || bigEndianMark && encoding == .utf16LittleEndian {
            let named = littleEndianMark ? "utf-16le" : "utf-16be"
            throw .undecodable(
                input: name, encoding: encoding.rawValue, byteOffset: consumedBefore + Int64(inputStart),
                reason: "its byte order mark says \(named); pass --encoding \(named), or utf-16 to follow the mark")
        }
        if littleEndianMark {
            encoding = .utf16LittleEndian
            inputStart += 2
        } else if bigEndianMark {
            encoding = .utf16BigEndian
            inputStart += 2
        } else if encoding == .utf16 {
            encoding = .utf16LittleEndian
        }
    }

    /// The next code point, or nil when a high surrogate was taken and waits for its pair.
    private func nextScalar() throws(InputError) -> UInt32? {
        let offset = consumedBefore + Int64(inputStart)
        switch encoding {
        case .latin1, .utf8:
            defer { inputStart += 1 }
            return UInt32(input[inputStart])
        case .windows1252:
            defer { inputStart += 1 }
            let byte = input[inputStart]
            guard byte >= 0x80 && byte <= 0x9F else { return UInt32(byte) }
            return Self.windows1252High[Int(byte - 0x80)]
        case .utf16, .utf16LittleEndian, .utf16BigEndian:
            let (a, b) = (UInt32(input[inputStart]), UInt32(input[inputStart + 1]))
            inputStart += 2
            let unit = encoding == .utf16BigEndian ? a << 8 | b : b << 8 | a
            if let high = highSurrogate {
                guard unit >= 0xDC00 && unit <= 0xDFFF else {
                    throw .undecodable(input: name, encoding: encoding.rawValue, byteOffset: offset - 2, reason: "a high surrogate without its low half")
                }
                highSurrogate = nil
                return 0x10000 + ((high - 0xD800) << 10) + (unit - 0xDC00)
            }
            if unit >= 0xD800 && unit <= 0xDBFF {
                highSurrogate = unit
                return nil
            }
            if unit >= 0xDC00 && unit <= 0xDFFF {
                throw .undecodable(input: name, encoding: encoding.rawValue, byteOffset: offset, reason: "a low surrogate without its high half")
            }
            return unit
        }
    }

    /// Windows-1252's 0x80–0x9F.
    static let windows1252High: [UInt32] = [
        0x20AC, 0x81, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x8D, 0x017D, 0x8F,
        0x90, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x9D, 0x017E, 0x0178,
    ]

    private static func encode(_ scalar: UInt32, into buffer: UnsafeMutableRawBufferPointer, at index: Int) -> Int {
        switch scalar {
        case 0 ..< 0x80:
            buffer[index] = UInt8(scalar)
            return 1
        case 0x80 ..< 0x800:
            buffer[index] = UInt8(0xC0 | scalar >> 6)
            buffer[index + 1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case 0x800 ..< 0x10000:
            buffer[index] = UInt8(0xE0 | scalar >> 12)
            buffer[index + 1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            buffer[index + 2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            buffer[index] = UInt8(0xF0 | scalar >> 18)
            buffer[index + 1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            buffer[index + 2] = UInt8(0x80 | scalar >> 6 & 0x3F)
            buffer[index + 3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }

    private static func appendUTF8(_ scalar: UInt32, to bytes: inout [UInt8]) {
        var scratch = [UInt8](repeating: 0, count: 4)
        let count = scratch.withUnsafeMutableBytes { encode(scalar, into: $0, at: 0) }
        bytes.append(contentsOf: scratch[0 ..< count])
    }
}
