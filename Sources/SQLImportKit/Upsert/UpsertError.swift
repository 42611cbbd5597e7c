/// Errors of upsert planning. Each says how to fix the problem.
public enum UpsertError: Error, Sendable, CustomStringConvertible {
    case noMatchingKey(table: String, requested: [String], available: [UniqueKey])
    case unknownKeyColumn(table: String, column: String)
    case keyNotInInput(column: String)
    /// A generated column in `--upsert`: records cannot carry its value.
    case generatedKeyColumn(table: String, column: String)
    case newerColumnMissing(column: String, table: String)
    case duplicateKeysBlockIndex(table: String, columns: [String], example: String)
    case conflictClauseRejected(sql: String, message: String)
    case emptyKey
    /// `--null-key error`: a record the conflict target cannot match on a re-run.
    /// `isPrimaryKey`: the key is the table's primary key, which no other key stands in for.
    case nullKey(position: SourcePosition, key: String, why: String, isPrimaryKey: Bool = false)
    /// `--duplicate-keys error`: a record repeats an earlier record's key (`earlier`: that
    /// record's position, nil where it is not known).
    case duplicateKey(earlier: String?, later: SourcePosition, key: String)
    /// PostgreSQL: the table has INSERT rules (`onInsert`) or UPDATE rules, with which
    /// PostgreSQL refuses `INSERT ... ON CONFLICT` (and, for INSERT rules, an INSERT in a
    /// `WITH` query).
    case rulesRefuseWrites(table: String, rules: String, onInsert: Bool)
    /// A table created by this run needs a primary key for records with a NULL key column.
    case nullKeyNeedsPrimaryKey(table: String, columns: [String], position: SourcePosition)

    public var description: String {
        switch self {
        case .noMatchingKey(let table, let requested, let available):
            var text = "--upsert \(requested.joined(separator: ",")) matches no primary key, UNIQUE constraint or unique index of \(SQLIdentifier.quote(table))."
            if available.isEmpty {
                text += " The table has no unique key at all."
            } else {
                text += " Its unique keys are:"
                for key in available {
                    text += "\n  --upsert \(key.upsertArgument)  (\(key.origin.rawValue)\(key.indexName.map { " \($0)" } ?? "")\(key.partialPredicate.map { ", partial: WHERE \($0)" } ?? ""))"
                }
            }
            text += available.isEmpty
                ? "\nAdd --create-index to create a unique index on (\(requested.joined(separator: ", ")))."
                : "\nUse one of them, or add --create-index to create a unique index on (\(requested.joined(separator: ", ")))."
            return text
        case .unknownKeyColumn(let table, let column):
            return "--upsert names \(SQLIdentifier.quote(column)), which is not a column of \(SQLIdentifier.quote(table)); run `sqlimport inspect \(table)` to list its keys"
        case .generatedKeyColumn(let table, let column):
            return "--upsert: column \(SQLIdentifier.quote(column)) of \(SQLIdentifier.quote(table)) is generated, so records cannot carry its value, and sqlimport matches each record by the key values it carries; upsert on another unique key (the primary key, or an index on the columns it is generated from)"
        case .keyNotInInput(let column):
            return "the input has no field \(SQLIdentifier.quote(column)), which --upsert needs to find existing rows; add it to the input or choose another key"
        case .newerColumnMissing(let column, let table):
            return "--merge newer:\(column): \(SQLIdentifier.quote(table)) has no such column, or the input does not supply it; name the column that holds the row's version, e.g. newer:updatedAt"
        case .duplicateKeysBlockIndex(let table, let columns, let example):
            return "--create-index: \(SQLIdentifier.quote(table)) already holds several rows with (\(columns.joined(separator: ", "))) = \(example); remove the duplicates before making this key unique"
        case .conflictClauseRejected(let sql, let message):
            return "SQLite rejected the upsert statement: \(message)\n  \(sql)"
        case .emptyKey:
            return "--upsert needs at least one column name, e.g. --upsert id"
        case .nullKey(let position, let key, let why, let isPrimaryKey):
            let supply = isPrimaryKey
                ? "Give each record a value for that key"
                : "Supply the table's primary key in each record (its rows are then matched by it)"
            return "\(position): the record's key \(key) \(why), so a re-run could not find its row and would insert it again; nothing was committed. \(supply), or pass --null-key insert to insert such records anyway or --null-key skip to set them aside"
        case .rulesRefuseWrites(let table, let rules, let onInsert):
            return onInsert
                ? "\(SQLIdentifier.quote(table)) has INSERT rules (\(rules)), and PostgreSQL refuses the statements sqlimport writes with (INSERT ... ON CONFLICT, and INSERT in a WITH query) on such a table; nothing was written. Replace the rules with triggers"
                : "--upsert: \(SQLIdentifier.quote(table)) has UPDATE rules (\(rules)), and PostgreSQL refuses INSERT ... ON CONFLICT on such a table; nothing was written. Replace the rules with triggers, or import without --upsert (plain inserts)"
        case .duplicateKey(let earlier, let later, let key):
            let record = earlier.map { "the record at \($0)" } ?? "an earlier record of this run"
            return "\(later): the record repeats the key \(key) of \(record) (--duplicate-keys error); nothing was committed. Remove one of them, or drop --duplicate-keys error to let the later record win"
        case .nullKeyNeedsPrimaryKey(let table, let columns, let position):
            return "\(position): --upsert column(s) \(columns.map(SQLIdentifier.quote).joined(separator: ", ")) are null here, so they cannot be the primary key of the new table \(SQLIdentifier.quote(table)), and the input has no \"id\" field to key it instead; pass --pk COLUMN (a field that is never null), and sqlimport makes the --upsert columns a unique index WHERE they are NOT NULL"
        }
    }
}
