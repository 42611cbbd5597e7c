// The oracle shared by FuzzTests (seeded mutations, in `swift test`) and the libFuzzer
// driver in Fuzz/ (which compiles this file together with the reader sources, so it
// must not import Testing, Foundation or GRDB).
#if canImport(SQLImportKit)
@testable import SQLImportKit
#endif

/// Bytes in memory, handed out in reads of the given sizes (cycled), so that record,
/// field, escape and UTF-8 boundaries fall at the end of a read.
final class ChunkedBytesSource: ByteSource {
    private let bytes: [UInt8]
    private let chunkSizes: [Int]
    private var offset = 0
    private var turn = 0

    /// - Parameter chunkSizes: sizes of successive reads; empty reads as much as asked.
    init(_ bytes: [UInt8], chunkSizes: [Int]) {
        self.bytes = bytes
        self.chunkSizes = chunkSizes
    }

    var rawBytesConsumed: Int64 { Int64(offset) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        var count = min(buffer.count, bytes.count - offset)
        if !chunkSizes.isEmpty {
            count = min(count, chunkSizes[turn % chunkSizes.count])
            turn += 1
        }
        guard count > 0 else { return 0 }
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + offset, byteCount: count)
        }
        offset += count
        return count
    }
}

/// Reads fuzzed bytes with the real readers and checks what must hold for any input:
///
/// - no crash, no hang, memory bounded (`maxRecordBytes` is small);
/// - a rejected input gets a `ReaderError` with a position inside the input (a line and a
///   byte offset; a compressed-byte offset for a damaged stream; a line for a bad header);
/// - every text the readers produce is valid UTF-8, every nested value valid JSON;
/// - the result does not depend on how the bytes arrive: one read, or reads of 1 to 7
///   bytes, and batches of 1000 or 3 rows, give the same records or the same error.
enum ReaderFuzzHarness {
    enum Target: String, CaseIterable, Sendable {
        /// JSON Lines and JSON documents.
        case json
        /// CSV and TSV.
        case csv
        /// zstd and gzip streams, read as JSON Lines and as CSV.
        case compressed
    }

    /// A broken invariant: a bug.
    struct Violation: Error, CustomStringConvertible {
        var description: String
    }

    /// What the readers made of one input.
    enum Outcome: Equatable, CustomStringConvertible {
        /// The records, each as `column=kind:value` fields; `complete` is false when the
        /// run stopped at `maxDecompressedBytes`.
        case records([String], complete: Bool)
        case rejected(String)
        /// A damaged zstd or gzip stream.
        case damagedStream(String)

        var description: String {
            switch self {
            case .records(let records, let complete):
                let shown = records.prefix(3).map { $0.count > 200 ? $0.prefix(200) + "..." : $0 }
                return "\(records.count) record(s)\(complete ? "" : " (stopped early)"): \(shown)"
            case .rejected(let error): return "error: \(error)"
            case .damagedStream(let error): return "damaged stream: \(error)"
            }
        }

        /// Where the decompressor notices damage depends on how the compressed bytes
        /// arrive, and so does whether a bad record before the damage is read first: two
        /// failures, one of them a damaged stream, are the same outcome.
        func matches(_ other: Outcome) -> Bool {
            switch (self, other) {
            case (.damagedStream, .damagedStream), (.damagedStream, .rejected), (.rejected, .damagedStream): return true
            default: return self == other
            }
        }
    }

    /// Small, so that the record-size limit is reached often.
    static let maxRecordBytes = 64 << 10
    /// A decompression bomb is read this far, then the run stops.
    static let maxDecompressedBytes: Int64 = 8 << 20

