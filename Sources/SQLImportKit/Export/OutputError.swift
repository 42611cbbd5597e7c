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
    /// libzstd or zlib refused a parameter or failed.
    case compressionFailed(compression: Compression, reason: String)

    public var description: String {
        switch self {
        case .brokenPipe:
            return "standard output was closed"
        case .alreadyExists(let path, let what):
            return "\(path) already exists; sqlimport does not overwrite \(what). Choose another name, or pass --force to replace it"
        case .cannotCreate(let path, let reason):
            return "cannot create \(path) (\(reason)); check that its folder exists and is writable"
        case .writeFailed(let path, let reason):
            return "writing \(path) failed (\(reason)); check the free space and permissions. Nothing was left behind"
        case .appendFailed(let path, let reason):
            return "writing \(path) failed (\(reason)); check the free space and permissions. It keeps the lines written before"
        case .compressionFailed(let compression, let reason):
            return "\(compression.rawValue) compression failed: \(reason)"
        }
    }
}
