/// Errors of the output layer: creating, writing, compressing and renaming output files.
/// Shared by export, snapshot and restore.
public enum OutputError: Error, Equatable, CustomStringConvertible {
    /// The reader of standard output went away (`sqlimport export t | head`): not a
    /// failure, the command exits 0.
    case brokenPipe
    /// The output exists and the command does not overwrite without `--force`.
    case alreadyExists(path: String, what: String)
    case cannotCreate(path: String, reason: String)
    case writeFailed(path: String, reason: String)
    /// A file written as the run goes (`--rejects`) could not take more.
    case appendFailed(path: String, reason: String)
    /// The output names the file the command reads (or that database's journal).
    /// `hasForce`: whether the command has a --force that this refusal overrides not.
    case wouldReplaceSource(path: String, source: String, hasForce: Bool = true)
    /// libzstd or zlib refused a parameter or failed.
    case compressionFailed(compression: Compression, reason: String)
    /// A database to restore has no file, but a journal or WAL of a former one lies
    /// beside it, which SQLite would apply to the restored file.
    case staleSideFiles(database: String, files: [String])
    /// The database `restore --force` would replace is in use: another connection holds a
    /// lock on it.
    case databaseInUse(path: String)
    /// Two outputs of one run name the same file (`--report` and `--rejects`).
    case sharedOutput(path: String, options: [String])

    /// The name `writeFailed` gives standard output.
    package static let standardOutput = "standard output"

    public var description: String {
        switch self {
        case .brokenPipe:
            return "standard output was closed"
        case .alreadyExists(let path, let what):
            return "\(path) already exists; sqlimport does not overwrite \(what). Choose another name, or pass --force to replace it"
        case .cannotCreate(let path, let reason):
            return "cannot create \(path) (\(reason)); check that its folder exists and is writable"
        case .writeFailed(let path, let reason):
            // Standard output may be a file the shell opened, which only the shell can remove.
            let left = path == OutputError.standardOutput
                ? "What was written before it stays where standard output went (a file the shell opened keeps it)"
                : "Nothing was left behind"
            return "writing \(path) failed (\(reason)); check the free space and permissions. \(left)"
        case .appendFailed(let path, let reason):
            return "writing \(path) failed (\(reason)); check the free space and permissions. It keeps the lines written before"
        case .wouldReplaceSource(let path, let source, let hasForce):
            return "\(path) is \(source); writing there would replace what is being read\(hasForce ? ", even with --force" : ""). Choose another output name"
        case .compressionFailed(let compression, let reason):
            return "\(compression.rawValue) compression failed: \(reason)"
        case .sharedOutput(let path, let options):
            return "\(options.joined(separator: " and ")) both name \(path); give each a file of its own"
        case .databaseInUse(let path):
            return "\(path) is in use: another connection holds a lock on it, and would go on with the replaced file. Stop the processes that use it, then restore again; nothing was changed"
        case .staleSideFiles(let database, let files):
            return "\(files.joined(separator: " and ")) \(files.count == 1 ? "lies" : "lie") beside \(database), which does not exist: changes of a former database, or of one a process still has open, which SQLite would apply to the restored file. Make sure no process uses \(database), then remove \(files.joined(separator: " and ")), or pass --force to have restore remove \(files.count == 1 ? "it" : "them")"
        }
    }
}

import Foundation

extension OutputError {
    /// Refuses an output that is `source` itself, or one of SQLite's side files of it
    /// (`-journal`, `-wal`, `-shm`): `--force` would replace a live database with its own
    /// export. Compared by device and inode where the files exist, else by path.
    package static func refuseReplacing(source: String, with output: String, what: String, hasForce: Bool = true) throws(OutputError) {
        func identity(_ path: String) -> (UInt64, UInt64)? {
            var info = stat()
            return stat(path, &info) == 0 ? (UInt64(info.st_dev), UInt64(info.st_ino)) : nil
        }
        let outputIdentity = identity(output)
        let standardized = URL(fileURLWithPath: output).standardizedFileURL.path
        for suffix in ["", "-journal", "-wal", "-shm"] {
            let candidate = source + suffix
            let same: Bool
            if let outputIdentity, let sourceIdentity = identity(candidate) {
                same = outputIdentity == sourceIdentity
            } else {
                same = URL(fileURLWithPath: candidate).standardizedFileURL.path == standardized
            }
            if same { throw .wouldReplaceSource(path: output, source: suffix.isEmpty ? what : "\(what)'s \(suffix) file", hasForce: hasForce) }
        }
    }
}
