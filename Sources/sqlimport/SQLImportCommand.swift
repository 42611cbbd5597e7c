import ArgumentParser
import Foundation
import SQLImportKit

/// `sqlimport`: bulk data into and out of SQLite. `sqlimport FILE` runs `import`.
@main
struct SQLImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sqlimport",
        abstract: "Stream JSON Lines, JSON, CSV and TSV into SQLite, and upsert them safely.",
        discussion: """
            EXAMPLES:
              Upsert each record on the unique index (libraryID, remoteID):
                sqlimport items.jsonl --db app.db --upsert libraryID,remoteID
              The table's columns, and the keys --upsert accepts:
                sqlimport inspect items --db app.db
              Rehearse a delta, nothing written:
                sqlimport delta.jsonl --db app.db --table items --upsert id \\
                  --merge newer:updatedAt --dry-run
              Export, snapshot and restore:
                sqlimport export items --db app.db -o items.csv.zst
                sqlimport snapshot --db app.db -o nightly.sqlite.zst
                sqlimport restore nightly.sqlite.zst --db copy.db

            sqlimport FILE ... is sqlimport import FILE ...: sqlimport help import lists\nevery flag, grouped.

            \(ExitStatus.helpTable)
            """,
        version: SQLImportCommand.versionText,
        subcommands: [Import.self, Inspect.self, Export.self, Snapshot.self, Restore.self],
        defaultSubcommand: Import.self)

    /// The release, as CHANGELOG.md's latest heading and the git tag `v0.2.0` give it.
    static let version = "0.2.0"

    /// `--version`: sqlimport's release and the libraries it runs with.
    static var versionText: String {
        "sqlimport \(version)\nSQLite \(LinkedLibraries.sqlite) · zstd \(LinkedLibraries.zstd) · zlib \(LinkedLibraries.zlib)\n\(buildText)"
    }

    /// `build <commit>` from the file `scripts/install.sh` writes next to the installed
    /// binary (`PREFIX/share/sqlimport/BUILD`); a binary run from `.build/` says so.
    static var buildText: String {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let file = binary.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/sqlimport/BUILD")
        if let text = try? String(contentsOf: file, encoding: .utf8) { return "build " + text.trimmingCharacters(in: .whitespacesAndNewlines) }
        return "build: not installed (a development build; scripts/install.sh records the commit)"
    }

    static func main() {
        // A standard stream started closed (`>&-`) gets /dev/null: else the next file
        // opened (the rejects file, an input) takes its number, and what is written to
        // standard output or error would go into that file. Closed, it loses the text,
        // never the run.
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            if descriptor == STDOUT_FILENO { StandardOutput.wasClosedAtStart = true }
            if descriptor == STDIN_FILENO { StandardOutput.stdinWasClosedAtStart = true }
            _ = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
        }
        // A closed pipe is an EPIPE write error, handled as a clean end, not a crash.
        signal(SIGPIPE, SIG_IGN)
        // Past a file size limit, a write fails with EFBIG (an I/O error, exit 74)
        // instead of killing the process half-way.
        signal(SIGXFSZ, SIG_IGN)
        // Before any connection opens (the library leaves it to its host).
        SQLiteProcessSettings.applyForBulkImports()
        // The rollback journal in large writes instead of three per page; the variable
        // turns it off to compare (bench/README.md, "Journal writes").
        if ProcessInfo.processInfo.environment["SQLIMPORT_PLAIN_JOURNAL_WRITES"] == nil {
            SQLiteProcessSettings.bufferJournalWrites()
            // Writeback started early, so that commits do not wait for all of it
            // (bench/README.md, "Writeback hints").
            if ProcessInfo.processInfo.environment["SQLIMPORT_NO_WRITEBACK_HINTS"] == nil {
                SQLiteProcessSettings.startWritebackEarly()
            }
        }
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.isEmpty {
            // No arguments: the overview and its examples, not an import error.
            StandardOutput.write(helpMessage() + "\n")
            Foundation.exit(0)
        }
        if let unknown = unknownHelpTopic(arguments) {
            // The parser's `help` shows the overview for a name it does not know, and exits 0.
            StandardOutput.write("sqlimport: error: no subcommand '\(unknown)'; the subcommands are \(subcommandNames.joined(separator: ", ")) (sqlimport help lists them)\n", to: STDERR_FILENO)
            Foundation.exit(64)
        }
        do {
            var command = try parseAsRoot(OutputFlags.normalizing(Export.normalizing(arguments)))
            try command.run()
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch {
            if let code = ExitStatus.forParsing(error) {
                StandardOutput.write(fullMessage(for: error) + "\n", to: STDERR_FILENO)
                if let hint = UsageHints.hint(for: arguments) { StandardOutput.write("hint: \(hint)\n", to: STDERR_FILENO) }
                writeShortReport(message(for: error), code: code, arguments: arguments)
                Foundation.exit(code)
            }
            writeShortReport(message(for: error), code: 64, arguments: arguments)
            exit(withError: error)
        }
    }
}

