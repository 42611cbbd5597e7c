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

    func run() throws {
        let schema: TableSchema?
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let queue = try DatabaseQueue(path: database.resolved, configuration: configuration)
            schema = try queue.read { try TableSchema.read($0, table: TableSchema.resolveName($0, requested: table)) }
        } catch {
            FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error))")
            throw ExitCode(ExitStatus.code(for: error))
        }
        guard let schema else {
            FileHandle.standardError.writeLine("sqlimport: error: no table \(SQLIdentifier.quote(table)) in \(database.resolved)")
            throw ExitCode(ExitStatus.usage)
        }
        StandardOutput.write(Self.describe(schema) + "\n")
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
            var text = "  --upsert \(key.upsertArgument)  (\(key.origin.rawValue)\(key.indexName.map { " \($0)" } ?? ""))"
            if let predicate = key.partialPredicate { text += "\n      partial: WHERE \(predicate)" }
            lines.append(text)
        }
        return lines.joined(separator: "\n")
    }
}
