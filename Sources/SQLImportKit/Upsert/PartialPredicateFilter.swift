import Foundation
import GRDBSQLite

/// Tells whether a record falls inside a partial index's predicate. Records outside it
/// can never conflict on that index: they are plain inserts (or go to the primary-key
/// clause), and the summary counts them as `outsidePartialIndex`.
///
/// The common predicates `col IS NOT NULL` and `col IS NULL` (a soft delete) are decided
/// from the cell where it is the stored value (neither affinity nor collation changes
/// whether a value is NULL); any other predicate is evaluated by SQLite on the row it
/// would store. That row is made in a copy of the table's columns (their affinities, collations, defaults and generated columns, without
/// constraints) in a private in-memory database:
/// `INSERT INTO "items" ("a", "b") VALUES (?1, ?2)`, then `SELECT (<predicate>) FROM
/// "items"` (not `RETURNING`, whose expressions lose the columns' collations). So
/// `g INTEGER AS (substr(s, 1, 2))` holds the integer 12 that `WHERE g = 12` compares, and
/// a `COLLATE NOCASE` column matches `WHERE s = 'SEED'` as the index does. The private
/// connection keeps the probe rows out of the run's transaction and savepoints.
final class PartialPredicateFilter {
    private let predicate: String
    private let table: String
    private let nullTest: (column: String, isNotNull: Bool)?
    private var inserters: [ObjectIdentifier: OpaquePointer] = [:]
    /// Shapes whose records the probe cannot judge (`inserter(for:)`).
    private var unjudgedShapes: Set<ObjectIdentifier> = []
    /// Whether `nullTest`'s column, when a record omits it, may hold a value in the row
    /// SQLite stores (a DEFAULT or a generated column), decided once.
    private var omittedColumnMayHoldValue: Bool?
    /// Whether a NULL given for `nullTest`'s column stores its default (`NOT NULL ON CONFLICT
    /// REPLACE DEFAULT ...`), decided once.
    private var nullStoresDefault: Bool?
    /// The in-memory database that holds the probe table, the statement that evaluates
    /// the predicate on its row, and the one that empties it.
    private var probe: OpaquePointer?
    private var evaluation: OpaquePointer?
    private var emptyProbe: OpaquePointer?

    init(predicate: String, table: String) {
        self.predicate = predicate
        self.table = table
        nullTest = Self.nullTest(in: predicate)
    }

    deinit {
        for statement in inserters.values { sqlite3_finalize(statement) }
        sqlite3_finalize(evaluation)
        sqlite3_finalize(emptyProbe)
        sqlite3_close_v2(probe)
    }

    /// The column of a predicate of the form `col IS NOT NULL` or `col IS NULL` (bare or
    /// quoted), and which of the two it is.
    static func nullTest(in predicate: String) -> (column: String, isNotNull: Bool)? {
        var text = Substring(predicate.trimmingSQLWhitespace())
        let name: String
        if text.first == "\"" {
            var collected = ""
            var index = text.index(after: text.startIndex)
            while index < text.endIndex {
                if text[index] == "\"" {
                    let next = text.index(after: index)
                    if next < text.endIndex, text[next] == "\"" {
                        collected.append("\"")
                        index = text.index(after: next)
                        continue
                    }
                    break
                }
                collected.append(text[index])
                index = text.index(after: index)
            }
            guard index < text.endIndex else { return nil }
            name = collected
            text = text[text.index(after: index)...]
        } else {
            let word = text.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
            guard !word.isEmpty else { return nil }
            name = String(word)
            text = text.dropFirst(word.count)
        }
        let words = text.split(whereSeparator: \.isWhitespace).map { $0.uppercased() }
        switch words {
        case ["IS", "NOT", "NULL"]: return (name, true)
        case ["IS", "NULL"]: return (name, false)
        default: return nil
        }
    }

