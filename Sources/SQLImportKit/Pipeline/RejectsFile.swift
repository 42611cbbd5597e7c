import Foundation

/// A record set aside by `--on-error skip`.
public struct RejectedRecord: Sendable, Codable {
    public var input: String
    public var line: Int
    public var byteOffset: Int64
    public var reason: String
    /// The record's raw text, as read, when it is valid UTF-8.
    public var record: String?
    /// The record's raw bytes in base64, when they are not valid UTF-8 (so that nothing
    /// of them is replaced).
    public var recordBase64: String?

    public init(input: String, line: Int, byteOffset: Int64, reason: String, raw: some Collection<UInt8>) {
        self.input = input
        self.line = line
        self.byteOffset = byteOffset
        self.reason = reason
        if let text = String(validating: raw, as: UTF8.self) {
            record = text
        } else {
            recordBase64 = Data(raw).base64EncodedString()
        }
    }

    public init(input: String, line: Int, byteOffset: Int64, reason: String, record: String?) {
        self.input = input
        self.line = line
        self.byteOffset = byteOffset
        self.reason = reason
        self.record = record
    }

    /// `row` of `batch`, set aside at `position` for `reason`.
    init(row: Int, of batch: RecordBatch, at position: SourcePosition, reason: String) {
        self.init(input: position.input, line: position.line, byteOffset: position.byteOffset, reason: reason, record: batch.rawRecord(row: row))
    }
}

/// Appends rejected records to `--rejects FILE`, one JSON object per line.
final class RejectsFile {
    private let path: String
    private let handle: FileHandle
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Bytes in the file: what a checkpoint records, so that a resumed run keeps them.
    private(set) var length: Int64 = 0

    /// Creates (or empties) the file; with `keeping`, keeps its first `keeping` bytes
    /// instead (a resumed run: the lines of the records the interrupted run committed),
    /// dropping any line written after that run's last checkpoint, which comes again.
    init(path: String, keeping: Int64 = 0) throws {
        if keeping > 0, let handle = FileHandle(forUpdatingAtPath: path), let size = try? handle.seekToEnd(), size >= UInt64(keeping) {
            guard ftruncate(handle.fileDescriptor, off_t(keeping)) == 0, (try? handle.seek(toOffset: UInt64(keeping))) != nil else {
                throw OutputError.cannotCreate(path: path, reason: "the rejects file (--rejects): \(String(cString: strerror(errno)))")
            }
            self.path = path
            self.handle = handle
            length = keeping
            keptLines = true
            return
        }
        // open(2), not FileManager.createFile, which replaces the path atomically: a link
        // is followed, and a FIFO or device written to, as a shell redirection would.
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw OutputError.cannotCreate(path: path, reason: "the rejects file (--rejects): \(String(cString: strerror(errno)))")
        }
        self.path = path
        self.handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// True when `init(path:keeping:)` kept the interrupted run's lines.
    private(set) var keptLines = false

    /// Appends `record`; a write that fails (a full disk) is an I/O error naming the file,
    /// and the part of the line it wrote is taken back, so that every line left is whole
    /// JSON (a reader of the file stopped at the cut-off last one).
    func append(_ record: RejectedRecord) throws {
        var data = try encoder.encode(record)
        data.append(0x0A)
        let descriptor = handle.fileDescriptor
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else {
                    let reason = String(cString: strerror(errno))
                    // (A FIFO or device cannot be truncated, and has no line to take back.
                    // The run stops here; the offset goes back too, for any later append.)
                    if offset > 0, ftruncate(descriptor, off_t(length)) == 0 { lseek(descriptor, off_t(length), SEEK_SET) }
                    throw OutputError.appendFailed(path: path, reason: "the rejects file (--rejects): \(reason)")
                }
                offset += written
            }
        }
        length += Int64(data.count)
    }

    func close() {
        try? handle.close()
    }
}

extension ImportSummary {
    /// Counts a record set aside (`--on-error skip`), keeps its reason among the first
    /// ones, writes it to `file`, and throws when `maxErrors` is passed.
    mutating func setAside(_ record: RejectedRecord, in file: RejectsFile?, maxErrors: Int?) throws {
        counts.rejected += 1
        if firstRejects.count < ImportSummary.firstRejectsKept {
            // Most reasons begin with their position already.
            firstRejects.append(record.reason.hasPrefix("\(record.input):") ? record.reason : "\(record.input):\(record.line): \(record.reason)")
        }
        try file?.append(record)
        if let limit = maxErrors, counts.rejected > limit {
            // Most reasons begin with their position already.
            let located = record.reason.hasPrefix("\(record.input):") ? record.reason : "\(record.input):\(record.line): \(record.reason)"
            throw ImportError.tooManyRejects(limit: limit, last: located)
        }
    }
}
