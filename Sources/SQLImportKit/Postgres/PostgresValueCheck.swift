import Foundation

/// Numbers a PostgreSQL column would store otherwise than written, refused as the SQLite
/// target refuses them (`StatementBinder.Refusal`): PostgreSQL parses every value COPY
/// sends it, and rounds or drops digits without a word where SQLite's rules say no.
///
/// - `double precision`: an integer past 2^53 (a neighbouring value), a literal past a
///   double's range (infinity or zero; `±1e999`, export's infinity, excepted), a leading
///   zero (`0959`), hexadecimal (`0x10`, which its parser reads as 16).
/// - every number column: `0x10`, `0o7`, `0b1`, `1_000` (PostgreSQL 16 reads them).
/// - `real`: the same, with a float's 2^24 for integers. Decimals are rounded to the
///   column's precision: that is what the column is for.
/// - integer types and `numeric`: a leading zero.
enum PostgresValueCheck {
    /// The family of a column's type, as `format_type` prints it.
    enum Family {
        case double, float, integer, numeric, bytea, other

        /// (An array type is `.other`: its elements are checked by `ArrayElements`.)
        init(type: String) {
            switch type {
            case "double precision": self = .double
            case "real": self = .float
            case "smallint", "integer", "bigint": self = .integer
            case "bytea": self = .bytea
            default: self = type == "numeric" || type.hasPrefix("numeric(") && !type.hasSuffix("[]") ? .numeric : .other
            }
        }
    }

    /// Whether a column of `type` (from `format_type`) holds characters: `text`,
    /// `varchar(n)`, `char(n)`, `citext`.
    static func isText(_ type: String) -> Bool {
        type == "text" || type == "citext" || (type.hasPrefix("character") && !type.hasSuffix("[]"))
    }

    /// Why `cell` cannot go into a column of `family`, or nil when it can.
    static func refusal(_ cell: Cell, family: Family, bytes: UnsafePointer<UInt8>) -> String? {
        guard family != .other else { return nil }
        // A `bytea` takes a BLOB marker's bytes or a text's own bytes (`byteaText`); a
        // number or a boolean has no bytes that give it back (its digits were stored).
        if family == .bytea {
            switch cell.kind {
            case .integer, .real, .numberAsText:
                return "is a \(cell.isBoolean ? "boolean" : "number"), and this bytea column holds bytes; give them as a BLOB marker {\"$base64\":\"...\"} (what export writes), or as a string for its UTF-8 bytes"
            default:
                return nil
            }
        }
        switch cell.kind {
        case .integer:
            return isExact(cell.payload, in: family) ? nil : inexact(family)
        case .numberAsText:
            // JSON digits that neither Int64 nor Double holds.
            guard family == .double || family == .float else { return nil }
            let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
            return NumberText.affinityNumber(text) == .bigInteger ? inexact(family) : unrepresentable(family)
        case .text, .untypedText:
            let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
            if NumberText.isLeadingZeroNumber(text) {
                return "has a leading zero, and this \(name(family)) column would store it as a number without it; declare the column text to keep it as written"
            }
            // PostgreSQL 16 reads 0x10, 0o7, 0b1 and 1_000 as numbers.
            if isNonDecimal(text) {
                return "is not a decimal number, which this \(name(family)) column may read as one (PostgreSQL 16 does); write it in decimal, or declare the column text"
            }
            guard family == .double || family == .float else { return nil }
            switch NumberText.affinityNumber(text) {
            case .integer(let value): return isExact(value, in: family) ? nil : inexact(family)
            case .bigInteger: return inexact(family)
            case .unrepresentable: return unrepresentable(family)
            case .real(let value): return family == .float ? realRefusal(value) : nil
            case .notANumber: return nil
            }
        case .real:
            return family == .float ? realRefusal(cell.doubleValue) : nil
        default:
            return nil
        }
    }

    /// Why `value` (a double) cannot go into a `real` column, or nil when the `real` it
    /// becomes reads back as the same number: `0.1` does (its shortest text is 0.1),
    /// 3.14159265358979 does not (the column stored 3.1415927 without a word, where
    /// SQLite's REAL keeps the double).
    private static func realRefusal(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        let single = Float(value)
        if Double(single) == value { return nil }
        if single.isInfinite || (single == 0 && value != 0) { return unrepresentable(.float) }
        // Halfway between two reals, the shortest text that reads back as the real is
        // the number itself to Swift, not to PostgreSQL, which prints more digits
        // (1.5e10 reads back as 1.5000001e+10).
        let halfway = value == (Double(single) + Double(single.nextUp)) / 2 || value == (Double(single) + Double(single.nextDown)) / 2
        let shortest = halfway ? String(format: "%.8g", Double(single)) : "\(single)"
        if !halfway && Double(shortest) == value { return nil }
        return "has more digits than a real holds, and this real column would store \(shortest); declare the column double precision or numeric to keep it, or round it in the input"
    }

