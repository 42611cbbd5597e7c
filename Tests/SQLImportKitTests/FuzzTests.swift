import Foundation
import Testing
@testable import SQLImportKit

/// Fuzzing of the JSON and CSV readers and the decompressing input layer by seeded random
/// mutation of `Fuzz/corpus`, checked by `ReaderFuzzHarness` (the oracle the libFuzzer
/// driver `Fuzz/fuzz.sh` shares). By default a fixed number of mutations per target, from a
/// fixed seed, so that CI runs the same inputs every time; for a long run:
///
/// ```sh
/// SQLIMPORT_FUZZ_SECONDS=600 SQLIMPORT_FUZZ_SEED=7 swift test -c release --filter FuzzTests
/// ```
///
/// A failing input is written to the temporary folder and printed as base64; add it to
/// `Fuzz/regressions/` with a name that says what broke.
@Suite struct FuzzTests {
    static let fuzzFolder = TestSupport.packageRoot.appendingPathComponent("Fuzz")

    /// Mutations per target when `SQLIMPORT_FUZZ_SECONDS` is not set.
    static let defaultMutations = 1500

    /// The seed inputs of a target: its corpus folder, and the JSON conformance suite.
    static func seeds(_ target: ReaderFuzzHarness.Target) -> [[UInt8]] {
        var folders = [fuzzFolder.appendingPathComponent("corpus/\(target.rawValue)")]
        if target == .json { folders.append(TestSupport.conformance.appendingPathComponent("json/test_parsing")) }
        if target == .csv { folders.append(TestSupport.conformance.appendingPathComponent("csv/csvs")) }
        return folders.flatMap(files).compactMap { try? Array(Data(contentsOf: $0)) }
    }

    static func files(in folder: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    @Test(arguments: ReaderFuzzHarness.Target.allCases)
    func seededMutationsBreakNoReaderInvariant(_ target: ReaderFuzzHarness.Target) throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["SQLIMPORT_FUZZ_SEED"].flatMap(UInt64.init) ?? 20_261_122
        let seconds = environment["SQLIMPORT_FUZZ_SECONDS"].flatMap(Double.init)
        let seeds = Self.seeds(target)
        try #require(seeds.count >= 10, "Fuzz/corpus/\(target.rawValue) is missing")
        var random = StrategyEquivalenceTests.Generator(state: seed &+ UInt64(ReaderFuzzHarness.Target.allCases.firstIndex(of: target)!))
        var mutator = Mutator(seeds: seeds, compressed: target == .compressed)
        // Compressed inputs are also made by compressing mutated plain text, so that the
        // readers behind the decompressors see more than broken streams.
        var plain = Mutator(seeds: Self.seeds(.json) + Self.seeds(.csv), compressed: false)
        let start = Date()
        var executions = 0
        var accepted = 0
        while seconds.map({ Date().timeIntervalSince(start) < $0 }) ?? (executions < Self.defaultMutations) {
            var input = mutator.mutate(using: &random)
            if target == .compressed, Bool.random(using: &random) {
                input = try Self.compress(plain.mutate(using: &random), gzip: Bool.random(using: &random))
                if input.count > 20, Int.random(in: 0 ..< 4, using: &random) == 0 {
                    input[Int.random(in: 10 ..< input.count, using: &random)] ^= 0x10
                }
            }
            do {
                accepted += try ReaderFuzzHarness.check(input, target: target)
            } catch {
                let saved = FileManager.default.temporaryDirectory.appendingPathComponent("sqlimport-fuzz-\(target.rawValue)-\(seed)-\(executions)")
                try? Data(input).write(to: saved)
                Issue.record("\(error)\nmutation \(executions) of seed \(seed), saved as \(saved.path); base64: \(Data(input).base64EncodedString())")
                return
            }
            executions += 1
        }
        let elapsed = Date().timeIntervalSince(start)
        print("FuzzTests \(target.rawValue): \(executions) inputs in \(String(format: "%.1f", elapsed)) s (seed \(seed)), \(accepted) records read")
    }

    /// `bytes` as one zstd frame or one gzip member, compressed in memory.
    static func compress(_ bytes: [UInt8], gzip: Bool) throws -> [UInt8] {
        let memory = MemorySink()
        let sink: ByteSink = gzip ? try GzipCompressingSink(base: memory, level: 1) : try ZstdCompressingSink(base: memory, level: 1)
        try bytes.withUnsafeBytes { try sink.write($0) }
        try sink.finish()
        return memory.bytes
    }

    /// Every committed corpus input, and every input that once broke something.
    @Test func corpusAndRegressionInputsBreakNoReaderInvariant() throws {
        for target in ReaderFuzzHarness.Target.allCases {
            for file in Self.files(in: Self.fuzzFolder.appendingPathComponent("corpus/\(target.rawValue)")) {
                #expect(throws: Never.self, "\(file.lastPathComponent)") { try ReaderFuzzHarness.check(Array(Data(contentsOf: file)), target: target) }
            }
        }
        let regressions = Self.files(in: Self.fuzzFolder.appendingPathComponent("regressions"))
        #expect(!regressions.isEmpty)
        for file in regressions {
            let target: ReaderFuzzHarness.Target = file.lastPathComponent.hasPrefix("csv") ? .csv : file.pathExtension == "zst" || file.pathExtension == "gz" ? .compressed : .json
            #expect(throws: Never.self, "\(file.lastPathComponent)") { try ReaderFuzzHarness.check(Array(Data(contentsOf: file)), target: target) }
        }
    }

