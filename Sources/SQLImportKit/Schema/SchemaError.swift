/// Errors about tables and columns. Each says how to fix the problem.
public enum SchemaError: Error, Sendable, CustomStringConvertible {
    case notATable(name: String, kind: String)
    /// `at`: where the first such field is: the first record that holds it, or a CSV
    /// header.
    case unknownFields(table: String, fields: [String], at: String? = nil)
    /// `--pk` or `--type` that the existing table would ignore.
    case optionForNewTable(String)
    /// A field that matches several columns of a PostgreSQL table only ignoring case.
    case ambiguousField(table: String, field: String, columns: [String])
    /// A flag's column name (`--upsert`, `--scope`, `--merge newer:`) that matches several
    /// columns of a PostgreSQL table only ignoring case.
    case ambiguousColumnInOption(option: String, name: String, table: String, columns: [String])
    /// Fields naming generated columns (`GENERATED ALWAYS AS`), which no statement writes.
    case generatedColumnsInInput(table: String, fields: [String])
    /// `input`: the input whose records first went to the table without the field.
    case missingRequiredColumn(table: String, column: String, input: String? = nil)
    case fieldsCollide(table: String, fields: [String], column: String, at: String? = nil)
    case tooManyColumns(table: String, count: Int, limit: Int, at: String? = nil)
    case invalidTypeOverride(String)
    case unknownColumnInOption(option: String, column: String, table: String)
    case noColumns(input: String)
    /// A unique index deferred during a first load refuses rows the load inserted.
    case duplicatesForUniqueIndex(table: String, index: String, message: String)
    /// `--table schema.name` with a schema other than `main`.
    case unknownSchema(name: String, schema: String)
    /// `--table schema.name` on PostgreSQL whose schema the database does not have.
    case unknownPostgresSchema(name: String, schema: String)

    /// A field name that is a number (`2`, `3.5`): a header line that is really a record.
    static func isNumber(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { TypeTracker.classify(UnsafeRawBufferPointer($0)) != .text }
    }

    /// A field name with a leading or trailing space, as `year, month` headers give.
    static func isPadded(_ name: String) -> Bool {
        name.first == " " || name.last == " "
    }

    public var description: String {
        switch self {
        case .notATable(let name, let kind):
            return "\(SQLIdentifier.quote(name)) is a \(kind), not a table; choose another name with --table"
        case .unknownFields(let table, let fields, let position):
            let padded = fields.filter(Self.isPadded)
            let numeric = position?.hasSuffix("(the header)") == true ? fields.filter(Self.isNumber) : []
            let hint = !padded.isEmpty
                ? "; \(padded.map(SQLIdentifier.quote).joined(separator: ", ")) begin or end with a space (a header written as \"a, b\"): remove the spaces from the header line, e.g. sed -i '1s/ *, */,/g' FILE"
                : numeric.isEmpty ? ""
                : "; \(numeric.map(SQLIdentifier.quote).joined(separator: ", ")) is a number: if the file has no header line, its first record was read as one. Give the file a header line naming the table's columns (--no-header names them c1…cN)"
            return "\(position.map { "\($0): " } ?? "")table \(SQLIdentifier.quote(table)) has no column for field(s) \(fields.map(SQLIdentifier.quote).joined(separator: ", "))\(hint.isEmpty ? "; re-run with --alter to add them, or --ignore-unknown to drop them" : hint)"
        case .optionForNewTable(let message):
            return message
        case .ambiguousField(let table, let field, let columns):
            return "field \(SQLIdentifier.quote(field)) matches columns \(columns.map(SQLIdentifier.quote).joined(separator: " and ")) of \(SQLIdentifier.quote(table)), which differ only in case; spell the field exactly as the column it is for"
        case .ambiguousColumnInOption(let option, let name, let table, let columns):
            // (`--merge newer:` takes the name without a space.)
            let spelled = { (name: String) in option.hasSuffix(":") ? option + name : option + " " + name }
            return "\(spelled(name)) matches columns \(columns.map(SQLIdentifier.quote).joined(separator: " and ")) of \(SQLIdentifier.quote(table)), which differ only in case; spell the column exactly (\(columns.map(spelled).joined(separator: " or ")))"
        case .generatedColumnsInInput(let table, let fields):
            return "\(fields.map(SQLIdentifier.quote).joined(separator: ", ")) \(fields.count == 1 ? "is a generated column" : "are generated columns") of \(SQLIdentifier.quote(table)): the database computes \(fields.count == 1 ? "it" : "them") (an expression, or an identity GENERATED ALWAYS) and cannot store a given value (an export of the table holds them); pass --ignore-unknown to drop those fields"
        case .missingRequiredColumn(let table, let column, let input):
            return "\(input.map { "\($0): " } ?? "")column \(SQLIdentifier.quote(column)) of \(SQLIdentifier.quote(table)) is NOT NULL without a default, and the input has no such field; add it to the input or give the column a default"
        case .fieldsCollide(let table, let fields, let column, let position):
            return "\(position.map { "\($0): " } ?? "")fields \(fields.map(SQLIdentifier.quote).joined(separator: " and ")) both map to column \(SQLIdentifier.quote(column)) of \(SQLIdentifier.quote(table)) (SQLite column names ignore case); rename one in the input"
        case .tooManyColumns(let table, let count, let limit, let position):
            return "\(position.map { "\($0): " } ?? "")the input has \(count) fields but SQLite allows at most \(limit) columns in \(SQLIdentifier.quote(table)); drop fields with --ignore-unknown against a narrower table"
        case .invalidTypeOverride(let text):
            return "--type \(text): expected COLUMN=TYPE with TYPE one of INTEGER, REAL, TEXT, BLOB, ANY"
        case .unknownColumnInOption(let option, let column, let table):
            return "\(option) names \(SQLIdentifier.quote(column)), which is neither a field of the input nor a column of \(SQLIdentifier.quote(table))"
        case .duplicatesForUniqueIndex(let table, let index, let message):
            return "the input holds records that unique index \(SQLIdentifier.quote(index)) of \(SQLIdentifier.quote(table)) refuses (\(message)); nothing was committed. Make those keys unique, or upsert on that index with --upsert"
        case .unknownSchema(let name, let schema):
            if schema.sqliteFolded == "temp" || schema.sqliteFolded == "temporary" {
                return "--table \(name): a temporary table vanishes when the run's connection closes, so nothing would be kept; name a table of the main database"
            }
            return "--table \(name): the database has no schema \(SQLIdentifier.quote(schema)) (only main) and no table of that exact name; pass the table's name without a prefix, or main.NAME"
        case .unknownPostgresSchema(let name, let schema):
            if schema.isEmpty || name.hasSuffix(".") {
                return "--table \(name): a schema-qualified name has both parts, SCHEMA.TABLE; pass the table's name, with its schema's before a dot if it is not in the search path"
            }
            return "--table \(name): the database has no schema \(SQLIdentifier.quote(schema)) and no table of that exact name in the search path; create the schema first (CREATE SCHEMA), or pass the table's name without a prefix"
        case .noColumns(let input):
            return "\(input): no records with fields, so no table can be created; check the input or create the table first"
        }
    }
}
