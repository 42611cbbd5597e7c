/// A record that SQLite, or sqlimport's own checks, refused. Always names the record.
public struct WriteError: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// SQLite refused the row: a constraint, a STRICT type, a foreign key.
        case sqlite(code: Int32, message: String)
        /// The value cannot be stored exactly in the column.
        case notRepresentable(column: String, value: String, why: String)
        /// The typed strategy's check: the value does not fit the column's declared type.
        case typeMismatch(column: String, expected: String, value: String)
        case nullInNotNullColumn(column: String)
        /// The record's conflict-target key finds one row and its primary key another
        /// (or a row with another target key): applying it would merge two identities.
        case identityConflict(target: String, primaryKey: String)
        /// The value does not fit the type this run inferred for a new column from its
        /// first `sampleRows` records.
        case notTheInferredType(column: String, type: String, value: String, sampleRows: Int)
        /// The deferred unique indexes of a first load, built at the record's conflict,
        /// refuse rows inserted before it.
        case deferredUniqueIndex(String)
        /// SQLite refused the row on a constraint of a table that declares conflict
        /// clauses sqlimport overrides with `INSERT OR ABORT` (`declared`, e.g. `UNIQUE
        /// ON CONFLICT REPLACE`; see `DeclaredConflictClause.isOverridden`).
        case overriddenConflictClause(message: String, declared: [String])
        /// `--duplicate-keys error`: the record's key (described, or empty) is that of a
        /// row the run wrote.
        case repeatedKey(key: String)
    }

    public var position: SourcePosition
    public var reason: Reason
    /// `column = value` pairs of the record that the message refers to.
    public var values: [(String, String)]
    /// Where a statement of several records failed in a way that cannot be retried
    /// record by record (a trigger's `RAISE(ROLLBACK)` ended the transaction): how many
    /// records, and the lines they span (in key order they need not be consecutive).
    var statementRecords: (count: Int, lines: ClosedRange<Int>)?

    public init(position: SourcePosition, reason: Reason, values: [(String, String)] = []) {
        self.position = position
        self.reason = reason
        self.values = values
    }

    public var isBusy: Bool {
        if case .sqlite(let code, _) = reason { return code & 0xFF == 5 || code & 0xFF == 6 }
        return false
    }

    /// The spellings of a missing value that CSV exports use (R's NA, pandas' nan, ...).
    static let nullSpellings: Set<String> = ["NA", "N/A", "n/a", "#N/A", "NULL", "null", "None", "nan", "NaN", "-", "\\N", "."]
    private static let nullSpellingBytes = nullSpellings.map { Array($0.utf8) }

    /// Whether `text` is one of `nullSpellings`, without making a String of it.
    static func isNullSpelling(_ text: UnsafeRawBufferPointer) -> Bool {
        guard text.count <= 4 else { return false }
        return nullSpellingBytes.contains { $0.elementsEqual(text) }
    }

    /// `--null WORD`, quoted for a shell where the word needs it (`'\\N'`, `'#N/A'`).
    static func nullOption(_ word: String) -> String {
        "--null " + (word.contains("\\") || word.hasPrefix("#") ? "'\(word)'" : word)
    }

    /// "; if NA means a missing value, pass --null NA" when the refused value is one of
    /// `nullSpellings` and the refusal is about its type.
    var nullHint: String {
        let candidates: [String]
        switch reason {
        case .sqlite(_, let message) where message.contains("cannot store") || message.contains("datatype mismatch"):
            candidates = values.map(\.1)
        case .typeMismatch(_, _, let value), .notTheInferredType(_, _, let value, _), .notRepresentable(_, let value, _):
            candidates = [value]
        default:
            candidates = []
        }
        for candidate in candidates {
            let bare = candidate.count >= 2 && candidate.hasPrefix("\"") && candidate.hasSuffix("\"") ? String(candidate.dropFirst().dropLast()) : candidate
            if Self.nullSpellings.contains(bare) {
                return "; if \(bare) means a missing value in this CSV/TSV input, pass \(Self.nullOption(bare))"
            }
        }
        return ""
    }

    public var description: String { text + nullHint }

    /// How the messages of a value that does not fit an inferred type name the sample
    /// (`notTheInferredType`, and PostgreSQL's), for what a checkpointed run adds to them.
    public static let inferredTypePhrase = "which this run inferred from the first"

    private var text: String {
        let valuesText = values.isEmpty ? "" : " (" + values.map { "\(SQLIdentifier.quote($0)) = \($1)" }.joined(separator: ", ") + ")"
        switch reason {
        case .sqlite(_, let message):
            if let statement = statementRecords {
                return "\(position.input):\(statement.lines.lowerBound)–\(statement.lines.upperBound): SQLite refused one of \(statement.count) records of these lines, written as one statement, and rolled the transaction back, so it cannot name the record: \(message). Pass --strategy typed to name it"
            }
            return "\(position): SQLite refused the record: \(message)\(valuesText)"
        case .overriddenConflictClause(let message, let declared):
            var effects: [String] = []
            if declared.contains(where: { $0.hasSuffix("REPLACE") }) { effects.append("a REPLACE would delete the other row that holds the value, a row the input does not name") }
            if declared.contains(where: { $0.hasSuffix("ROLLBACK") }) { effects.append("a ROLLBACK would undo the whole run") }
            let fix = message.hasPrefix("NOT NULL")
                ? "give that field a value, or leave it out of the record so that the column's default fills it"
                : "change the record, change or delete the row that holds the value first, or upsert on that key (--upsert COLUMNS)"
            return "\(position): SQLite refused the record: \(message)\(valuesText). The table declares \(declared.joined(separator: " and ")), which sqlimport's inserts override with ABORT (\(effects.joined(separator: "; "))); \(fix)"
        case .notRepresentable(let column, let value, let why):
            return "\(position): field \(SQLIdentifier.quote(column)) = \(value) \(why)"
        case .typeMismatch(let column, let expected, let value):
            return "\(position): field \(SQLIdentifier.quote(column)) = \(value) is not a valid \(expected) for that column; fix the input or change the column's type"
        case .nullInNotNullColumn(let column):
            return "\(position): field \(SQLIdentifier.quote(column)) is null but the column is NOT NULL; supply a value"
        case .notTheInferredType(let column, let type, let value, let sampleRows):
            return "\(position): field \(SQLIdentifier.quote(column)) = \(value) does not fit the column's type \(type), \(WriteError.inferredTypePhrase) \(sampleRows) records. Pass --type \(column)=TEXT (or the type that holds every value), or --infer-rows all to type it from every record"
        case .deferredUniqueIndex(let message):
            return "\(position): this record updates a row, so the unique indexes this first load had deferred were built first, and \(message)"
        case .repeatedKey(let key):
            return "\(position): the record repeats the key\(key.isEmpty ? "" : " " + key) of an earlier record of this run (--duplicate-keys error); nothing was committed. Remove one of them, or drop --duplicate-keys error to let the later record win"
        case .identityConflict(let target, let primaryKey):
            return "\(position): the record's key \(target) and its primary key \(primaryKey) belong to different rows (or the row with that primary key holds another key), so applying it would merge two rows into one; fix the record's keys in the input, or delete the stale row first (--on-error skip sets such records aside)"
        }
    }
}
