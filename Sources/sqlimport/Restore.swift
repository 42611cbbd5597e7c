import ArgumentParser
import Foundation
import SQLImportKit

/// `sqlimport restore SNAPSHOT --db PATH`: decompress, check and install a snapshot. Only
/// adapts flags to `RestoreOptions`.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a snapshot into a new database file, after an integrity check.",
        discussion: """
            The database appears, by an atomic rename, only once the snapshot has decompressed completely and \
            passed PRAGMA integrity_check. A truncated or damaged snapshot exits 65 and leaves the target untouched.
            """)

    @Argument(help: ArgumentHelp("The snapshot (FILE.sqlite.zst), or - for standard input.", valueName: "snapshot"), completion: .file())
    var snapshot: String

    @OptionGroup var database: DatabaseOption

    @Flag(help: "Replace an existing database. No other process may have it open.")
    var force = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors.")
    var quiet = false

    func validate() throws {
        try RepeatedOptions.refuse(in: Self.self)
        try database.refusePostgreSQL("restore")
    }

    func run() throws {
        Signals.removeTemporaryFilesAndExit()
        var options = RestoreOptions(snapshotPath: snapshot, databasePath: database.resolved)
        options.force = force
        do {
            let summary = try Restorer(options: options).run()
            if !quiet {
                FileHandle.standardError.writeLine("\(summary.database): restored from \(snapshot) (\(SummaryFormatter.grouped(Int(summary.databaseBytes))) bytes, integrity_check ok)")
            }
        } catch {
            FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error))")
            throw ExitCode(ExitStatus.code(for: error))
        }
    }
}