    func isInside(row: Int, of batch: RecordBatch, shape: RowShape, session: WriteSession, bytes: UnsafePointer<UInt8>) throws -> Bool {
        if let (column, isNotNull) = nullTest {
            if shape.notNullPosition == nil {
                shape.notNullPosition = .some(shape.statement.columns.firstIndex { $0.sqliteFolded == column.sqliteFolded })
            }
            if omittedColumnMayHoldValue == nil {
                let stored = session.schema.columnIndex(named: column).map { session.schema.columns[$0] }
                omittedColumnMayHoldValue = stored?.defaultSQL != nil || stored?.generatedSQL != nil
                nullStoresDefault = stored?.defaultSQL != nil && stored?.replacesNull == true
            }
            if let position = shape.notNullPosition! {
                let kind = batch.cell(row: row, column: shape.inputColumns[position]).kind
                if kind != .absent, kind != .null || nullStoresDefault == false { return (kind != .null) == isNotNull }
            }
            // Omitted (or NULL where SQLite stores the default instead): NULL, unless the
            // column has a DEFAULT or is generated, which the row SQLite would store holds
            // (`DEFAULT CURRENT_TIMESTAMP`).
            if omittedColumnMayHoldValue == false { return !isNotNull }
        }
        guard let statement = try inserter(for: shape, session: session) else { return true }
        do {
            try session.bindRow(row, of: batch, shape: shape, to: statement, bytes: bytes)
        } catch {
            // A value the binder refuses (`0959` into an INTEGER column): the record's
            // statement refuses it too, naming the field, and `--on-error skip` sets it
            // aside there. (Thrown from here, it ended the run as an internal error.)
            return true
        }
        let inserted = sqlite3_step(statement) == SQLITE_DONE
        sqlite3_reset(statement)
        // A probe row SQLite cannot make (a NOT NULL column left NULL, which the copy
        // keeps only where it stores the default): the record's own statement refuses it,
        // naming the field, so it is judged inside here.
        guard inserted else { return true }
        let inside = sqlite3_step(evaluation) == SQLITE_ROW
            && sqlite3_column_type(evaluation, 0) != SQLITE_NULL && sqlite3_column_int64(evaluation, 0) != 0
        sqlite3_reset(evaluation)
        sqlite3_step(emptyProbe)
        sqlite3_reset(emptyProbe)
        return inside
    }

    /// The statement that inserts a record of `shape` into the probe; nil where the probe
    /// cannot judge it: a record that omits the rowid alias the predicate names gets the
    /// table's next rowid, which the probe does not know, and is judged inside (SQLite's
    /// own upsert then decides; only the count could be off).
    private func inserter(for shape: RowShape, session: WriteSession) throws -> OpaquePointer? {
        if let statement = inserters[ObjectIdentifier(shape)] { return statement }
        if unjudgedShapes.contains(ObjectIdentifier(shape)) { return nil }
        if let alias = session.schema.rowidAlias,
            !shape.statement.columns.contains(where: { $0.sqliteFolded == alias.sqliteFolded }),
            ([alias, "rowid", "_rowid_", "oid"]).contains(where: { predicate.range(of: $0, options: .caseInsensitive) != nil })
        {
            unjudgedShapes.insert(ObjectIdentifier(shape))
            return nil
        }
        let probe = try probe ?? makeProbe(session: session)
        // Parameters are numbered in the statement's column order, as `bindRow` binds them.
        let columns = shape.statement.columns
        let values = columns.isEmpty
            ? "DEFAULT VALUES"
            : "(\(SQLIdentifier.quoteList(columns))) VALUES (\((1 ... columns.count).map { "?\($0)" }.joined(separator: ", ")))"
        let sql = "INSERT INTO \(SQLIdentifier.quote(table)) \(values)"
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(probe, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw UpsertError.conflictClauseRejected(sql: sql, message: String(cString: sqlite3_errmsg(probe)))
        }
        inserters[ObjectIdentifier(shape)] = statement
        return statement
    }

