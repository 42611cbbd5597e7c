import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// zstd and gzip inputs, detected by their magic bytes and read as streams.
@Suite struct CompressedInputTests {
    static func compress(_ tool: String, _ arguments: [String], _ path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments + [path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    static let lines = (1 ... 5000).map { #"{"id":\#($0),"name":"row \#($0) ✓","price":\#(Double($0) / 8)}"# }.joined(separator: "\n") + "\n"

    func roundTrip(tool: String, arguments: [String], suffix: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let plain = TestSupport.write(Self.lines, to: directory.appendingPathComponent("plain.jsonl"))
        try Self.compress(tool, arguments, plain)
        // A misleading name: detection is by magic bytes, not by extension.
        let compressed = directory.appendingPathComponent("items.jsonl")
        try FileManager.default.moveItem(atPath: plain + suffix, toPath: compressed.path)
        let database = directory.appendingPathComponent("db").path
        let summary = try TestSupport.runImport([compressed.path], database: database)
        #expect(summary.counts.inserted == 5000)
        #expect(summary.inputs[0].compression == (tool == "zstd" ? .zstd : .gzip))
        #expect(summary.inputs[0].bytesRead == Int64(Self.lines.utf8.count))
        let sum = try DatabaseQueue(path: database).read { try Double.fetchOne($0, sql: "SELECT sum(price) FROM items") }
        #expect(sum == (1 ... 5000).reduce(0.0) { $0 + Double($1) / 8 })
    }

    @Test func zstdIsDetectedByMagicAndStreamed() throws {
        try roundTrip(tool: "zstd", arguments: ["-q", "-3"], suffix: ".zst")
    }

    @Test func gzipIsDetectedByMagicAndStreamed() throws {
        try roundTrip(tool: "gzip", arguments: ["-q"], suffix: ".gz")
    }

    /// Two gzip files of one record each, `{"id":1}` and `{"id":2}`.
    static func twoGzipMembers(in directory: URL) throws -> (Data, Data) {
        let first = TestSupport.write("{\"id\":1}\n", to: directory.appendingPathComponent("a.jsonl"))
        let second = TestSupport.write("{\"id\":2}\n", to: directory.appendingPathComponent("b.jsonl"))
        try compress("gzip", ["-q"], first)
        try compress("gzip", ["-q"], second)
        return (try Data(contentsOf: URL(fileURLWithPath: first + ".gz")), try Data(contentsOf: URL(fileURLWithPath: second + ".gz")))
    }

    @Test func concatenatedGzipMembersAreReadInOrder() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (a, b) = try Self.twoGzipMembers(in: directory)
        let joined = a + b
        let path = directory.appendingPathComponent("t.jsonl.gz")
        try joined.write(to: path)
        let summary = try TestSupport.runImport([path.path], database: directory.appendingPathComponent("db").path)
        #expect(summary.counts.inserted == 2)
    }

    /// Zero bytes after the last member (padding to a block) are skipped, as `gzip -d`
    /// skips them (they were "incorrect header check", exit 65, and the message's `gzip
    /// -t` found nothing wrong; helper-77). Other bytes that start no member are an
    /// error naming where they begin and how to import the file without them: `gzip -d`
    /// ignores them with a warning, and a damaged second member would lose its records.
    @Test func zeroPaddingAfterAGzipIsSkippedAndOtherTrailingBytesAreNamed() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let (a, b) = try Self.twoGzipMembers(in: directory)
        for (name, data, inserted) in [
            ("padded", a + Data(count: 4), 1), ("padded-long", a + b + Data(count: 300_000), 2), ("one-zero", a + Data(count: 1), 1),
        ] {
            let path = directory.appendingPathComponent("\(name).jsonl.gz")
            try data.write(to: path)
            let summary = try TestSupport.runImport([path.path], database: directory.appendingPathComponent("\(name).db").path)
            #expect(summary.counts.inserted == inserted, "\(name)")
        }
        for (name, data) in [("garbage", a + Data("trailing text\n".utf8)), ("damaged-header", a + Data([0x1F, 0x8C]) + b.dropFirst(2)), ("zeros-then-member", a + Data(count: 2) + b)] {
            try data.write(to: directory.appendingPathComponent("\(name).jsonl.gz"))
            let run = try TestSupport.run(["\(name).jsonl.gz", "--db", "t.db", "--table", "t"], in: directory)
            #expect(run.status == 65, "\(name): \(run.stderr)")
            #expect(run.stderr.contains("\(name).jsonl.gz: the bytes from compressed byte \(a.count + (name == "zeros-then-member" ? 2 : 0)) on, after the end of a gzip member, are no gzip member"), "\(run.stderr)")
            #expect(run.stderr.contains("gzip -dc \(name).jsonl.gz"), "\(run.stderr)")
        }
    }

    /// `pzstd` and seekable-format writers begin with a skippable frame (magic 50 2A 4D 18
    /// to 5F 2A 4D 18), which libzstd steps over: still zstd, from a file or a pipe.
    @Test(arguments: [UInt8(0x50), 0x5F])
    func zstdThatStartsWithASkippableFrameIsZstd(_ first: UInt8) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let plain = TestSupport.write(Self.lines, to: directory.appendingPathComponent("plain.jsonl"))
        try Self.compress("zstd", ["-q"], plain)
        let skippable: [UInt8] = [first, 0x2A, 0x4D, 0x18, 4, 0, 0, 0, 0xDE, 0xAD, 0xBE, 0xEF]
        let path = directory.appendingPathComponent("items.jsonl.zst")
        try (Data(skippable) + Data(contentsOf: URL(fileURLWithPath: plain + ".zst"))).write(to: path)
        #expect(Compression.detect(skippable) == .zstd)
        let summary = try TestSupport.runImport([path.path], database: directory.appendingPathComponent("db").path)
        #expect(summary.counts.inserted == 5000)
        #expect(summary.inputs[0].compression == .zstd)
    }

