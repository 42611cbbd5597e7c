import ArgumentParser
import Foundation
import SQLImportKit

/// `sqlimport snapshot`: a consistent, zstd-compressed copy of the whole database. Only
/// adapts flags to `SnapshotOptions`.
struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a consistent zstd-compressed copy of the whole database.",
        discussion: """
            Uses VACUUM INTO, so other processes may write meanwhile. `zstd -d FILE` yields the database; \
            `sqlimport restore FILE --db PATH` checks and installs it. Prints the snapshot's path on standard output.
            """)

    @OptionGroup var database: DatabaseOption

    @Option(
        name: [.customShort("o"), .long],
        help: ArgumentHelp("The snapshot file, or - for standard output. Default: sqlimport-<UTC time>.sqlite.zst here.", valueName: "file"), completion: .file())
    var output: String?

    @Option(help: "zstd level.")
    var level = ZstdCompressingSink.defaultLevel

    @Option(help: ArgumentHelp("zstd worker threads (default: one per core, as zstd -T0).", valueName: "n"))
    var threads: Int?

    @Flag(help: "Replace an existing snapshot file.")
    var force = false

    @Option(parsing: .unconditional, help: ArgumentHelp("Wait this long for another writer's lock.", valueName: "ms"))
    var busyTimeout = 5000

    @Option(help: ArgumentHelp("Progress on stderr, as import's: on (plain lines when stderr is not a terminal) or json. A bare --progress is on.", valueName: "on|json"))
    var progress: ProgressMode?

    @Flag(name: .shortAndLong, help: "Print nothing but errors (not even the snapshot's path).")
    var quiet = false

    func validate() throws {
        try RepeatedOptions.refuse(in: Self.self)
        if busyTimeout < 0 { throw ValidationError("--busy-timeout takes milliseconds, 0 or more (0: fail at once when the database is locked)") }
        try database.refusePostgreSQL("snapshot")
        if !ZstdCompressingSink.levels.contains(level) { throw ValidationError("--level \(level): expected a level within \(ZstdCompressingSink.levels)") }
        if let threads, threads < 0 { throw ValidationError("--threads must be 0 or more") }
    }

    func run() throws {
        Signals.removeTemporaryFilesAndExit()
        var options = SnapshotOptions(databasePath: database.resolved)
        options.outputPath = output == "-" ? "/dev/stdout" : output
        if let output, StandardOutput.isNamed(by: output) {
            try StandardOutput.refuseIfClosedAtStart(sending: "the snapshot")
            if isatty(STDOUT_FILENO) == 1 {
                throw ValidationError("-o \(output): standard output is a terminal, and a snapshot is binary zstd data; redirect it (> FILE, | ssh ...), or give a file name")
            }
        }
        options.level = level
        options.workers = threads ?? ProcessInfo.processInfo.activeProcessorCount
        options.force = force
        options.busyTimeoutMilliseconds = busyTimeout
        do {
            let display = ProgressDisplay.make(mode: progress, quiet: quiet)
            defer { display?.finish() }
            let summary = try Snapshotter(options: options).run(progress: display.map { display in { display.update($0) } })
            // The snapshot's name goes to standard output, for scripts; to standard error
            // when the snapshot itself went to a descriptor (`-o /dev/stdout`).
            if !quiet {
                if AtomicOutputFile.writesInPlace(summary.output) {
                    FileHandle.standardError.writeLine(summary.output)
                } else {
                    StandardOutput.write(summary.output + "\n")
                }
            }
        } catch OutputError.brokenPipe {
            // Unlike an export's `| head`, a snapshot cut short is no snapshot.
            FileHandle.standardError.writeLine(
                "sqlimport: error: standard output was closed before the snapshot was written whole (its reader stopped): what it received is not a complete snapshot")
            throw ExitCode(ExitStatus.ioError)
        } catch {
            FileHandle.standardError.writeLine("sqlimport: error: \(ExitStatus.message(for: error, database: database.resolved))")
            throw ExitCode(ExitStatus.code(for: error))
        }
    }
}