    /// The reader settings an input of `target` is read with. Most read 16 bytes at a
    /// time into a buffer that starts at 32, so that small inputs exercise the buffer's
    /// compaction, growth and record-size limit; one per format reads as in production.
    static func configurations(_ target: Target) -> [(name: String, options: ReaderOptions)] {
        func options(_ format: InputFormat, _ change: (inout ReaderOptions) -> Void = { _ in }) -> ReaderOptions {
            var options = ReaderOptions()
            options.format = format
            options.maxRecordBytes = maxRecordBytes
            options.bufferChunkBytes = 16
            change(&options)
            return options
        }
        let production: (inout ReaderOptions) -> Void = { $0.bufferChunkBytes = 1 << 20 }
        switch target {
        case .json:
            return [
                ("jsonl", options(.jsonl, production)),
                ("jsonl, small buffer", options(.jsonl)),
                ("jsonl --flatten, depth 16, records up to 100 bytes", options(.jsonl) { $0.flatten = true; $0.maxDepth = 16; $0.maxRecordBytes = 100 }),
                ("jsonl skipping bad records", options(.jsonl) { $0.skipBadRecords = true }),
                ("json", options(.json, production)),
                ("json, small buffer, records up to 50 bytes", options(.json) { $0.maxRecordBytes = 50 }),
                ("json skipping bad records, depth 8", options(.json) { $0.skipBadRecords = true; $0.maxDepth = 8 }),
            ]
        case .csv:
            return [
                ("csv", options(.csv, production)),
                ("csv, small buffer, records up to 20 bytes", options(.csv) { $0.maxRecordBytes = 20 }),
                ("csv --no-header --null NA", options(.csv) { $0.hasHeader = false; $0.nullText = "NA" }),
                ("csv skipping bad records", options(.csv) { $0.skipBadRecords = true }),
                ("tsv", options(.tsv)),
                ("csv --delimiter ;", options(.csv) { $0.delimiter = UInt8(ascii: ";") }),
            ]
        case .compressed:
            return [("jsonl", options(.jsonl, production)), ("csv, small buffer", options(.csv))]
        }
    }

    /// Checks `bytes` in every configuration of `target`; returns how many records the
    /// readers accepted in all.
    @discardableResult
    static func check(_ bytes: [UInt8], target: Target) throws(Violation) -> Int {
        let chunks = chunkSizes(for: bytes)
        let batch = RecordBatch()
        var accepted = 0
        for (name, options) in configurations(target) {
            let whole = try read(bytes, options: options, chunkSizes: [], maxRows: 1000, into: batch)
            let pieces = try read(bytes, options: options, chunkSizes: chunks, maxRows: 3, into: batch)
            if case .records(_, false) = whole { continue }
            if case .records(_, false) = pieces { continue }
            guard whole.matches(pieces) else {
                throw Violation(description: "\(name): read whole: \(whole); read in chunks of \(chunks): \(pieces)")
            }
            if case .records(let records, _) = whole { accepted += records.count }
        }
        return accepted
    }

    /// Read sizes from 1 to 7 bytes, chosen by the input's hash (reproducible).
    static func chunkSizes(for bytes: [UInt8]) -> [Int] {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes.prefix(64) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return (0 ..< 5).map { Int((hash >> ($0 * 8)) % 7) + 1 }
    }

    /// Reads every record of `bytes` through `batch`, checking each value and any error.
    static func read(_ bytes: [UInt8], options: ReaderOptions, chunkSizes: [Int], maxRows: Int, into batch: RecordBatch) throws(Violation) -> Outcome {
        var isCompressed = false
        do {
            let input = try InputSource(name: "fuzz", raw: ChunkedBytesSource(bytes, chunkSizes: chunkSizes), fileSize: nil)
            isCompressed = input.compression != .none
            let namer = ColumnNamer()
            let (reader, _) = try RecordReaders.make(input: input, options: options, namer: namer, keepRaw: options.skipBadRecords)
            // Records by their byte offset: a batch lists its rows before its rejects.
            var records: [(offset: Int64, text: String)] = []
            var more = true
            while more {
                batch.reset(inputIndex: 0)
                batch.keepRawRecords = options.skipBadRecords
                more = try reader.fill(batch, maxRows: maxRows, maxBytes: 1 << 20)
                for row in 0 ..< batch.rowCount {
                    records.append((batch.byteOffsets[row], try render(row: row, of: batch, names: namer.names)))
                }
                for reject in batch.rejects {
                    guard reject.line >= 1, reject.byteOffset >= 0 else {
                        throw Violation(description: "a rejected record has no position: \(reject)")
                    }
                    records.append((reject.byteOffset, "rejected on line \(reject.line): \(reject.reason)"))
                }
                if reader.bytesConsumed > maxDecompressedBytes { break }
            }
            records.sort { $0.offset < $1.offset }
            return .records(records.map { "\($0.offset): \($0.text)" }, complete: !more)
        } catch let error as InputError {
            return try rejected(.input(error), bytes: bytes, isCompressed: true)
        } catch let error as ReaderError {
            return try rejected(error, bytes: bytes, isCompressed: isCompressed)
        } catch let violation as Violation {
            throw violation
        } catch {
            throw Violation(description: "unexpected error type \(type(of: error)): \(error)")
        }
    }

