import ArgumentParser
import Foundation
import GRDB
import SQLImportKit

/// `sqlimport inspect TABLE`: columns, primary key and unique keys, each key as a
/// ready-to-use `--upsert` value.
struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a table's columns and the keys --upsert can use.")

    @OptionGroup var database: DatabaseOption

    @Argument(help: "The table to describe.")
    var table: String

    @Option(help: ArgumentHelp("Also show how the nested objects of this input's first records fill the table's columns (--flatten): column groups and enums.", valueName: "file"), completion: .file())
    var sample: String?

    @Option(name: .customLong("flatten-by"), help: ArgumentHelp("With --sample: map nested fields only by leaf or only by prefix names.", valueName: "leaf|prefix"))
    var flattenBy: FlattenNaming?

    @Option(name: .customLong("enum"), help: ArgumentHelp("With --sample: enum case columns, as import takes them (repeatable).", valueName: "field=col,col,..."))
    var enumGroups: [String] = []

    @Option(name: .customLong("group"), help: ArgumentHelp("With --sample: a nested field that is a column group, never an enum (repeatable).", valueName: "field"))
    var columnGroups: [String] = []

    @Flag(name: .shortAndLong, help: "Print nothing but the listing and errors (inspect prints nothing else; taken by every subcommand).")
    var quiet = false

    func validate() throws {
        try RepeatedOptions.refuse(in: Self.self)
        if PostgresConnection.isURL(database.resolved) && (sample != nil || flattenBy != nil || !enumGroups.isEmpty || !columnGroups.isEmpty) {
            throw ValidationError("--sample, --flatten-by, --enum and --group read SQLite tables only so far; drop them for a PostgreSQL database")
        }
        for group in enumGroups {
            do { _ = try EnumGroup(argument: group) } catch { throw ValidationError(error.description) }
        }
    }

    func run() throws {
        if PostgresConnection.isURL(database.resolved) { return try inspectPostgreSQL() }
        let schema: TableSchema?
        var nested: NestedFieldsSample?
        var tables: [String] = []
        do {
            let queue = try SourceDatabase.openReadOnly(path: database.resolved, busyTimeoutMilliseconds: 5000)
            schema = try queue.read { try TableSchema.read($0, table: TableSchema.resolveName($0, requested: table)) }
            if schema == nil {
                tables = try queue.read {
                    try String.fetchAll($0, sql: "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
                }
            }
            if let sample, let schema {
                nested = try NestedFieldsSample.read(
                    input: sample, schema: schema, naming: flattenBy ?? .auto, declared: enumGroups.compactMap { try? EnumGroup(argument: $0) },
                    groups: columnGroups)
            }
        } catch {
            FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error, database: database.resolved))")
            throw ExitCode(ExitStatus.code(for: error))
        }
        guard let schema else {
            let list = tables.isEmpty ? "it has no tables" : "it has " + tables.map(SQLIdentifier.quote).joined(separator: ", ")
            FileHandle.standardError.writeLine("sqlimport: error: no table \(SQLIdentifier.quote(table)) in \(database.resolved) (\(list)); check the name and --db")
            throw ExitCode(ExitStatus.usage)
        }
        var text = Self.describe(schema)
        if let nested, let sample { text += "\n" + Self.describe(nested, input: sample) }
        StandardOutput.write(text + "\n")
    }

    /// `inspect TABLE --db postgresql://...`: the columns and the keys `--upsert` takes,
    /// from PostgreSQL's catalog.
    private func inspectPostgreSQL() throws {
        let schema: PostgresSchema?
        do {
            schema = try PostgresSchema.read(try PostgresConnection(url: database.resolved), table: table)
        } catch {
            FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error, database: database.resolved))")
            throw ExitCode(ExitStatus.code(for: error))
        }
        guard let schema else {
            FileHandle.standardError.writeLine("sqlimport: error: no table \(SQLIdentifier.quote(table)) in the database's search path")
            throw ExitCode(ExitStatus.usage)
        }
        var lines = ["table \(schema.qualifiedName) (PostgreSQL)", "columns:"]
        for column in schema.columns {
            lines.append("  \(column.name)  \(column.type)\(column.notNull ? " NOT NULL" : "")\(column.hasDefault ? " (has a default)" : "")")
        }
        lines.append("primary key: \(schema.primaryKey?.columns.joined(separator: ", ") ?? "none")")
        lines.append("upsert keys:")
        if schema.uniqueKeys.isEmpty { lines.append("  none; create a unique index first") }
        for key in schema.uniqueKeys {
            var text = "  --upsert \(key.columns.joined(separator: ","))  (\(key.isPrimaryKey ? "primary key" : "unique index") \(key.name))"
            if let predicate = key.predicate { text += "\n      partial: WHERE \(predicate)" }
            lines.append(text)
        }
        StandardOutput.write(lines.joined(separator: "\n") + "\n")
    }

    /// The nested fields of a sample: groups with their columns, enums, and the flags.
    static func describe(_ sample: NestedFieldsSample, input: String) -> String {
        var lines = ["nested fields in the first \(sample.records) records of \(input) (import with --flatten):"]
        if sample.groups.isEmpty { lines.append("  none") }
        for group in sample.groups {
            let enumGroup = sample.enums.first { $0.field.sqliteFolded == group.field.sqliteFolded }
            let kind = enumGroup != nil ? "enum" : "column group"
            lines.append("  \(group.field): \(kind)\(group.naming.isEmpty ? "" : ", by \(group.naming) name")")
            for (path, column) in group.columns {
                let target = column.map { SQLIdentifier.quote($0) } ?? (path.hasSuffix(".") ? "no column: a case with no value" : "no column (--alter adds it)")
                lines.append("    \(path) → \(target)")
            }
            if let enumGroup {
                lines.append("    a case clears the others among \(enumGroup.columns.joined(separator: ", ")): --enum \(enumGroup)")
            }
        }
        if let problem = sample.problem { lines.append("an import would stop: \(problem)") }
        return lines.joined(separator: "\n")
    }

    static func describe(_ schema: TableSchema) -> String {
        var lines = ["table \(SQLIdentifier.quote(schema.name))\(schema.isStrict ? " STRICT" : "")\(schema.isWithoutRowid ? " WITHOUT ROWID" : "")"]
        lines.append("columns:")
        for column in schema.columns {
            var attributes: [String] = [column.declaredType.isEmpty ? "(no type)" : column.declaredType]
            if column.notNull { attributes.append("NOT NULL") }
            if let value = column.defaultSQL { attributes.append("DEFAULT \(value)") }
            if !column.isWritable { attributes.append("generated") }
            lines.append("  \(column.name)  \(attributes.joined(separator: " "))")
        }
        let primaryKey = schema.primaryKey
        lines.append("primary key: \(primaryKey.isEmpty ? "none (rowid)" : primaryKey.joined(separator: ", "))\(schema.rowidAlias != nil ? " (rowid alias)" : "")")
        lines.append("upsert keys:")
        if schema.uniqueKeys.isEmpty { lines.append("  none; add one with --create-index") }
        for key in schema.uniqueKeys {
            let origin = "\(key.origin.rawValue)\(key.indexName.map { " \($0)" } ?? "")"
            let generated = key.columns.filter { name in schema.columnIndex(named: name).map { !schema.columns[$0].isWritable } ?? false }
            if !generated.isEmpty {
                // `--upsert` refuses it (`UpsertError.generatedKeyColumn`): no record supplies it.
                lines.append("  (\(key.columns.joined(separator: ", ")))  (\(origin)): not an --upsert key, \(SQLIdentifier.quoteList(generated)) is generated")
                continue
            }
            var text = "  --upsert \(key.upsertArgument)  (\(origin))"
            if let predicate = key.partialPredicate { text += "\n      partial: WHERE \(predicate)" }
            lines.append(text)
        }
        return lines.joined(separator: "\n")
    }
}