    /// The integer a whole number spelled with a point or an exponent means (`3.0`, the
    /// text "4.0", `1e2`): SQLite's INTEGER affinity stores it so, and PostgreSQL's
    /// integer input refuses the spelling. Nil for anything else, and for a Double past
    /// 2^53 from an exponent, which may be a neighbour of the number written.
    static func wholeNumber(_ cell: Cell, bytes: UnsafePointer<UInt8>) -> Int64? {
        switch cell.kind {
        case .real:
            let value = cell.doubleValue
            return value.rounded(.towardZero) == value && value.magnitude < 0x1p53 ? Int64(value) : nil
        case .text, .untypedText:
            let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
            guard text.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }) else { return nil }
            switch NumberText.affinityNumber(text) {
            case .integer(let value): return value
            case .real(let value): return value.rounded(.towardZero) == value && value.magnitude < 0x1p53 ? Int64(value) : nil
            default: return nil
            }
        default:
            return nil
        }
    }

    /// The bytes a string (or nested JSON's text) that is no BLOB marker puts into a
    /// `bytea` column: its own UTF-8 bytes, as SQLite keeps the text as written.
    /// PostgreSQL's `bytea` input read its backslashes as escapes: the string `\x41`
    /// stored the byte 0x41, and `a\b` was refused. (A NUL is a byte like any other.)
    static func byteaText(_ cell: Cell, bytes: UnsafePointer<UInt8>) -> UnsafeRawBufferPointer? {
        switch cell.kind {
        case .text, .untypedText, .json: return UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
        default: return nil
        }
    }

    private static func isExact(_ value: Int64, in family: Family) -> Bool {
        switch family {
        case .double: return NumberText.isExactDouble(value)
        case .float: return value >= -(1 << 24) && value <= 1 << 24 || Int64(exactly: Float(value)) == value
        default: return true
        }
    }

    private static func name(_ family: Family) -> String {
        switch family {
        case .double: return "double precision"
        case .float: return "real"
        case .integer: return "integer"
        case .numeric: return "numeric"
        case .bytea: return "bytea"
        case .other: return ""
        }
    }

    private static func inexact(_ family: Family) -> String {
        "has more digits than a \(family == .float ? "real" : "double") holds, and this \(name(family)) column would store a neighbouring value; declare the column bigint, numeric or text to keep it exactly"
    }

    private static func unrepresentable(_ family: Family) -> String {
        "is beyond the range of a \(family == .float ? "real" : "double"), and this \(name(family)) column would store it as infinity or zero; declare the column numeric or text to keep it as written"
    }

    /// `0x10`, `0o7`, `0b1` (after white space and a sign), or digits with `_` between
    /// them (`1_000`).
    private static func isNonDecimal(_ text: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        while index < text.count, text[index] == 0x20 || text[index] &- 0x09 < 5 { index += 1 }
        if index < text.count, text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-") { index += 1 }
        if index + 1 < text.count, text[index] == UInt8(ascii: "0"), [UInt8(ascii: "x"), UInt8(ascii: "o"), UInt8(ascii: "b")].contains(text[index + 1] | 0x20) {
            return true
        }
        let body = text[index...]
        return body.contains(UInt8(ascii: "_")) && body.allSatisfy { $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: ".") || $0 &- UInt8(ascii: "0") < 10 }
    }
}

/// What a column's declared size or type would cut from a value without a word, refused
/// like the numbers above: PostgreSQL rounds a `numeric(p,s)` to `s` places and a
/// `timestamp(p)` to `p` digits of a second, cuts a `varchar(n)` value's trailing spaces
/// past `n` characters (the SQL standard's rule), drops the zone of a time given to a
/// column `without time zone` (`10:00+05:30` and `10:00-08:00` are both 10:00) and the
/// time of day of a timestamp given to a `date` — two keys that differ there become one
/// row. (A zone of offset zero, `Z`, `+00:00` or `UTC`, is kept: the column's times are
/// then those of UTC, and nothing is lost.)
/// (`char(n)` ignores trailing spaces in comparisons and pads: nothing is lost.) A longer value of other characters, or more integer digits than `p - s`, the
/// server refuses itself.
extension PostgresValueCheck {
    enum Limit: Equatable {
        case none
        case scale(Int)
        case characters(Int)
        /// Digits of a second, whether the column keeps a value's zone, and whether it
        /// holds a time of day alone (`time`, `timetz`: it drops a date).
        case time(precision: Int, keepsZone: Bool, ofDay: Bool)
        case date