    /// The outcome of a rejected input, once its position is checked.
    static func rejected(_ error: ReaderError, bytes: [UInt8], isCompressed: Bool) throws(Violation) -> Outcome {
        try checkPosition(of: error, in: bytes, isCompressed: isCompressed)
        if case .input = error { return .damagedStream(error.description) }
        return .rejected(error.description)
    }

    /// A rejected input must say where: a line and byte inside the input, or a
    /// compressed byte offset, or (a bad header) its line.
    static func checkPosition(of error: ReaderError, in bytes: [UInt8], isCompressed: Bool) throws(Violation) {
        switch error {
        case .input(let inner):
            switch inner {
            case .corruptCompressedStream(_, _, let offset, _), .truncatedCompressedStream(_, _, let offset), .trailingGarbage(_, let offset):
                guard offset >= 0, offset <= Int64(bytes.count) else {
                    throw Violation(description: "compressed byte offset \(offset) outside the input (\(bytes.count) bytes): \(error)")
                }
            case .zstdWindowTooLarge:
                break
            default:
                throw Violation(description: "unexpected input error: \(error)")
            }
        case .badHeader(_, let reason):
            guard reason.contains("line ") else { throw Violation(description: "a header error without its line: \(error)") }
        default:
            guard let position = error.position, position.line >= 1, position.byteOffset >= 0 else {
                throw Violation(description: "an error without a position: \(error)")
            }
            if !isCompressed {
                // LFs, and lone CRs, which end CSV lines too.
                let lines = 1 + bytes.indices.filter { bytes[$0] == 0x0A || bytes[$0] == 0x0D && ($0 + 1 == bytes.count || bytes[$0 + 1] != 0x0A) }.count
                guard position.byteOffset <= Int64(bytes.count), position.line <= lines else {
                    throw Violation(description: "position \(position) outside the input (\(bytes.count) bytes, \(lines) lines): \(error)")
                }
            }
        }
    }

    /// One record as text, after checking that its text is valid UTF-8 and its nested
    /// values valid JSON.
    static func render(row: Int, of batch: RecordBatch, names: [String]) throws(Violation) -> String {
        var fields: [String] = []
        for column in 0 ..< names.count {
            let cell = batch.cell(row: row, column: column)
            let value: String
            switch cell.kind {
            case .absent: continue
            case .null: value = "null"
            case .integer: value = "i:\(cell.payload)"
            case .real: value = "r:\(cell.doubleValue)"
            case .text, .untypedText, .json, .numberAsText:
                let bytes = UnsafeBufferPointer(start: batch.bytes.base + Int(cell.payload), count: Int(cell.length))
                guard let text = String(validating: bytes, as: UTF8.self) else {
                    throw Violation(description: "invalid UTF-8 stored in column \(names[column]): \(Array(bytes))")
                }
                if cell.kind == .json || cell.kind == .numberAsText {
                    do {
                        try JSONScanner.validateDocument(bytes)
                    } catch {
                        throw Violation(description: "column \(names[column]) holds invalid JSON: \(text)")
                    }
                }
                value = "\(cell.kind):\(text)"
            }
            fields.append("\(names[column])=\(value)")
        }
        return fields.joined(separator: "|")
    }
}