    // MARK: - Regressions, named after the bug

    /// Options for reading `bytes` in reads of `chunk` bytes.
    static func options(_ format: InputFormat, maxRecordBytes: Int = 1 << 20, chunk: Int = 16) -> ReaderOptions {
        var options = ReaderOptions()
        options.format = format
        options.maxRecordBytes = maxRecordBytes
        options.bufferChunkBytes = chunk
        return options
    }

    /// The reader kept a pointer to the buffer across the refill that found the end of
    /// input; when that refill had grown the buffer, it read freed memory to look for the
    /// final line's CR (a use-after-free found by libFuzzer with AddressSanitizer).
    @Test func finalJSONLineWithoutNewlineIsReadAfterTheBufferGrows() throws {
        let line = #"{"min": -1.0e+28, "name": "\#(String(repeating: "x", count: 40))"}"#
        for ending in ["", "\r"] {
            let outcome = try ReaderFuzzHarness.read(
                Array((line + ending).utf8), options: Self.options(.jsonl), chunkSizes: [7], maxRows: 10, into: RecordBatch())
            guard case .records(let records, complete: true) = outcome else {
                Issue.record("\(outcome)")
                continue
            }
            #expect(records == ["0: min=r:-1e+28|name=text:" + String(repeating: "x", count: 40)])
        }
    }

    /// With a small `--max-record-bytes`, a record that arrived in one read was never
    /// measured (the limit was checked only when the buffer grew), so the same file was
    /// accepted from disk and refused from a pipe.
    @Test func maxRecordBytesRefusesTheSameRecordsWhateverTheReadSize() throws {
        let inputs: [(InputFormat, String)] = [
            // 24, 22 and 24 bytes: within the buffer's first window of 32 bytes.
            (.jsonl, "{\"a\":\"\(String(repeating: "x", count: 16))\"}\n{\"a\":1}\n"),
            (.csv, "a\n\"\(String(repeating: "y", count: 20))\"\n"),
            (.json, "[{\"a\":\"\(String(repeating: "z", count: 16))\"}]"),
        ]
        for (format, text) in inputs {
            let bytes = Array(text.utf8)
            for chunks in [[], [1], [3, 5], [64]] {
                let outcome = try ReaderFuzzHarness.read(
                    bytes, options: Self.options(format, maxRecordBytes: 20), chunkSizes: chunks, maxRows: 10, into: RecordBatch())
                guard case .rejected(let error) = outcome else {
                    Issue.record("\(format) in reads of \(chunks): \(outcome)")
                    continue
                }
                #expect(error.contains("fuzz:\(format == .csv ? 2 : 1) (byte \(format == .csv ? 2 : format == .json ? 1 : 0)): a single record is larger than 20 bytes"), "\(format) \(chunks): \(error)")
            }
        }
    }

    /// At exactly the size limit, an unclosed quote at the end of input was reported as
    /// such when the end of input was seen in the same refill, and as a record over the
    /// limit otherwise.
    @Test func unclosedQuoteAtTheRecordSizeLimitIsRefusedTheSameWayWhateverTheReadSize() throws {
        let bytes = try Array(Data(contentsOf: Self.fuzzFolder.appendingPathComponent("regressions/csv-unclosed-quote-at-the-record-size-limit.csv")))
        var outcomes: Set<String> = []
        for chunks in [[], [3, 5, 5, 5, 7], [1], [22]] {
            outcomes.insert("\(try ReaderFuzzHarness.read(bytes, options: Self.options(.csv, maxRecordBytes: 20), chunkSizes: chunks, maxRows: 3, into: RecordBatch()))")
        }
        #expect(outcomes.count == 1, "\(outcomes)")
    }

    /// The depth check came before the check for more input, so in a JSON array the
    /// "nested too deep" error named the end of the bytes read so far, not the value.
    @Test func jsonDepthErrorNamesTheValueWhateverTheReadSize() throws {
        let bytes = Array("[\n  [[[[[[[ {\"id\":  \n  4}]]]]]]]\n]".utf8)
        var options = Self.options(.json)
        options.maxDepth = 8
        for chunks in [[], [1], [2, 3], [17]] {
            let outcome = try ReaderFuzzHarness.read(bytes, options: options, chunkSizes: chunks, maxRows: 3, into: RecordBatch())
            #expect(outcome == .rejected("fuzz:3 (byte 23): JSON nested deeper than 8 levels; such input is refused to keep the reader's stack bounded"), "\(chunks)")
        }
    }

