/// Errors of the input layer: opening files and decompressing them.
public enum InputError: Error, Equatable, CustomStringConvertible {
    case notFound(path: String)
    case unreadable(path: String, reason: String)
    case corruptCompressedStream(input: String, compression: Compression, byteOffset: Int64, reason: String)
    case truncatedCompressedStream(input: String, compression: Compression, byteOffset: Int64)
    /// Bytes after a gzip member that start no member and are no zero padding.
    case trailingGarbage(input: String, byteOffset: Int64)
    case decompressionBombGuard(input: String, limit: Int64)
    /// A zstd frame whose window is over libzstd's default limit (128 MiB).
    case zstdWindowTooLarge(input: String)
    /// `--encoding`: bytes that are not text in that encoding.
    case undecodable(input: String, encoding: String, byteOffset: Int64, reason: String)
    /// `--encoding` names an encoding sqlimport does not transcode.
    case unsupportedEncoding(String)
    /// The input is a file of another kind: a SQLite database, a ZIP archive, ...
    case notAnInput(path: String, kind: ForeignFile)
    /// `restore` was given a folder.
    case snapshotIsAFolder(path: String)
    /// A regular file ended before the size it had when it was opened: another program
    /// truncated or rewrote it while it was read.
    case shrankWhileRead(path: String, read: Int64, size: Int64)

    /// The reason `unreadable` gives for a directory.
    static let directoryReason = "it is a directory"

    public var description: String {
        switch self {
        case .notFound(let path):
            return "\(path): no such file; check the path, or pass - to read standard input"
        case .unreadable(let path, let reason):
            if reason == InputError.directoryReason {
                let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
                return "\(path) is a directory, not a file; pass the files in it (e.g. \(folder)/*.jsonl)"
            }
            return "\(path): cannot read it (\(reason)); check its permissions"
        case .corruptCompressedStream(let input, let compression, let offset, let reason):
            return "\(input): corrupt \(compression.rawValue) stream at compressed byte \(offset) (\(reason)); nothing from this input was committed. Check the file with `\(compression.checkCommand) \(input)`"
        case .truncatedCompressedStream(let input, let compression, let offset):
            return "\(input): the \(compression.rawValue) stream ends early at compressed byte \(offset) (the file is truncated); nothing from this input was committed. Copy the file again"
        case .trailingGarbage(let input, let offset):
            return "\(input): the bytes from compressed byte \(offset) on, after the end of a gzip member, are no gzip member: a damaged member (its records would be missing) or bytes the program that wrote it appended; nothing from this input was committed. If the file is complete without them, import `gzip -dc \(input)` from standard input (-), which ignores them"
        case .zstdWindowTooLarge(let input):
            return "\(input): the zstd frame needs a window larger than 128 MiB (it was written with --long=28 or more), and sqlimport keeps the decompressor's memory below that; nothing from this input was committed. Decompress it first (zstd -d --long=31) and import the result"
        case .undecodable(let input, let encoding, let offset, let reason):
            return "\(input): not valid \(encoding) at byte \(offset) (\(reason)); nothing from this input was committed. Check --encoding"
        case .unsupportedEncoding(let name):
            return "--encoding \(name): sqlimport transcodes latin1, windows-1252 and utf-16 (utf-16le, utf-16be); convert other encodings first, e.g. iconv -f \(name.uppercased()) -t UTF-8 FILE > FILE.utf8"
        case .notAnInput(let path, let kind):
            return "\(path) is \(kind.rawValue), not JSON, CSV or TSV; \(kind.hint(path: path))"
        case .snapshotIsAFolder(let path):
            let folder = path.hasSuffix("/") ? String(path.dropLast()) : path
            return "\(path) is a folder, not a snapshot; pass the snapshot file in it (e.g. \(folder)/app.sqlite.zst)"
        case .shrankWhileRead(let path, let read, let size):
            return "\(path): the file ended after \(read) of the \(size) bytes it held when it was opened: another program truncated or rewrote it while it was read, and the records past that point were never seen; nothing from this input was committed. Have the program that writes it write another name and rename it into place when complete (mv), then run again"
        case .decompressionBombGuard(let input, let limit):
            return "\(input): expands beyond \(limit) bytes without a record boundary; refusing it"
        }
    }
}
