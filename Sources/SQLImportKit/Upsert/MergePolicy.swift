/// What happens when an incoming record's key already exists (`--merge`).
///
/// Do not confuse it with a write strategy, which is how rows reach SQLite.
public enum MergePolicy: Sendable, Equatable, Codable, CustomStringConvertible {
    /// `SET c = excluded.c` for every input column outside the key.
    case replace
    /// `SET c = coalesce(excluded.c, c)`: a null in the input keeps the stored value.
    case coalesce
    /// Last write wins on `column`: `... WHERE items.column IS NULL OR excluded.column >=
    /// items.column`. On a tie the arriving row wins; a stored NULL is older than any
    /// value, and an arriving NULL never replaces a stored value. Rows kept because the
    /// stored version is newer are `skipped`.
    case newer(column: String)
    /// `DO NOTHING`: existing rows are kept as they are and counted as `skipped`.
    case ignore

    /// Parses `replace`, `coalesce`, `newer:COLUMN` or `ignore`.
    public init?(argument: String) {
        switch argument {
        case "replace": self = .replace
        case "coalesce": self = .coalesce
        case "ignore": self = .ignore
        default:
            guard argument.hasPrefix("newer:"), argument.count > 6 else { return nil }
            self = .newer(column: String(argument.dropFirst(6)))
        }
    }

    public var description: String {
        switch self {
        case .replace: return "replace"
        case .coalesce: return "coalesce"
        case .newer(let column): return "newer:\(column)"
        case .ignore: return "ignore"
        }
    }
}