    @Test(arguments: ["zstd", "gzip"])
    func truncatedStreamIsAnErrorWithNameAndOffsetAndCommitsNothing(_ tool: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("db").path
        let good = TestSupport.write("{\"id\":0}\n", to: directory.appendingPathComponent("good.jsonl"))
        let plain = TestSupport.write(Self.lines, to: directory.appendingPathComponent("t.jsonl"))
        try Self.compress(tool, ["-q"], plain)
        let compressed = URL(fileURLWithPath: plain + (tool == "zstd" ? ".zst" : ".gz"))
        let data = try Data(contentsOf: compressed)
        try data.prefix(data.count / 2).write(to: compressed)
        #expect {
            try TestSupport.runImport([good, compressed.path], database: database) { $0.table = "t" }
        } throws: { error in
            let text = "\(error)"
            return text.contains(compressed.lastPathComponent) && text.contains("ends early at compressed byte")
        }
        // All or nothing: not even the good input's row is there.
        let count = try DatabaseQueue(path: database).read { db in
            try db.tableExists("t") ? try Int.fetchOne(db, sql: "SELECT count(*) FROM t") : 0
        }
        #expect(count == 0)
    }

    /// With --commit-every, the checkpoints before a truncated or damaged stream stay
    /// committed: the error said "nothing from this input was committed" beside a summary
    /// of thousands of committed records, and a damaged gzip's records before its failing
    /// check were committed without a word about their values.
    @Test(arguments: ["zstd", "gzip"])
    func aDamagedStreamAfterCheckpointsSaysWhatStaysCommitted(_ tool: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        // Large enough that checkpoints commit before the reader meets the damage.
        let many = (1 ... 400_000).map { #"{"id":\#($0)}"# }.joined(separator: "\n") + "\n"
        let plain = TestSupport.write(many, to: directory.appendingPathComponent("t.jsonl"))
        try Self.compress(tool, ["-q"], plain)
        let compressed = URL(fileURLWithPath: plain + (tool == "zstd" ? ".zst" : ".gz"))
        var data = try Data(contentsOf: compressed)
        if tool == "zstd" {
            data = data.prefix(data.count * 3 / 4)
        } else {
            data[data.count - 6] ^= 0xFF  // the CRC: the data decodes, the check fails at the end
        }
        try data.write(to: compressed)
        let run = try TestSupport.run(
            [compressed.lastPathComponent, "--db", "app.db", "--table", "t", "--commit-every", "1000", "--report", "r.json"], in: directory)
        #expect(run.status == 65)
        #expect(run.stderr.contains("nothing after the last checkpoint was committed; the ") && run.stderr.contains(" records committed at checkpoints before it stay"), "\(run.stderr)")
        #expect(!run.stderr.contains("nothing from this input was committed"))
        #expect(run.stderr.contains("A damaged stream may have given wrong values") == (tool == "gzip"), "\(run.stderr)")
        let report = try String(contentsOf: directory.appendingPathComponent("r.json"), encoding: .utf8)
        #expect(report.contains("records committed at checkpoints before it stay"))
    }

    @Test func corruptZstdIsAnError() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let plain = TestSupport.write(Self.lines, to: directory.appendingPathComponent("t.jsonl"))
        try Self.compress("zstd", ["-q"], plain)
        var data = try Data(contentsOf: URL(fileURLWithPath: plain + ".zst"))
        for index in stride(from: 20, to: min(data.count, 400), by: 7) { data[index] ^= 0x5A }
        try data.write(to: URL(fileURLWithPath: plain + ".zst"))
        #expect {
            try TestSupport.runImport([plain + ".zst"], database: directory.appendingPathComponent("db").path)
        } throws: { error in
            "\(error)".contains("t.jsonl.zst") && ("\(error)".contains("corrupt zstd") || "\(error)".contains("malformed") || "\(error)".contains("ends early"))
        }
    }
}
