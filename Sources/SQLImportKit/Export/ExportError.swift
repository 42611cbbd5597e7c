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
    /// `--query` has a parameter (`:name`) that no `--param` binds.
    case unboundParameter(name: String)
    /// `--query` has a positional `?` parameter, which `--param` cannot name.
    case positionalParameter
    /// `--param NAME=...` names no parameter of `--query`.
    case unknownParameter(name: String, known: [String])
    /// A PostgreSQL `--query`'s `:name` that no `--param` binds.
    case unboundPostgresParameter(name: String)
    /// A PostgreSQL `--query` with `$1`, which `--param` cannot name.
    case positionalPostgresParameter(String)
    /// The result has two columns of one name (a `SELECT *` over a join).
    case duplicateColumns(names: [String])
    /// No file at the database path (`--db`) a command reads.
    case noDatabase(path: String)
    /// `--db` names a folder.
    case databaseIsAFolder(path: String)

    public var description: String {
        switch self {
        case .noDatabase(let path):
            return "no database at \(path); check the path given to --db (or SQLIMPORT_DB)"
        case .databaseIsAFolder(let path):
            return "\(path) is a folder, not a database file; give --db (or SQLIMPORT_DB) the database file's path"
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
        case .unboundParameter(let name):
            return "--query has the parameter :\(name), and nothing binds it (SQLite would read it as NULL); pass --param \(name)=VALUE"
        case .positionalParameter:
            return "--query has a positional ? parameter; name it (WHERE updatedAt >= :since) and pass --param since=VALUE"
        case .unknownParameter(let name, let known):
            if let first = name.first, ":@$".contains(first), known.contains(String(name.dropFirst())) {
                return "--param \(name): give the name without its '\(first)': --param \(name.dropFirst())=VALUE"
            }
            return "--param \(name): --query has no parameter :\(name) (" + (known.isEmpty ? "it has none" : "it has " + known.map { ":" + $0 }.joined(separator: ", ")) + ")"
        case .unboundPostgresParameter(let name):
            return "--query has :\(name), and no --param binds it; pass --param \(name)=VALUE (an array slice a[lo:hi] is written a[lo : hi])"
        case .positionalPostgresParameter(let parameter):
            return "--query has a positional \(parameter) parameter; name it (WHERE \"updatedAt\" >= :since) and pass --param since=VALUE"
        case .duplicateColumns(let names):
            let list = names.map(SQLIdentifier.quote).joined(separator: ", ")
            return "the result has more than one column named \(list) (a SELECT * over a join?); an import would keep only the last of them. Name each column once with AS in --query (SELECT a.id AS a_id, b.id AS b_id ...)"
        case .invalidUTF8(let column, let row):
            return "row \(row), column \(SQLIdentifier.quote(column)): the TEXT value is not valid UTF-8, which JSON cannot carry; export as CSV or TSV (raw bytes), or select CAST(\(SQLIdentifier.quote(column)) AS BLOB) in --query"
        }
    }

    private static func clip(_ text: String) -> String {
        text.count > 120 ? String(text.prefix(117)) + "..." : text
    }
}