        /// From `format_type`: `numeric(6,2)`, `character varying(3)`, `character(3)`,
        /// `timestamp(0) with time zone`, `time without time zone` (6 digits), `date`.
        init(type: String) {
            func modifiers(after prefix: String) -> [Int]? {
                guard type.hasPrefix(prefix + "("), let close = type.firstIndex(of: ")") else { return nil }
                return type[type.index(type.startIndex, offsetBy: prefix.count + 1) ..< close].split(separator: ",").compactMap {
                    Int($0.trimmingCharacters(in: .whitespaces))
                }
            }
            if type.hasSuffix("[]") {
                // An array type: its elements are checked by `ArrayElements`.
                self = .none
            } else if let numbers = modifiers(after: "numeric"), numbers.count == 2 {
                self = .scale(numbers[1])
            } else if let numbers = modifiers(after: "character varying"), numbers.count == 1 {
                // (Not `character(n)`: its trailing spaces carry no meaning, `'ab' = 'ab '`.)
                self = .characters(numbers[0])
            } else if let numbers = modifiers(after: "timestamp") ?? modifiers(after: "time"), numbers.count == 1 {
                self = .time(precision: numbers[0], keepsZone: !type.hasSuffix("without time zone"), ofDay: !type.hasPrefix("timestamp"))
            } else if type.hasPrefix("timestamp ") || type.hasPrefix("time ") {
                self = .time(precision: 6, keepsZone: !type.hasSuffix("without time zone"), ofDay: type.hasPrefix("time "))
            } else if type == "date" {
                self = .date
            } else {
                self = .none
            }
        }
    }

