/// Errors of upsert planning. Each says how to fix the problem.
public enum UpsertError: Error, Sendable, CustomStringConvertible {
    case noMatchingKey(table: String, requested: [String], available: [UniqueKey])
    case unknownKeyColumn(table: String, column: String)
    case keyNotInInput(column: String)
    case newerColumnMissing(column: String, table: String)
    case duplicateKeysBlockIndex(table: String, columns: [String], example: String)
    case conflictClauseRejected(sql: String, message: String)
    case emptyKey

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
            text += "\nUse one of them, or add --create-index to create a unique index on (\(requested.joined(separator: ", ")))."
            return text
        case .unknownKeyColumn(let table, let column):
            return "--upsert names \(SQLIdentifier.quote(column)), which is not a column of \(SQLIdentifier.quote(table)); run `sqlimport inspect \(table)` to list its keys"
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
        }
    }
}
