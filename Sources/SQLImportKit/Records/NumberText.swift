#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Exact conversions between number text and SQLite's INTEGER and REAL.
package enum NumberText {
    package enum IntegerParse: Equatable {
        case value(Int64)
        /// Integer syntax, but outside Int64: keep it as text, never as an inexact REAL.
        case overflow
        case notAnInteger
    }

    /// Strict integer syntax: `-?(0|[1-9][0-9]*)`. `007`, `+1` and ` 1` are not integers
    /// here (they would lose their spelling).
    @inline(__always)
    package static func parseInteger(_ text: UnsafeRawBufferPointer) -> IntegerParse {
        var index = 0
        let count = text.count
        guard count > 0 else { return .notAnInteger }
        let negative = text[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        guard index < count else { return .notAnInteger }
        if text[index] == UInt8(ascii: "0"), count - index > 1 { return .notAnInteger }
        // Accumulate negatively so that Int64.min parses.
        var value: Int64 = 0
        var overflow = false
        while index < count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return .notAnInteger }
            if !overflow {
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = times10.subtractingReportingOverflow(Int64(digit))
                if o1 || o2 { overflow = true } else { value = next }
            }
            index += 1
        }
        if overflow { return .overflow }
        if negative { return .value(value) }
        if value == Int64.min { return .overflow }
        return .value(-value)
    }

    /// JSON number syntax: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, whole text.
    package static func isNumberSyntax(_ text: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = text.count
        func digits() -> Int {
            let start = index
            while index < count, text[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            return index - start
        }
        if index < count, text[index] == UInt8(ascii: "-") { index += 1 }
        guard index < count else { return false }
        if text[index] == UInt8(ascii: "0") {
            index += 1
        } else if digits() == 0 {
            return false
        }
        if index < count, text[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { return false }
        }
        if index < count, text[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            if digits() == 0 { return false }
        }
        return index == count
    }

    /// True when the text starts with a redundant zero (`007`, `-01`, `00.5`): such
    /// values stay TEXT so their spelling survives.
    package static func hasLeadingZero(_ text: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        if index < text.count, text[index] == UInt8(ascii: "-") { index += 1 }
        return text.count - index >= 2 && text[index] == UInt8(ascii: "0")
            && text[index + 1] &- UInt8(ascii: "0") < 10
    }

    /// True when the text is a number with a redundant leading zero (`0959`, `-007`,
    /// `00.5`, and as SQLite reads numbers, ` 0959` and `+0959` too), which a column with
    /// INTEGER, REAL or NUMERIC affinity would store as the number, losing the zeros.
    /// `007abc` is not a number, and stays text there.
    package static func isLeadingZeroNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < text.count, isSQLiteSpace(text[index]) { index += 1 }
        if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") { index += 1 }
        guard text.count - index >= 2, text[index] == UInt8(ascii: "0"), text[index + 1] &- UInt8(ascii: "0") < 10 else { return false }
        return affinityNumber(text) != .notANumber
    }

    /// The white space SQLite's number conversion skips around a number (`sqlite3Isspace`).
    @inline(__always)
    static func isSQLiteSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte &- 0x09 < 5 }

    /// Whether `text` is `1e999` or `-1e999`: how export spells ±infinity (a REAL SQLite
    /// can hold, which JSON has no literal for), read back as infinity. Any other literal
    /// past a Double's range may not mean infinity, and stays refused.
    static func isInfinitySpelling(_ text: UnsafeRawBufferPointer) -> Bool {
        text.elementsEqual("1e999".utf8) || text.elementsEqual("-1e999".utf8)
    }

    /// A correctly rounded Double for number text (JSON syntax, or SQLite's: `+1`, `.5`,
    /// `5.`), or nil when the value overflows to infinity or underflows to zero from a
    /// non-zero spelling; `±1e999`, export's spelling of ±infinity, is ±infinity.
    package static func parseDouble(_ text: UnsafeRawBufferPointer) -> Double? {
        // strtod needs a NUL-terminated string; numbers are short.
        let value: Double = withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UInt8.self, capacity: text.count + 1) { bytes in
                bytes.update(from: text.baseAddress!.assumingMemoryBound(to: UInt8.self), count: text.count)
                bytes[text.count] = 0
            }
            return strtod(buffer.baseAddress!, nil)
        }
        if !value.isFinite { return isInfinitySpelling(text) ? value : nil }
        if value == 0 {
            // Underflow: a non-zero digit before the exponent, yet zero came out.
            for byte in text {
                if byte | 0x20 == UInt8(ascii: "e") { break }
                if byte &- UInt8(ascii: "1") < 9 { return nil }
            }
        }
        return value
    }

    /// CSV text as a column without affinity stores it: the type it looks like, as type
    /// inference reads it (`TypeTracker.classify`: integer, real, or text, which is
    /// `.notANumber`, when it has a leading zero or is no number).
    @inline(__always)
    static func typelessNumber(_ text: UnsafeRawBufferPointer) -> AffinityNumber {
        switch TypeTracker.classify(text) {
        case .integer:
            // (`9007199254740993.0` too: `classify` calls it an integer.)
            if case .integer(let value) = affinityNumber(text) { return .integer(value) }
        case .real:
            if let value = parseDouble(text) { return .real(value) }
        default:
            break
        }
        return .notANumber
    }

    /// Calls `body` with `value`'s decimal digits, as SQLite spells an integer a TEXT
    /// column stores (`%lld`), written on the stack: no String per value.
    @inline(__always)
    static func withDecimalDigits<T>(of value: Int64, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var magnitude = value.magnitude
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 { start -= 1; digits[start] = UInt8(ascii: "-") }
            return body(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(digits)[start...]))
        }
    }

    /// What a column with INTEGER, REAL or NUMERIC affinity makes of text.
    package enum AffinityNumber: Equatable {
        /// Not a number to SQLite: stored as text.
        case notANumber
        case integer(Int64)
        /// Integer syntax outside Int64: SQLite would store an inexact REAL.
        case bigInteger
        /// The correctly rounded Double of a real literal.
        case real(Double)
        /// A real literal that overflows a Double (SQLite would store infinity) or
        /// underflows it from non-zero digits (SQLite would store zero).
        case unrepresentable
    }

    /// Text as SQLite's affinity reads it (`sqlite3AtoF`): surrounding white space, a
    /// sign (`+` too), digits with an optional point (`5.`, `.5`), an optional exponent.
    /// Hexadecimal is not converted by affinity, and is text here too.
    package static func affinityNumber(_ text: UnsafeRawBufferPointer) -> AffinityNumber {
        var start = 0
        var end = text.count
        while start < end, isSQLiteSpace(text[start]) { start += 1 }
        while end > start, isSQLiteSpace(text[end - 1]) { end -= 1 }
        var index = start
        if index < end, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
        let digitsStart = index
        while index < end, text[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        var mantissaDigits = index - digitsStart
        var isInteger = true
        if index < end, text[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            let fraction = index
            while index < end, text[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            mantissaDigits += index - fraction
        }
        guard mantissaDigits > 0 else { return .notANumber }
        if index < end, text[index] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            index += 1
            if index < end, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
            let exponent = index
            while index < end, text[index] &- UInt8(ascii: "0") < 10 { index += 1 }
            guard index > exponent else { return .notANumber }
        }
        guard index == end else { return .notANumber }
        let number = UnsafeRawBufferPointer(rebasing: text[start ..< end])
        if isInteger {
            // Leading zeros and a plus sign do not change an integer's value.
            var value: Int64 = 0
            var overflow = false
            let negative = number[0] == UInt8(ascii: "-")
            for byte in number where byte &- UInt8(ascii: "0") < 10 {
                let (times10, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = negative ? times10.subtractingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
                    : times10.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
                if o1 || o2 { overflow = true; break }
                value = next
            }
            return overflow ? .bigInteger : .integer(value)
        }
        // (`parseDouble`'s strtod reads `+`, `.5` and `5.` too, and its underflow test
        // looks only at the digits before the exponent.)
        guard let value = parseDouble(number) else { return .unrepresentable }
        switch inexactWholeNumber(number, rounded: value) {
        case nil: return .real(value)
        case .value(let integer): return .integer(integer)
        default: return .bigInteger
        }
    }

    /// Whether the double `value` read from the JSON number `number` keeps its decimal
    /// value: always with 15 significant digits or fewer, but for a subnormal double,
    /// which holds fewer (`1.2345678901234e-320` reads as `1.2347e-320`), or a zero read
    /// from a number that is none (`2e-400`); else when the
    /// shortest text of the double is the same decimal (`0.6039200385961945`, what
    /// programs print), not when digits were lost (`12345678901234.5678` reads as
    /// `12345678901234.568`).
    package static func keepsDecimal(_ number: UnsafeRawBufferPointer, _ value: Double) -> Bool {
        var significant = 0
        for byte in number {
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
            if byte &- UInt8(ascii: "1") < 9 || (byte == UInt8(ascii: "0") && significant > 0) { significant += 1 }
        }
        guard significant > 15 || value.isSubnormal || (value == 0 && significant > 0) else { return true }
        let shortest = Array(NumberText.shortest(value).utf8)
        guard let written = decimal(number), let printed = shortest.withUnsafeBytes(decimal) else { return true }
        return written == printed
    }

    /// A decimal number's digits without leading or trailing zeros, and the power of ten
    /// of the place after its first digit (`0.d1d2... × 10^exponent`): `(true, "12", 1)`
    /// for `-1.20` and `-12e-1`, `(false, "", 0)` for zero; nil when `text` (spaces
    /// around it aside) is no decimal number.
    package static func decimal(_ text: UnsafeRawBufferPointer) -> (negative: Bool, digits: [UInt8], exponent: Int)? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte &- 0x09 < 5 }
        var index = 0
        while index < text.count, isSpace(text[index]) { index += 1 }
        let negative = index < text.count && text[index] == UInt8(ascii: "-")
        if negative || (index < text.count && text[index] == UInt8(ascii: "+")) { index += 1 }
        var digits: [UInt8] = []
        var anyDigit = false
        var beforePoint = 0
        var seenPoint = false
        while index < text.count {
            let byte = text[index]
            if byte &- UInt8(ascii: "0") < 10 {
                anyDigit = true
                if digits.isEmpty && byte == UInt8(ascii: "0") {
                    if seenPoint { beforePoint -= 1 }
                } else {
                    digits.append(byte)
                    if !seenPoint { beforePoint += 1 }
                }
            } else if byte == UInt8(ascii: "."), !seenPoint {
                seenPoint = true
            } else {
                break
            }
            index += 1
        }
        guard anyDigit else { return nil }
        var exponent = 0
        if index < text.count, text[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            var negativeExponent = false
            if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
                negativeExponent = text[index] == UInt8(ascii: "-")
                index += 1
            }
            var anyExponentDigit = false
            while index < text.count, text[index] &- UInt8(ascii: "0") < 10 {
                exponent = min(exponent * 10 + Int(text[index] &- UInt8(ascii: "0")), 100_000)
                anyExponentDigit = true
                index += 1
            }
            guard anyExponentDigit else { return nil }
            if negativeExponent { exponent = -exponent }
        }
        while index < text.count, isSpace(text[index]) { index += 1 }
        guard index == text.count else { return nil }
        while digits.last == UInt8(ascii: "0") { digits.removeLast() }
        guard !digits.isEmpty else { return (false, [], 0) }
        return (negative, digits, beforePoint + exponent)
    }

    /// For a real literal spelled as a whole number (`9007199254740993.0`, `5.`: digits, a
    /// point and only zeros, no exponent) that `value`, its correctly rounded Double, does
    /// not hold: the integer it spells, or `.overflow` past Int64. Such a literal means
    /// that integer (a spreadsheet's `.0`), and a column would store a neighbour. Nil for
    /// every other literal, whose rounding to a Double is what a real means.
    package static func inexactWholeNumber(_ number: UnsafeRawBufferPointer, rounded value: Double) -> IntegerParse? {
        // Every whole number within 2^53 is exact: the common case costs one comparison.
        guard value.magnitude >= 0x1p53 else { return nil }
        var index = 0
        let negative = index < number.count && number[index] == UInt8(ascii: "-")
        if index < number.count, number[index] == UInt8(ascii: "-") || number[index] == UInt8(ascii: "+") { index += 1 }
        while index < number.count - 1, number[index] == UInt8(ascii: "0") { index += 1 }
        let digitsStart = index
        while index < number.count, number[index] &- UInt8(ascii: "0") < 10 { index += 1 }
        let digits = UnsafeRawBufferPointer(rebasing: number[digitsStart ..< index])
        guard !digits.isEmpty, index < number.count, number[index] == UInt8(ascii: ".") else { return nil }
        index += 1
        while index < number.count, number[index] == UInt8(ascii: "0") { index += 1 }
        guard index == number.count else { return nil }
        var integer: Int64 = 0
        for byte in digits {
            let (times10, o1) = integer.multipliedReportingOverflow(by: 10)
            let (next, o2) = negative ? times10.subtractingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
                : times10.addingReportingOverflow(Int64(byte &- UInt8(ascii: "0")))
            if o1 || o2 {
                // Past Int64: exact only when the Double's own digits are these.
                return String(format: "%.0f", value.magnitude).utf8.elementsEqual(digits) ? nil : .overflow
            }
            integer = next
        }
        return Int64(exactly: value) == integer ? nil : .value(integer)
    }

    /// Whether a Double (a REAL column) holds `value` exactly.
    @inline(__always)
    package static func isExactDouble(_ value: Int64) -> Bool {
        value >= -(1 << 53) && value <= 1 << 53 || Int64(exactly: Double(value)) == value
    }

    /// For a REAL bound into a TEXT column: nil when SQLite's own conversion (15
    /// significant digits, `%!.15g`) reads back as the same Double, so that the column
    /// gets SQLite's usual spelling (`1.0e+15`, what other writers of the table store,
    /// and what a key of it holds); else the shortest text that does
    /// (`0.30000000000000004`, which SQLite would store as `0.3`).
    package static func textWhereSQLiteWouldRound(_ value: Double) -> String? {
        // SQLite spells infinity `Inf`; the input spelled it `1e999`.
        guard value.isFinite else { return shortest(value) }
        let fifteen = String(format: "%.15g", value)
        return Double(fifteen) == value ? nil : shortest(value)
    }

    /// The shortest text that reads back as the same Double (`0.1`, `-0.0`, `1e+308`).
    package static func shortest(_ value: Double) -> String {
        value.isInfinite ? (value < 0 ? "-1e999" : "1e999") : value.description
    }
}
