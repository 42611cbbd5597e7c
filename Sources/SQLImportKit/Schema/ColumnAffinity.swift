/// SQLite's column affinity, derived from a declared type by the rules of
/// https://sqlite.org/datatype3.html#determination_of_column_affinity.
public enum ColumnAffinity: String, Sendable, Codable {
    case integer = "INTEGER"
    case text = "TEXT"
    case blob = "BLOB"
    case real = "REAL"
    case numeric = "NUMERIC"

    public init(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") || type.isEmpty {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// INTEGER and NUMERIC affinity turn an integer literal too large for Int64 into an
    /// inexact REAL, so such values are refused for these columns.
    var roundsBigIntegers: Bool { self == .integer || self == .numeric }

    /// INTEGER, REAL and NUMERIC affinity store text that looks like a number as the
    /// number (`0959` becomes 959).
    var convertsNumbers: Bool { self == .integer || self == .real || self == .numeric }
}
