/// How a key value is spelled for the run's own count of repeated keys
/// (`PostgresBatchPlan`), so that spellings PostgreSQL reads as one value are one key:
/// `7`, `" 7"`, `+7` and `007` into a `bigint`; a uuid in either case, with or without
/// hyphens or braces; `1`, `1.0` and `1e0` into a `numeric`, and `1.004` and `1.00` into
/// a `numeric(10,2)`. Without it, a second spelling of a key updated the first one's row
/// uncounted, and `--duplicate-keys error` let it through.
///
/// Each form follows the type's input function (PostgreSQL 15: `int8in`, `uuid_in`,
/// `numeric_in`). Text the type would refuse keeps its bytes: the server refuses the
/// record anyway. Other types (`citext`, collations, dates) keep their bytes too, and
/// are documented as told apart only by the server.
enum PostgresKeySpelling {
    case exact
    case integer
    case uuid
    /// `numeric`, with the scale of `numeric(p,s)` when the type has one.
    case numeric(scale: Int?)

    /// The spelling for a column of type `type` (`format_type`'s text).
    init(type: String) {
        let name = type.lowercased()
        switch name {
        case "smallint", "integer", "bigint": self = .integer
        case "uuid": self = .uuid
        case "numeric": self = .numeric(scale: nil)
        default:
            if name.hasPrefix("numeric("), name.hasSuffix(")") {
                let inside = name.dropFirst("numeric(".count).dropLast()
                let parts = inside.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                self = .numeric(scale: parts.count == 2 ? Int(parts[1]) : 0)
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
        case .integer: return Self.integer(text)
        case .uuid: return Self.uuid(text)
        case .numeric(let scale): return Self.numeric(text, scale: scale)
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

    /// `[-+]digits`, white space around: the value's decimal digits, `-` first.
    private static func integer(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var body = trimmed(text)
        var negative = false
        if let sign = body.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            negative = sign == UInt8(ascii: "-")
            body = body.dropFirst()
        }
        guard !body.isEmpty, body.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let digits = Array(body.drop { $0 == 0x30 })
        if digits.isEmpty { return [0x30] }
        return (negative ? [UInt8(ascii: "-")] : []) + digits
    }

    /// 32 hex digits, in groups joined by hyphens, braces around or not: the digits in
    /// lower case.
    private static func uuid(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var body = ArraySlice(Array(text))
        if body.first == UInt8(ascii: "{") {
            guard body.last == UInt8(ascii: "}") else { return nil }
            body = body.dropFirst().dropLast()
        }
        var digits: [UInt8] = []
        for byte in body {
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"), UInt8(ascii: "a") ... UInt8(ascii: "f"): digits.append(byte)
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digits.append(byte | 0x20)
            case UInt8(ascii: "-"): continue
            default: return nil
            }
        }
        return digits.count == 32 ? digits : nil
    }

    /// `[-+]digits[.digits][e[-+]digits]`, white space around: the value as its
    /// significant digits and the power of ten of the last one (`15e-1` for `1.50`),
    /// rounded half away from zero to `scale` fractional digits first, as `numeric(p,s)`
    /// stores it. `NaN` and the infinities keep their bytes.
    private static func numeric(_ text: UnsafeRawBufferPointer, scale: Int?) -> [UInt8]? {
        var body = trimmed(text)
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
        if let scale, -exponent > scale {
            // Drop the digits past the scale, rounding half away from zero.
            let dropped = -exponent - scale
            let kept = max(digits.count - dropped, 0)
            let roundsUp = dropped <= digits.count && digits[digits.count - dropped] >= UInt8(ascii: "5")
            digits.removeLast(digits.count - kept)
            exponent = -scale
            if roundsUp {
                var at = digits.count - 1
                while at >= 0, digits[at] == UInt8(ascii: "9") {
                    digits[at] = UInt8(ascii: "0")
                    at -= 1
                }
                if at >= 0 { digits[at] += 1 } else { digits.insert(UInt8(ascii: "1"), at: 0) }
            }
        }
        digits = Array(digits.drop { $0 == 0x30 })
        while digits.last == 0x30 {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { return [0x30] }
        var out = (negative ? [UInt8(ascii: "-")] : []) + digits + [UInt8(ascii: "e")]
        out += Array(String(exponent).utf8)
        return out
    }
}
