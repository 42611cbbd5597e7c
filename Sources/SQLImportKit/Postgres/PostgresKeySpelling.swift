/// How a key value is spelled for the run's own count of repeated keys
/// (`PostgresBatchPlan`), so that spellings PostgreSQL reads as one value are one key:
/// `7`, `" 7"`, `+7` and `007` into a `bigint`; a uuid in either case, with or without
/// hyphens or braces; `1`, `1.0` and `1e0` into a `numeric`, and `1.004` and `1.00` into
/// a `numeric(10,2)`. Without it, a second spelling of a key updated the first one's row
/// uncounted, and `--duplicate-keys error` let it through.
///
/// Each form follows the type's input function (PostgreSQL 15: `int8in`, `uuid_in`,
/// `numeric_in`). Text that the type, or sqlimport's own checks, would refuse keeps its
/// bytes (a leading zero, a value out of the type's range, a uuid's misplaced hyphen,
/// digits past a `numeric(p,s)`'s scale): that record is refused, never a repeat, so that
/// `--on-error skip` sets it aside as one. Other types (`citext`, collations, dates)
/// keep their bytes too, and are documented as told apart only by the server.
enum PostgresKeySpelling {
    case exact
    /// `smallint`, `integer` or `bigint`, with the type's range.
    case integer(ClosedRange<Int64>)
    case uuid
    /// `numeric`, with the precision and scale of `numeric(p,s)` when the type has them.
    case numeric(precision: Int?, scale: Int?)

    /// The spelling for a column of type `type` (`format_type`'s text).
    init(type: String) {
        let name = type.lowercased()
        switch name {
        case "smallint": self = .integer(Int64(Int16.min) ... Int64(Int16.max))
        case "integer": self = .integer(Int64(Int32.min) ... Int64(Int32.max))
        case "bigint": self = .integer(Int64.min ... Int64.max)
        case "uuid": self = .uuid
        case "numeric": self = .numeric(precision: nil, scale: nil)
        default:
            if name.hasPrefix("numeric("), name.hasSuffix(")") {
                let inside = name.dropFirst("numeric(".count).dropLast()
                let parts = inside.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard let precision = parts.first ?? nil else { self = .exact; return }
                self = .numeric(precision: precision, scale: parts.count == 2 ? parts[1] : 0)
            } else {
                self = .exact
            }
        }
    }

    /// The text a key's hash takes for `text` (a cell's bytes, or an integer's digits):
    /// one form for every spelling of one value, or nil to take the bytes as they are.
    func canonical(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        switch self {
        case .exact: return nil
        case .integer(let range): return Self.integer(text, in: range)
        case .uuid: return Self.uuid(text)
        case .numeric(let precision, let scale): return Self.numeric(text, precision: precision, scale: scale)
        }
    }

    /// PostgreSQL's `isspace` in the C locale.
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }

    /// The text between leading and trailing white space.
    private static func trimmed(_ text: UnsafeRawBufferPointer) -> ArraySlice<UInt8> {
        let bytes = Array(text)
        var start = 0, end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        return bytes[start ..< end]
    }

    /// `[-+]digits`, white space around, without a leading zero (sqlimport refuses
    /// `007`), in `range`: the value's decimal digits, `-` first.
    private static func integer(_ text: UnsafeRawBufferPointer, in range: ClosedRange<Int64>) -> [UInt8]? {
        var body = trimmed(text)
        var negative = false
        if let sign = body.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        guard !body.isEmpty, body.count <= 19, body.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), body.count == 1 || body.first != 0x30 else { return nil }
        // (Parsed negative: Int64.min has no positive twin.)
        var value: Int64 = 0
        for digit in body {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowMinus) = times.subtractingReportingOverflow(Int64(digit - 0x30))
            guard !overflowTimes, !overflowMinus else { return nil }
            value = next
        }
        if !negative {
            guard value != Int64.min else { return nil }
            value = -value
        }
        guard range.contains(value) else { return nil }
        return Array(String(value).utf8)
    }

    /// 32 hex digits, a hyphen allowed after any group of four (not first, last or
    /// twice in a row), braces around or not: the digits in lower case.
    private static func uuid(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var body = ArraySlice(Array(text))
        if body.first == UInt8(ascii: "{") {
            guard body.last == UInt8(ascii: "}") else { return nil }
            body = body.dropFirst().dropLast()
        }
        var digits: [UInt8] = []
        var afterHyphen = false
        for byte in body {
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "a") ... UInt8(ascii: "f"): digits.append(byte)
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digits.append(byte | 0x20)
            case UInt8(ascii: "-"):
                guard !digits.isEmpty, digits.count < 32, digits.count % 4 == 0, !afterHyphen else { return nil }
                afterHyphen = true
                continue
            default: return nil
            }
            afterHyphen = false
        }
        return digits.count == 32 && !afterHyphen ? digits : nil
    }

    /// `[-+]digits[.digits][e[-+]digits]`, white space around: the value as its
    /// significant digits and the power of ten of the last one (`15e-1` for `1.50`).
    /// With `numeric(p,s)`, a value with non-zero digits past the scale (which sqlimport
    /// refuses rather than round) or more than `p - s` before the point keeps its bytes.
    /// `NaN` and the infinities are one spelling each, in any case.
    private static func numeric(_ text: UnsafeRawBufferPointer, precision: Int?, scale: Int?) -> [UInt8]? {
        var body = trimmed(text)
        // A word only where a letter begins it (after a sign): no String per number.
        let isLetter = { (byte: UInt8) in (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
        let signed = body.first == UInt8(ascii: "+") || body.first == UInt8(ascii: "-")
        let word = body.dropFirst(signed ? 1 : 0).first.map(isLetter) == true ? String(decoding: body, as: UTF8.self).lowercased() : ""
        switch word {
        case "nan": return Array("NaN".utf8)
        case "inf", "infinity", "+inf", "+infinity": return precision == nil ? Array("Infinity".utf8) : nil
        case "-inf", "-infinity": return precision == nil ? Array("-Infinity".utf8) : nil
        default: break
        }
        var negative = false
        if let sign = body.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        var digits: [UInt8] = []
        var exponent = 0
        var sawDigit = false, sawPoint = false
        while let byte = body.first, (byte >= 0x30 && byte <= 0x39) || (byte == UInt8(ascii: ".") && !sawPoint) {
            body = body.dropFirst()
            if byte == UInt8(ascii: ".") { sawPoint = true; continue }
            sawDigit = true
            digits.append(byte)
            if sawPoint { exponent -= 1 }
        }
        guard sawDigit else { return nil }
        if let e = body.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            body = body.dropFirst()
            var exponentNegative = false
            if let sign = body.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                exponentNegative = sign == UInt8(ascii: "-")
                body = body.dropFirst()
            }
            guard !body.isEmpty, body.count <= 6, body.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            let value = body.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            exponent += exponentNegative ? -value : value
            body = []
        }
        guard body.isEmpty else { return nil }
        digits = Array(digits.drop { $0 == 0x30 })
        while digits.last == 0x30 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { return [0x30] }
        if let precision, let scale {
            // Digits past the scale, or before the point beyond p - s: refused.
            guard exponent >= -scale, digits.count + exponent <= precision - scale else { return nil }
        }
        var out = (negative ? [UInt8(ascii: "-")] : []) + digits + [UInt8(ascii: "e")]
        out += Array(String(exponent).utf8)
        return out
    }
}
