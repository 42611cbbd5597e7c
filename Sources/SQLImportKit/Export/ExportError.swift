/// Errors of `sqlimport export` that are not about writing bytes (see `OutputError`).
/// Each says how to fix it.
public enum ExportError: Error, Equatable, CustomStringConvertible {
    case noSuchTable(name: String, available: [String])
    /// `--query` holds no statement, or more than one.
    case notOneStatement(query: String)
    /// `--query` would write, or returns no rows (it is not a SELECT).
    case notAQuery(query: String)
    /// SQLite could not prepare `--query` (a syntax error, an unknown table or column).
    case invalidQuery(query: String, message: String)
    case unknownFormat(path: String)
    case conflictingOptions(String)
    /// JSON must be valid UTF-8, and this TEXT value is not.
    case invalidUTF8(column: String, row: Int)

    public var description: String {
        switch self {
        case .noSuchTable(let name, let available):
            let list = available.isEmpty ? "the database has no tables" : "it has " + available.map(SQLIdentifier.quote).joined(separator: ", ")
            return "no table or view \(SQLIdentifier.quote(name)) in the database (\(list)); check the name and --db"
        case .notOneStatement(let query):
            return "--query must hold exactly one SQL statement, got: \(Self.clip(query))"
        case .invalidQuery(let query, let message):
            return "--query does not prepare: \(message); fix the SQL (check table and column names with `sqlimport inspect`), got: \(Self.clip(query))"
        case .notAQuery(let query):
            return "--query must be a read-only statement that returns rows (a SELECT), got: \(Self.clip(query))"
        case .unknownFormat(let path):
            return "cannot tell the format from the name \(path); pass --format jsonl, json, csv or tsv, or end the name in .jsonl, .json, .csv or .tsv"
        case .conflictingOptions(let text):
            return text
        case .invalidUTF8(let column, let row):
            return "row \(row), column \(SQLIdentifier.quote(column)): the TEXT value is not valid UTF-8, which JSON cannot carry; export as CSV or TSV (raw bytes), or select CAST(\(SQLIdentifier.quote(column)) AS BLOB) in --query"
        }
    }

    private static func clip(_ text: String) -> String {
        text.count > 120 ? String(text.prefix(117)) + "..." : text
    }
}