    /// A DEFAULT's text as `PRAGMA table_info` gives it, as a column definition takes it:
    /// an expression in parentheses, but a bare or quoted word as written (`DEFAULT live`
    /// and `DEFAULT "import"` are strings to SQLite there, and identifiers in parentheses).
    static func defaultClause(_ text: String) -> String {
        let isWord = text.first.map { $0 == "_" || $0.isLetter } == true && text.allSatisfy { $0 == "_" || $0 == "$" || $0.isLetter || $0.isNumber }
        let quotes: [(Character, Character)] = [("\"", "\""), ("`", "`"), ("[", "]")]
        // One quoted word (`"a" || "b"` is two): no closing quote inside but doubled ones.
        let isQuotedWord = text.count >= 2 && quotes.contains { open, close in
            guard text.first == open, text.last == close else { return false }
            let inner = String(text.dropFirst().dropLast())
            return !(open == close ? inner.replacingOccurrences(of: "\(close)\(close)", with: "") : inner).contains(close)
        }
        return isWord || isQuotedWord ? text : "(\(text))"
    }

    /// Opens the in-memory database and makes the probe table: the table's name and
    /// columns, each with its affinity (a canonical type name: the declared one is the
    /// schema's text, never spliced), collation, DEFAULT or generation expression, and
    /// `NOT NULL ON CONFLICT REPLACE` where it stores the default for a NULL.
    private func makeProbe(session: WriteSession) throws -> OpaquePointer {
        var connection: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &connection, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK, let connection else {
            sqlite3_close_v2(connection)
            throw UpsertError.conflictClauseRejected(sql: ":memory:", message: "cannot open an in-memory database")
        }
        probe = connection
        // SQLiteData's ids default to `uuid()`, which the run's own connection defines
        // where the app's is missing (`Importer`): the probe's defaults call it too.
        sqlite3_create_function_v2(connection, "uuid", 0, SQLITE_UTF8, nil, { context, _, _ in
            let text = UUID().uuidString.lowercased()
            sqlite3_result_text(context, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        }, nil, nil, nil)
        let schema = session.schema
        let definitions = schema.columns.indices.map { index -> String in
            let column = schema.columns[index]
            var definition = "\(SQLIdentifier.quote(column.name)) \(schema.affinity(ofColumn: index).rawValue)"
            if column.name == schema.rowidAlias { definition += " PRIMARY KEY" }
            let collation = TableSchema.collation(of: column.name, in: schema.name, connection: session.connection)
            definition += " COLLATE \(SQLIdentifier.quote(collation))"
            if let generated = column.generatedSQL {
                definition += " AS (\(generated))"
            } else {
                if column.replacesNull { definition += " NOT NULL ON CONFLICT REPLACE" }
                if let value = column.defaultSQL { definition += " DEFAULT \(Self.defaultClause(value))" }
            }
            return definition
        }
        // One transaction for the probe's life: a statement in autocommit mode would begin
        // and commit one of its own, which cost more than the evaluation.
        let create = "CREATE TABLE \(SQLIdentifier.quote(table)) (\(definitions.joined(separator: ", "))); BEGIN"
        guard sqlite3_exec(connection, create, nil, nil, nil) == SQLITE_OK else {
            throw UpsertError.conflictClauseRejected(sql: create, message: String(cString: sqlite3_errmsg(connection)))
        }
        for (sql, statement) in [
            ("SELECT (\(predicate)) FROM \(SQLIdentifier.quote(table))", \PartialPredicateFilter.evaluation),
            ("DELETE FROM \(SQLIdentifier.quote(table))", \PartialPredicateFilter.emptyProbe),
        ] {
            guard sqlite3_prepare_v3(connection, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &self[keyPath: statement], nil) == SQLITE_OK else {
                throw UpsertError.conflictClauseRejected(sql: sql, message: String(cString: sqlite3_errmsg(connection)))
            }
        }
        return connection
    }
}
