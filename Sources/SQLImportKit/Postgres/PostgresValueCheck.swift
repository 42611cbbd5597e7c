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
        case double, float, integer, numeric, other

        init(type: String) {
            switch type {
            case "double precision": self = .double
            case "real": self = .float
            case "smallint", "integer", "bigint": self = .integer
            default: self = type == "numeric" || type.hasPrefix("numeric(") ? .numeric : .other
            }
        }
    }

    /// Why `cell` cannot go into a column of `family`, or nil when it can.
    static func refusal(_ cell: Cell, family: Family, bytes: UnsafePointer<UInt8>) -> String? {
        guard family != .other else { return nil }
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
            case .real: return nil
            case .notANumber: return nil
            }
        default:
            return nil
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
