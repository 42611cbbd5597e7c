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

extension MergePolicy {
    /// The warning of `OutcomeCounts.newerMixedForms` (SQLite and PostgreSQL); nil for
    /// another policy.
    func newerMixedFormsWarning(_ count: Int, first: (arriving: String, stored: String)?) -> String? {
        guard case .newer(let column) = self else { return nil }
        return "\(count) record(s) were compared by --merge newer:\(column) with a stored value of another form\(first.map { " (first: \($0.arriving) against \($0.stored))" } ?? ""); "
            + "texts sort character by character, not by time (2026-11-30 10:00:00 before 2026-11-30T09:00:00Z, ...T09:00:00.500Z before ...T09:00:00Z; "
            + "on SQLite any number before any text), so an older record may have won. Write \(column) in one form: ISO 8601 with one separator, zone and number of fraction digits, or numbers"
    }
}
