import Foundation

/// What to do instead, for the parser's refusal of a mistake people make with `export`,
/// `snapshot`, `restore` and `inspect`: the database given as an argument instead of
/// with `--db`, or a flag borrowed from `import` or from other tools. The parser's own
/// message ("Unexpected argument", "Unknown option") names the word, not the fix.
enum UsageHints {
    static func hint(for arguments: [String]) -> String? {
        guard let subcommand = arguments.first, ["export", "snapshot", "restore", "inspect"].contains(subcommand) else { return nil }
        let words = arguments.dropFirst().prefix { $0 != "--" }
        let flags = Set(words.filter { $0.hasPrefix("--") }.map { String($0.split(separator: "=", maxSplits: 1)[0]) })
        if subcommand == "export" || subcommand == "inspect", flags.contains("--table") {
            return "\(subcommand) names the table as its argument: sqlimport \(subcommand) TABLE --db PATH"
        }
        if subcommand == "export", let format = ["--csv", "--tsv", "--json", "--jsonl"].first(where: flags.contains) {
            return "the format is --format \(format.dropFirst(2)), or the output's name: -o FILE.\(format.dropFirst(2))"
        }
        if subcommand == "export", flags.contains("--gzip") || flags.contains("--gz") {
            return "gzip is chosen by the output's name ending in .gz: -o FILE.jsonl.gz, or FILE.csv.gz"
        }
        // A database given where an argument goes: `export app.db items`, `snapshot app.db`.
        var expectsValue = false
        for word in words {
            if expectsValue {
                expectsValue = false
                continue
            }
            if word.hasPrefix("-") {
                // An option's value is no argument (`-o copy.db`); flags take none.
                expectsValue = !word.contains("=") && !["--force", "--quiet", "-q", "--help", "-h", "--progress", "--zstd"].contains(word)
                continue
            }
            if Self.looksLikeADatabase(word) && !flags.contains("--db") {
                let usage = ["export": "sqlimport export TABLE --db \(word)", "inspect": "sqlimport inspect TABLE --db \(word)",
                             "snapshot": "sqlimport snapshot --db \(word) -o FILE", "restore": "sqlimport restore SNAPSHOT --db \(word)"][subcommand]!
                return "\(word) looks like the database, which is given with --db: \(usage)"
            }
        }
        return nil
    }

    /// A name ending as SQLite files do, or an existing file that begins with SQLite's header.
    static func looksLikeADatabase(_ word: String) -> Bool {
        if [".db", ".sqlite", ".sqlite3", ".db3"].contains(where: { word.hasSuffix($0) }) { return true }
        guard let handle = FileHandle(forReadingAtPath: word) else { return false }
        defer { try? handle.close() }
        return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
    }
}
