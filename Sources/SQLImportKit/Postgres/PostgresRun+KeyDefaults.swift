/// A record that omits a column of the conflict target whose DEFAULT is a literal has
/// that default as its key, as on SQLite (`ImportRun.fillKeyDefaults`): PostgreSQL's own
/// `INSERT ... ON CONFLICT` gives the row the default and matches on it. (The record went
/// the NULL-key route, and `--null-key insert` stored NULL where the column's default
/// belonged.)
extension PostgresRun {
    /// The target's columns with a literal default, and the default's text: read once.
    func targetLiteralDefaults() throws -> [String: String] {
        if let known = targetDefaults { return known }
        var found: [String: String] = [:]
        for column in target?.columns ?? [] where schema.column(named: column)?.hasDefault == true {
            guard let expression = try schema.defaultExpression(of: column, connection), Self.isLiteral(expression),
                let text = try connection.query("SELECT (\(expression))::text").first?[0] ?? nil
            else { continue }
            found[column] = text
        }
        targetDefaults = found
        return found
    }

    /// Fills the target's columns that records of `batch` omit with their literal
    /// defaults, as text for COPY to parse into the column's type.
    func fillKeyDefaults(_ batch: RecordBatch) throws {
        guard target != nil else { return }
        let defaults = try targetLiteralDefaults()
        for (column, text) in defaults.sorted(by: { $0.key < $1.key }) {
            guard let field = columnOfField.firstIndex(where: { $0 == column }) else { continue }
            batch.fillAbsent(column: field, text: text, kind: .untypedText)
        }
    }

    /// Whether a default, as `pg_get_expr` prints it, is a literal: a number, a string or a
    /// boolean, with casts (`'r'::text`, `0`, `'{}'::jsonb`, `(-1)`). `nextval(...)`,
    /// `now()` and other expressions are the server's to compute on each insert.
    static func isLiteral(_ expression: String) -> Bool {
        expression.wholeMatch(
            of: /\(*('([^']|'')*'|[+-]?\d+(\.\d+)?([eE][+-]?\d+)?|true|false)\)*(::[a-zA-Z_][a-zA-Z0-9_ ]*(\(\d+(,\s*\d+)?\))?(\[\])?)*/) != nil
    }
}
