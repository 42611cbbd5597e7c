import Foundation
import Testing

/// Every ```console block of README.md and docs/ runs, and prints what it shows (as
/// sqlite-utils tests its documentation): no example goes stale.
///
/// A block runs from a scratch folder holding a copy of `fixtures/`, one `$ ` command at
/// a time through `/bin/sh`, with the built `sqlimport` first on PATH; its standard output
/// and error together must equal the lines that follow it. Timings, dates and absolute
/// paths are normalized on both sides.
@Suite struct DocumentationTests {
    struct Command: Sendable {
        var text: String
        var expected: [String]
    }

    struct Block: Sendable, CustomStringConvertible {
        var file: String
        var line: Int
        var commands: [Command]
        var description: String { "\(file):\(line)" }
    }

    static let pages: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: TestSupport.packageRoot.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }()

    /// The console blocks of every page.
    static let blocks: [Block] = pages.flatMap { page -> [Block] in
        guard let text = try? String(contentsOf: TestSupport.packageRoot.appendingPathComponent(page), encoding: .utf8) else { return [] }
        var blocks: [Block] = []
        var current: Block?
        var continued: String?
        for (index, line) in text.components(separatedBy: "\n").enumerated() {
            if current == nil {
                if line.trimmingCharacters(in: .whitespaces) == "```console" { current = Block(file: page, line: index + 1, commands: []) }
                continue
            }
            if line.trimmingCharacters(in: .whitespaces) == "```" {
                blocks.append(current!)
                current = nil
                continue
            }
            if let partial = continued {
                let joined = partial + "\n" + line
                if line.hasSuffix("\\") { continued = joined } else { current!.commands.append(Command(text: joined, expected: [])); continued = nil }
            } else if line.hasPrefix("$ ") {
                let command = String(line.dropFirst(2))
                if command.hasSuffix("\\") { continued = command } else { current!.commands.append(Command(text: command, expected: [])) }
            } else if !current!.commands.isEmpty {
                current!.commands[current!.commands.count - 1].expected.append(line)
            }
        }
        return blocks
    }

    /// What varies from run to run.
    static func normalized(_ line: String, scratch: String) -> String {
        var text = line.replacingOccurrences(of: scratch, with: "SCRATCH")
        let patterns: [(String, String)] = [
            (#"\d+(\.\d+)? s \([0-9.]+[KM]? rows/s\)"#, "T s (R rows/s)"),
            (#"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d+)?Z?"#, "DATE"),
            (#""(durationSeconds|rowsPerSecond|megabytesPerSecond)" ?: ?[0-9.e+-]+"#, "\"$1\": N"),
            (#"in \d+(\.\d+)? s"#, "in T s"),
        ]
        for (pattern, replacement) in patterns {
            text = text.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return text.trimmingCharacters(in: .whitespaces)
    }

    @Test func everyPageHasItsConsoleBlocksFound() {
        #expect(Self.blocks.count >= 15, "\(Self.blocks.count) console blocks")
        #expect(Self.blocks.allSatisfy { !$0.commands.isEmpty })
    }

    @Test(arguments: blocks)
    func aConsoleBlockPrintsWhatItShows(_ block: Block) throws {
        let scratch = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(scratch) }
        let copy = try TestSupport.runShell(
            "cp -R '\(TestSupport.packageRoot.appendingPathComponent("fixtures").path)' fixtures", in: scratch)
        #expect(copy.status == 0)
        let binaries = TestSupport.executable.deletingLastPathComponent().path
        for command in block.commands {
            let result = try TestSupport.run(
                ["-c", "export PATH='\(binaries)':\"$PATH\"; exec 2>&1; \(command.text)"], in: scratch,
                executable: URL(fileURLWithPath: "/bin/sh"))
            let printed = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let got = (printed.last == "" ? Array(printed.dropLast()) : printed).map { Self.normalized($0, scratch: scratch.path) }
            let wanted = command.expected.map { Self.normalized($0, scratch: scratch.path) }
            #expect(got == wanted, "\(block): $ \(command.text)")
        }
    }
}

extension DocumentationTests {
    /// `--version`, the CHANGELOG's latest release and the README agree.
    @Test func theVersionIsTheChangelogsLatestRelease() throws {
        let changelog = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let latest = changelog.components(separatedBy: "\n").first { $0.hasPrefix("## ") && $0.first(where: \.isNumber) != nil }
        let version = try TestSupport.run(["--version"], in: TestSupport.packageRoot)
        #expect(version.status == 0)
        let first = version.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.hasPrefix("sqlimport "), "\(version.stdout)")
        #expect(latest?.hasPrefix("## \(first.dropFirst("sqlimport ".count)) ") == true, "\(latest ?? "") vs \(version.stdout)")
        // The C libraries it runs with, named.
        #expect(version.stdout.contains("SQLite 3."), "\(version.stdout)")
        #expect(version.stdout.contains("zstd 1."), "\(version.stdout)")
    }
}