    /// libzstd does not move its input position on an error, so a checksum error at the
    /// end of a frame was reported at the first byte of the read that held it (byte 4).
    @Test func zstdChecksumErrorNamesTheEndOfTheDamagedRead() throws {
        let bytes = try Array(Data(contentsOf: Self.fuzzFolder.appendingPathComponent("regressions/zstd-checksum-error-offset.zst")))
        let outcome = try ReaderFuzzHarness.read(bytes, options: Self.options(.jsonl), chunkSizes: [], maxRows: 3, into: RecordBatch())
        #expect(outcome == .damagedStream("fuzz: corrupt zstd stream at compressed byte \(bytes.count) (Restored data doesn't match checksum); nothing from this input was committed. Check the file with `zstd -t fuzz`"))
    }

    /// CSV and JSON-array readers parse a record that needs more bytes again from its
    /// start. From a pipe (64 KiB per read) a 50 MB field took 37 s: quadratic. The buffer
    /// now reads at least as many bytes as are pending, which keeps it linear.
    @Test func hugeRecordFromAPipeIsReadInLinearTime() throws {
        let field = String(repeating: "x", count: 6 << 20)
        for (format, text) in [(InputFormat.csv, "a\n\"\(field)\"\n"), (.json, "[{\"a\":\"\(field)\"}]")] {
            let start = Date()
            let outcome = try ReaderFuzzHarness.read(
                Array(text.utf8), options: Self.options(format, maxRecordBytes: 16 << 20, chunk: 1 << 20), chunkSizes: [64 << 10],
                maxRows: 10, into: RecordBatch())
            guard case .records(let records, complete: true) = outcome else {
                Issue.record("\(format): \(outcome)")
                continue
            }
            #expect(records.count == 1)
            // Quadratic, this took over 10 s in a debug build; linear, well under 2.
            #expect(Date().timeIntervalSince(start) < 5, "\(format)")
        }
    }
}

/// Random edits of seed inputs: bit flips, bytes and tokens inserted, ranges deleted or
/// repeated, truncation, and splices of two seeds.
struct Mutator {
    let seeds: [[UInt8]]
    /// For compressed seeds: edits stay away from the magic bytes more often, so that the
    /// decompressors see their streams, not the plain reader.
    let compressed: Bool

    /// Tokens that matter to the readers.
    static let tokens: [[UInt8]] = [
        "{", "}", "[", "]", "\"", "\\", "\\u", "\\ud800", "\\udc00", "\\ud83d\\ude00", ",", ":", ";", "\t", "\n", "\r\n", "\r",
        "\"\"", "true", "null", "-0", "1e999", "18446744073709551616", "0.1", "{\"a\":", "[[[[", "]]]]", "NA",
    ].map { Array($0.utf8) } + [[0], [0xEF, 0xBB, 0xBF], [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF], [0xC3]]

    init(seeds: [[UInt8]], compressed: Bool) {
        self.seeds = seeds
        self.compressed = compressed
    }

    mutating func mutate(using random: inout StrategyEquivalenceTests.Generator) -> [UInt8] {
        var bytes = seeds.randomElement(using: &random)!
        for _ in 0 ..< Int.random(in: 1 ... 4, using: &random) {
            let low = compressed && bytes.count > 8 && Bool.random(using: &random) ? 4 : 0
            let position = bytes.count > low ? Int.random(in: low ... bytes.count, using: &random) : bytes.count
            switch Int.random(in: 0 ..< 9, using: &random) {
            case 0 where position < bytes.count:
                bytes[position] ^= 1 << UInt8.random(in: 0 ..< 8, using: &random)
            case 1 where position < bytes.count:
                bytes[position] = UInt8.random(in: 0 ... 255, using: &random)
            case 2:
                bytes.insert(UInt8.random(in: 0 ... 255, using: &random), at: position)
            case 3:
                bytes.insert(contentsOf: Self.tokens.randomElement(using: &random)!, at: position)
            case 4 where position < bytes.count:
                bytes.removeSubrange(position ..< min(bytes.count, position + Int.random(in: 1 ... 16, using: &random)))
            case 5 where position < bytes.count:
                let piece = bytes[position ..< min(bytes.count, position + Int.random(in: 1 ... 32, using: &random))]
                bytes.insert(contentsOf: Array(repeating: piece, count: Int.random(in: 1 ... 8, using: &random)).joined(), at: position)
            case 6:
                bytes.removeSubrange(position...)
            case 7:
                let other = seeds.randomElement(using: &random)!
                bytes = Array(bytes[..<position]) + other[Int.random(in: 0 ... other.count, using: &random)...]
            default:
                bytes.insert(contentsOf: Array(repeating: UInt8(ascii: "["), count: Int.random(in: 1 ... 600, using: &random)), at: position)
            }
        }
        return bytes
    }
}

/// Collects written bytes in memory.
final class MemorySink: ByteSink {
    private(set) var bytes: [UInt8] = []

    var bytesWritten: Int64 { Int64(bytes.count) }

    func write(_ chunk: UnsafeRawBufferPointer) throws(OutputError) {
        bytes.append(contentsOf: chunk)
    }

    func finish() throws(OutputError) {}
}