    /// Why `cell` would be stored cut by a column of `type` (its `limit`), or nil.
    /// `droppedByServer`: PostgreSQL's reading of a date or time `classifyTime` cannot read
    /// drops its zone or time of day (`PostgresRun.serverDrops`).
    static func refusal(_ cell: Cell, limit: Limit, type: String, bytes: UnsafePointer<UInt8>, droppedByServer: Bool = false) -> String? {
        func text(_ body: (UnsafeRawBufferPointer) -> String?) -> String? {
            switch cell.kind {
            case .text, .untypedText, .numberAsText: return body(UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length)))
            case .real:
                guard cell.doubleValue.isFinite else { return nil }
                return Array(cell.doubleValue.description.utf8).withUnsafeBytes(body)
            default: return nil
            }
        }
        switch limit {
        case .none:
            return nil
        case .scale(let scale):
            // (A negative scale, PostgreSQL 15's, rounds integers: not checked.)
            return text { scaleRefusal($0, scale: scale, type: type) }
        case .characters(let limit):
            guard cell.kind == .text || cell.kind == .untypedText else { return nil }
            return text { text in
                let characters = text.reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
                guard characters > limit, text.suffix(characters - limit).allSatisfy({ $0 == 0x20 }) else { return nil }
                return "has \(characters) characters, and this \(type) column would cut its trailing spaces to fit \(limit); trim them in the input, or widen the column"
            }
        case .time(let precision, let keepsZone, let ofDay):
            guard cell.kind == .text || cell.kind == .untypedText else { return nil }
            return text { text in
                if let digits = fractionalSecondDigits(text), digits > precision {
                    return "has fractional seconds to \(digits) digits, and this \(type) column would round them to \(precision); round them in the input, or give the column more precision"
                }
                // A date given to a `time`: two times of other days would become one.
                if ofDay, startsWithDate(text) {
                    return "has a date, which this \(type) column would drop (times of other days would become one); give the time alone in the input, or declare the column timestamp"
                }
                guard !keepsZone else {
                    // (A `timetz`: whether a spelling other than ISO 8601 has a date, the
                    // server's reading says.)
                    guard droppedByServer else { return nil }
                    return "has a date (as PostgreSQL reads it), which this \(type) column would drop (times of other days would become one); give the time alone in the input, or declare the column timestamp with time zone"
                }
                switch classifyTime(text, dateColumn: false) {
                case .dropsZone(let zone): return zoneDropped(zone, type: type)
                case .undecided:
                    guard droppedByServer else { return nil }
                    if ofDay {
                        return "has a date or a time zone other than UTC (as PostgreSQL reads it), which this \(type) column would drop; give the time alone, in UTC, in the input, or declare the column timestamp with time zone"
                    }
                    return zoneDropped(nil, type: type)
                default: return nil
                }
            }
        case .date:
            guard cell.kind == .text || cell.kind == .untypedText else { return nil }
            return text { text in
                switch classifyTime(text, dateColumn: true) {
                case .dropsTimeOfDay, .dropsZone: return Self.timeOfDayDropped
                case .undecided: return droppedByServer ? Self.timeOfDayDropped : nil
                case .keeps: return nil
                }
            }
        }
    }

    /// Whether values of a column (its `limit`) that are not ISO 8601 are judged by
    /// PostgreSQL's reading (`serverJudges`): a column that drops a zone or a time of
    /// day, and a `timetz`, which drops a date.
    static func serverMayJudge(_ limit: Limit) -> Bool {
        switch limit {
        case .date, .time(_, keepsZone: false, _): return true
        case .time(_, keepsZone: true, let ofDay): return ofDay
        default: return false
        }
    }

    /// Whether `text` begins, past spaces, with an ISO 8601 date (`2026-03-08`).
    static func startsWithDate(_ text: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        while i < text.count, text[i] == 0x20 { i += 1 }
        guard text.count - i >= 10 else { return false }
        return (0 ..< 10).allSatisfy { k in k == 4 || k == 7 ? text[i + k] == UInt8(ascii: "-") : text[i + k] &- UInt8(ascii: "0") < 10 }
    }

    /// Why a `numeric(p,scale)` column would round the decimal `text`, or nil.
    static func scaleRefusal(_ text: UnsafeRawBufferPointer, scale: Int, type: String) -> String? {
        // (A negative scale, PostgreSQL 15's, rounds integers: not checked.)
        guard scale >= 0, let places = decimalPlaces(text), places > scale else { return nil }
        return "has \(places) decimal places, and this \(type) column would round it to \(scale); round it in the input, or widen the column's scale"
    }

    static func zoneDropped(_ zone: String?, type: String) -> String {
        "has \(zone.map { "the time zone \($0)" } ?? "a time zone other than UTC (as PostgreSQL reads it)"), which this \(type) column would drop (times of other zones would compare as if in one); convert the times to UTC in the input, or declare the column \(type.replacingOccurrences(of: "without time zone", with: "with time zone"))"
    }

    static let timeOfDayDropped = "has a time of day (or a zone other than UTC), which this date column would drop; give the date alone in the input, or declare the column timestamp"

    /// How a date or time fares in a column that drops a zone (`timestamp`, `time`
    /// without time zone) or a time of day (`date`).
    enum TimeVerdict: Equatable {
        case keeps
        case dropsZone(String)
        case dropsTimeOfDay
        /// Not ISO 8601: PostgreSQL's own reading decides (`PostgresRun.serverDrops`).
        case undecided
    }

    /// The kind PostgreSQL's own reading must judge `cell` as (`PostgresRun.serverDrops`):
    /// `time`, `timestamp` or `date`, for a value `classifyTime` cannot read into a
    /// column that drops a zone or a time of day; nil for any other.
    static func serverJudges(_ cell: Cell, limit: Limit, type: String, bytes: UnsafePointer<UInt8>) -> String? {
        guard cell.kind == .text || cell.kind == .untypedText else { return nil }
        let kind: String
        switch limit {
        case .time(_, keepsZone: false, let ofDay): kind = ofDay ? "time" : "timestamp"
        case .time(_, keepsZone: true, ofDay: true): kind = "timetz"
        case .date: kind = "date"
        default: return nil
        }
        let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
        // (A NUL, which no PostgreSQL text holds, is refused as such where the value is
        // written: as a query's parameter, a C string, it was cut there, and the server
        // refused the query, "malformed array literal", naming no field.)
        guard classifyTime(text, dateColumn: kind == "date") == .undecided, !text.contains(0) else { return nil }
        return kind
    }

    /// Reads ISO 8601 and its common variants exactly: `2026-11-20`, `2026-11-20T10:00:00.5Z`,
    /// `2026-11-20 10:00+05:30`, `10:00:00-08` (a `time`), with a zone `Z`, `±hh[[:]mm]`,
    /// `UTC` or `GMT`. Any other spelling (`Nov 20 10:00 2026 PST`, `20261120 100000`,
    /// `PST 2026-11-20 10:00`, `epoch`) is `.undecided`: PostgreSQL's date parser reads a
    /// zone or a time in many places, and only it can say (a parser of its rules here
    /// missed zones before the time, after the year, and compact times).
    static func classifyTime(_ text: UnsafeRawBufferPointer, dateColumn: Bool) -> TimeVerdict {
        let n = text.count
        func byte(_ k: Int) -> UInt8 { k < n ? text[k] : 0 }
        func digit(_ k: Int) -> Bool { k < n && text[k] &- UInt8(ascii: "0") < 10 }
        var i = 0
        while byte(i) == 0x20 { i += 1 }
        var hasDate = false
        if digit(i), digit(i + 1), digit(i + 2), digit(i + 3), byte(i + 4) == UInt8(ascii: "-"), digit(i + 5), digit(i + 6),
            byte(i + 7) == UInt8(ascii: "-"), digit(i + 8), digit(i + 9)
        {
            hasDate = true
            i += 10
            let separator = byte(i)
            if separator == UInt8(ascii: "T") || separator == UInt8(ascii: "t") || separator == 0x20, digit(i + 1), digit(i + 2), byte(i + 3) == UInt8(ascii: ":") {
                i += 1
            }
        }
        var nonZeroTime = false
        if digit(i), digit(i + 1), byte(i + 2) == UInt8(ascii: ":"), digit(i + 3), digit(i + 4) {
            let start = i
            i += 5
            if byte(i) == UInt8(ascii: ":"), digit(i + 1), digit(i + 2) { i += 3 }
            if byte(i) == UInt8(ascii: ".") || byte(i) == UInt8(ascii: ","), digit(i + 1) {
                i += 1
                while digit(i) { i += 1 }
            }
            nonZeroTime = text[start ..< i].contains { $0 &- UInt8(ascii: "1") < 9 }
        } else if !hasDate {
            return .undecided
        }
        var zoneStart = i
        while byte(zoneStart) == 0x20 { zoneStart += 1 }
        var zoneEnd = zoneStart
        var utc = true
        let first = byte(zoneStart)
        if first == UInt8(ascii: "Z") || first == UInt8(ascii: "z") {
            zoneEnd += 1
        } else if first == UInt8(ascii: "+") || first == UInt8(ascii: "-"), digit(zoneStart + 1), digit(zoneStart + 2) {
            zoneEnd += 3
            if byte(zoneEnd) == UInt8(ascii: ":"), digit(zoneEnd + 1), digit(zoneEnd + 2) {
                zoneEnd += 3
            } else if digit(zoneEnd), digit(zoneEnd + 1) {
                zoneEnd += 2
            }
            utc = text[(zoneStart + 1) ..< zoneEnd].allSatisfy { $0 == UInt8(ascii: "0") || $0 == UInt8(ascii: ":") }
        } else if zoneStart + 3 <= n, ["UTC", "GMT"].contains(where: { $0.utf8.elementsEqual(text[zoneStart ..< zoneStart + 3].map { $0 & ~0x20 }) }) {
            zoneEnd += 3
        }
        var end = zoneEnd
        while byte(end) == 0x20 { end += 1 }
        guard end == n else { return .undecided }
        if dateColumn { return nonZeroTime || !utc ? .dropsTimeOfDay : .keeps }
        return utc ? .keeps : .dropsZone(String(decoding: text[zoneStart ..< zoneEnd], as: UTF8.self))
    }

    /// The decimal places a number needs (`1.2300` 2, `1.5e-3` 4, `12e2` 0), or nil when
    /// the text is no decimal number.
    static func decimalPlaces(_ text: UnsafeRawBufferPointer) -> Int? {
        NumberText.decimal(text).map { max($0.digits.count - $0.exponent, 0) }
    }

    /// The digits of the first time's fraction of a second (`12:00:00.700` 1), its
    /// trailing zeros aside; nil without one.
    static func fractionalSecondDigits(_ text: UnsafeRawBufferPointer) -> Int? {
        func isDigit(_ index: Int) -> Bool { index < text.count && text[index] &- UInt8(ascii: "0") < 10 }
        var index = 0
        while index + 3 < text.count {
            if text[index] == UInt8(ascii: ":"), isDigit(index + 1), isDigit(index + 2), text[index + 3] == UInt8(ascii: ".") {
                var end = index + 4
                while isDigit(end) { end += 1 }
                var last = end
                while last > index + 4, text[last - 1] == UInt8(ascii: "0") { last -= 1 }
                return last - (index + 4)
            }
            index += 1
        }
        return nil
    }
}
