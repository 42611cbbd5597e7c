/// Infers a STRICT column type from the values seen, widening INTEGER → REAL → TEXT.
/// Integers that a Double does not hold (past 2^53) and reals together make TEXT, the
/// one type that holds both exactly.
///
/// - JSON integers and booleans: INTEGER; JSON floats: REAL.
/// - CSV text: INTEGER when it is an integer literal without leading zeros that fits
///   Int64, REAL when it is a decimal number, else TEXT. `007` is TEXT, so it stays `007`.
/// - Numbers kept as text (beyond Int64), nested JSON and strings: TEXT.
/// - A column with only NULLs in the sample: ANY, which stores later values as they come.
/// - A column whose every value is a BLOB marker (`{"$base64":...}`, CSV's `base64:...`,
///   as export writes a BLOB): BLOB, so that an export imported into a new table keeps
///   its bytes (it made TEXT, and the bytes became the marker's text).
struct TypeTracker {
    enum Inferred: Int, Comparable {
        case unknown, integer, real, text
        static func < (lhs: Inferred, rhs: Inferred) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private(set) var inferred = Inferred.unknown
    /// Whether the column is TEXT only because of one word that CSV/TSV files use for a
    /// missing value (`NA`, `NULL`, ...) beside numbers: that word, else nil. The run then
    /// says that `--null WORD` would type it from its numbers.
    var nullSpellingMadeText: String? { inferred == .text && sawNumber && !sawOtherText ? nullLikeText : nil }
    private var sawNumber = false
    private var sawOtherText = false
    private var nullLikeText: String?
    /// An integer that a Double does not hold (past 2^53, or `9007199254740993.0`) was
    /// seen: REAL would refuse it, so a column that also holds reals is TEXT.
    private var sawInexactInteger = false
    /// Values seen that are BLOB markers, and that are not.
    private var sawBlobMarker = false
    private var sawOtherValue = false

    mutating func observe(_ cell: Cell, bytes: UnsafeBufferPointer<UInt8>) {
        guard let kind = Self.kind(of: cell, bytes: bytes.baseAddress) else { return }
        if !sawOtherValue {
            if bytes.baseAddress.flatMap({ BlobMarker.decode(cell, bytes: $0) }) != nil { sawBlobMarker = true } else { sawOtherValue = true }
        }
        switch cell.kind {
        case .integer:
            if !NumberText.isExactDouble(cell.payload) { sawInexactInteger = true }
        case .untypedText:
            let text = Self.text(of: cell, bytes: bytes.baseAddress)
            if kind != .text, case .integer(let value) = NumberText.affinityNumber(text), !NumberText.isExactDouble(value) { sawInexactInteger = true }
            if kind == .text && !sawOtherText {
                // The spellings are at most 4 bytes: longer text needs no String.
                let word = text.count <= 4 ? String(decoding: text, as: UTF8.self) : nil
                if let word, WriteError.nullSpellings.contains(word), nullLikeText == nil || nullLikeText == word {
                    nullLikeText = word
                } else {
                    sawOtherText = true
                }
            }
        default:
            break
        }
        if kind == .text && cell.kind != .untypedText { sawOtherText = true }
        if kind != .text { sawNumber = true }
        inferred = max(inferred, kind)
        if inferred == .real && sawInexactInteger { inferred = .text }
    }

    /// What `cell` alone would make its column (nil for NULL or a missing field). A value
    /// met after the sample whose kind is above the inferred type does not fit it: the
    /// sample would have widened the column for it (`fits`).
    @inline(__always)
    static func kind(of cell: Cell, bytes: UnsafePointer<UInt8>?) -> Inferred? {
        switch cell.kind {
        case .absent, .null: return nil
        case .integer: return .integer
        case .real: return .real
        case .text, .json, .numberAsText: return .text
        case .untypedText: return classify(text(of: cell, bytes: bytes))
        }
    }

    /// Whether `cell` fits a column inferred `inferred` (INTEGER or REAL): its kind is not
    /// above it. Plain CSV numbers (`-12`, `0`, and `3.25` for REAL: an optional minus,
    /// digits without a leading zero, an optional point and digits) fit without the full
    /// parse, which most of a first load's cells would otherwise take twice.
    @inline(__always)
    static func fits(_ cell: Cell, _ inferred: Inferred, bytes: UnsafePointer<UInt8>) -> Bool {
        switch cell.kind {
        case .absent, .null, .integer: return true
        case .real: return inferred >= .real
        case .text, .json, .numberAsText: return false
        case .untypedText:
            var index = Int(cell.payload)
            let end = index + Int(cell.length)
            if index < end && bytes[index] == UInt8(ascii: "-") { index += 1 }
            let digits = index
            while index < end && bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            let integerDigits = index - digits
            if integerDigits > 0 && (integerDigits == 1 || bytes[digits] != UInt8(ascii: "0")) {
                if index == end && integerDigits <= 18 { return true }
                if inferred >= .real, index < end, bytes[index] == UInt8(ascii: ".") {
                    index += 1
                    let fraction = index
                    while index < end && bytes[index] &- UInt8(ascii: "0") < 10 { index += 1 }
                    if index == end && index > fraction { return true }
                }
            }
            return classify(text(of: cell, bytes: bytes)) <= inferred
        }
    }

    @inline(__always)
    private static func text(of cell: Cell, bytes: UnsafePointer<UInt8>?) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes.map { $0 + Int(cell.payload) }, count: Int(cell.length))
    }

    static func classify(_ text: UnsafeRawBufferPointer) -> Inferred {
        switch NumberText.parseInteger(text) {
        case .value: return .integer
        case .overflow: return .text
        case .notAnInteger:
            if NumberText.hasLeadingZero(text) { return .text }
            if NumberText.isNumberSyntax(text), let value = NumberText.parseDouble(text) {
                // `9007199254740993.0` is the integer it spells (as JSON reads it), past
                // Int64 text, like an integer literal.
                switch NumberText.inexactWholeNumber(text, rounded: value) {
                case nil: return .real
                case .value?: return .integer
                default: return .text
                }
            }
            return .text
        }
    }

    var declaredType: String {
        if sawBlobMarker && !sawOtherValue { return "BLOB" }
        switch inferred {
        case .unknown: return "ANY"
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        }
    }
}