extension SQLImportCommand {
    static var subcommandNames: [String] { configuration.subcommands.map { $0._commandName } }

    /// The name after `sqlimport help` that is no subcommand (`help nope`, or a second
    /// name: `help import nope`), or nil.
    static func unknownHelpTopic(_ arguments: [String]) -> String? {
        guard arguments.first == "help" else { return nil }
        let names = arguments.dropFirst().filter { !$0.hasPrefix("-") }
        guard let first = names.first else { return nil }
        if !subcommandNames.contains(first) && first != "help" { return first }
        return names.dropFirst().first
    }

    /// A flag the parser refused still gets its short-form report (docs/cron.md), so that
    /// a cron job does not read the last run's report as this one's. The path is taken
    /// from the raw arguments (`--report FILE`, `--report=FILE`).
    static func writeShortReport(_ message: String, code: Int32, arguments: [String]) {
        guard code != 0, arguments.first != "export", arguments.first != "snapshot", arguments.first != "restore", arguments.first != "inspect" else { return }
        var path: String?
        for (index, argument) in arguments.enumerated() {
            if argument == "--" { break }
            if argument == "--report", index + 1 < arguments.count { path = arguments[index + 1] }
            if argument.hasPrefix("--report=") { path = String(argument.dropFirst("--report=".count)) }
        }
        guard let path, !path.isEmpty, !path.hasPrefix("-") || path == "-" else { return }
        // The arguments were not understood, so the database and inputs are not known:
        // only a new file, a FIFO or device, or an earlier report is written over.
        if path != "-", ReportWriter.specialFile(path) == nil, FileManager.default.fileExists(atPath: path) {
            guard let data = FileManager.default.contents(atPath: ReportWriter.resolvedLink(path)), data.count < 1 << 20,
                let earlier = try? JSONSerialization.jsonObject(with: data) as? [String: Any], earlier["exitCode"] != nil, earlier["startedAt"] != nil
            else { return }
        }
        try? ReportWriter.write(message: message, exitCode: code, to: path)
    }
}

/// The database option shared by every subcommand.
struct DatabaseOption: ParsableArguments {
    @Option(name: .customLong("db"), help: ArgumentHelp("The SQLite database file.", discussion: "Default: $SQLIMPORT_DB, else ./sqlimport.db.", valueName: "path"), completion: .file())
    var path: String?

    /// `snapshot` and `restore` copy a SQLite file: they refuse a PostgreSQL URL, naming
    /// the tools that do the job there.
    func refusePostgreSQL(_ subcommand: String) throws {
        guard PostgresConnection.isURL(resolved) else { return }
        throw ValidationError("\(subcommand) copies a SQLite database file; for PostgreSQL use pg_dump -Fc '\(PostgresConnection.redacted(resolved))' > backup.dump and pg_restore")
    }

    var resolved: String {
        path ?? ProcessInfo.processInfo.environment["SQLIMPORT_DB"] ?? "sqlimport.db"
    }

    /// An empty path would be SQLite's private temporary database, gone when the run
    /// ends: the rows would be reported written, and lost.
    func validate() throws {
        if path == "" { throw ValidationError("--db is empty; name the database file, e.g. --db app.db") }
        if path == nil, ProcessInfo.processInfo.environment["SQLIMPORT_DB"] == "" {
            throw ValidationError("SQLIMPORT_DB is set but empty; set it to the database file, or pass --db PATH")
        }
    }
}

extension FileHandle {
    /// Writes a line; a closed or broken stream loses it (see `StandardOutput`).
    func writeLine(_ text: String) {
        StandardOutput.write(text + "\n", to: fileDescriptor)
    }
}
