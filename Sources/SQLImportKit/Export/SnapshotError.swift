/// Why a snapshot cannot be restored. The target database is never touched in these
/// cases, and no temporary file is left behind.
public enum SnapshotError: Error, Equatable, CustomStringConvertible {
    /// The compressed stream is truncated or damaged (zstd checks a checksum of the
    /// content, so a flipped bit is caught here).
    case damaged(snapshot: String, reason: String)
    /// The decompressed bytes are not a SQLite database.
    case notADatabase(snapshot: String)
    /// `PRAGMA integrity_check` found problems.
    case integrityCheckFailed(snapshot: String, problems: [String])

    public var description: String {
        switch self {
        case .damaged(let snapshot, let reason):
            return "\(snapshot): the snapshot is damaged (\(reason)); nothing was restored. Use another snapshot, or take a new one"
        case .notADatabase(let snapshot):
            return "\(snapshot): does not hold a SQLite database; nothing was restored. Check that it is a file written by `sqlimport snapshot`"
        case .integrityCheckFailed(let snapshot, let problems):
            return "\(snapshot): the restored database fails PRAGMA integrity_check (\(problems.prefix(3).joined(separator: "; "))); nothing was restored. Use another snapshot"
        }
    }
}
