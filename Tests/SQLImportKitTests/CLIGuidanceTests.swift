import Foundation
import GRDB
import Testing

/// What a person meets at the terminal (issue 18): discovery, messages that lead to the
/// fix, nothing done silently, honest progress, and the same rules in every subcommand.
@Suite struct CLIGuidanceTests {
    static let helpFolder = TestSupport.packageRoot.appendingPathComponent("fixtures/help")

    // MARK: - Discovery

    /// A value an `INTEGER PRIMARY KEY` cannot hold gave SQLite's bare "datatype
    /// mismatch", naming neither the field nor the value, in every strategy (a helper):
    /// the message now names both, and what the column holds.
    @Test(arguments: ["typed", "cached", "multirow"])
    func aValueTheRowidKeyCannotHoldIsNamedWithItsField(_ strategy: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db 'CREATE TABLE ipk (id INTEGER PRIMARY KEY, v TEXT)'", in: directory)
        TestSupport.write("id,v\n1,a\nx,b\n", to: directory.appendingPathComponent("ipk.csv"))
        TestSupport.write(#"{"id":1,"v":"a"}"# + "\n" + #"{"id":1.5,"v":"b"}"# + "\n", to: directory.appendingPathComponent("ipk.jsonl"))
        for (name, line, value) in [("ipk.csv", 3, #""x""#), ("ipk.jsonl", 2, "1.5")] {
            let run = try TestSupport.run([name, "--db", "app.db", "--table", "ipk", "--upsert", "id", "--strategy", strategy], in: directory)
            #expect(run.status == 65, "\(run.stderr)")
            #expect(run.stderr.contains("\(name):\(line)") && run.stderr.contains(#""id" = \#(value)"#) && run.stderr.contains("INTEGER PRIMARY KEY"), "\(run.stderr)")
        }
    }

    /// A trigger's `RAISE(ROLLBACK)` ends the transaction, so a multi-row statement's
    /// failure cannot be retried record by record: the error named the statement's first
    /// line as the refused record (a helper). It now names the lines the statement spans
    /// and the strategy that names the record.
    @Test(arguments: ["auto", "multirow", "typed"])
    func aRollbackInAMultiRowStatementNamesTheLinesItSpans(_ strategy: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        try TestSupport.makeTenRecordsWithATriggerOnTheFifth(raising: "ROLLBACK", "rollback 5", in: directory)
        let run = try TestSupport.run(["ten.jsonl", "--db", "app.db", "--table", "t", "--upsert", "k", "--strategy", strategy], in: directory)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("rollback 5"), "\(run.stderr)")
        if strategy == "typed" {
            #expect(run.stderr.contains("ten.jsonl:5"), "\(run.stderr)")
        } else {
            #expect(run.stderr.contains("ten.jsonl:1–10: SQLite refused one of 10 records") && run.stderr.contains("--strategy typed"), "\(run.stderr)")
        }
        #expect(try TestSupport.runShell("sqlite3 app.db 'SELECT count(*) FROM t'", in: directory).stdout == "0\n")
    }

    /// A NULL given for a key that is the primary key (SQLiteData's `id`) was told to
    /// "supply the table's primary key", the very key it lacks (a helper).
    @Test func aNullPrimaryKeyIsToldToGiveItAValue() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell(
            #"sqlite3 app.db 'CREATE TABLE attachments ("id" TEXT PRIMARY KEY NOT NULL ON CONFLICT REPLACE DEFAULT (lower(hex(randomblob(16)))), "note" TEXT) STRICT'"#,
            in: directory)
        TestSupport.write(#"{"id":null,"note":"n"}"# + "\n", to: directory.appendingPathComponent("an.jsonl"))
        let run = try TestSupport.run(["an.jsonl", "--db", "app.db", "--table", "attachments", "--upsert", "id"], in: directory)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("Give each record a value for that key") && !run.stderr.contains("Supply the table's primary key"), "\(run.stderr)")
    }

    @Test func noArgumentsPrintsTheOverviewWithExamplesAndExitCodes() throws {
        let result = try TestSupport.run([], in: TestSupport.packageRoot)
        #expect(result.status == 0)
        for part in ["EXAMPLES:", "sqlimport items.jsonl --db app.db --upsert libraryID,remoteID", "EXIT CODES:", "SUBCOMMANDS:", "export"] {
            #expect(result.stdout.contains(part), "\(part)")
        }
    }

    @Test(arguments: ["root", "import", "inspect", "export", "snapshot", "restore"])
    func helpOfEachSubcommandMatchesItsGoldenFile(_ name: String) throws {
        let arguments = name == "root" ? ["--help"] : ["help", name]
        let result = try TestSupport.run(arguments, in: TestSupport.packageRoot, environment: ["COLUMNS": "80"])
        #expect(result.status == 0)
        let golden = Self.helpFolder.appendingPathComponent("\(name).txt")
        if ProcessInfo.processInfo.environment["SQLIMPORT_UPDATE_GOLDEN"] == "1" { _ = TestSupport.write(result.stdout, to: golden) }
        #expect(result.stdout == (try String(contentsOf: golden, encoding: .utf8)), "regenerate with SQLIMPORT_UPDATE_GOLDEN=1")
    }

    @Test func importHelpIsGroupedAndEndsItsDiscussionWithExamplesAndExitCodes() throws {
        let help = try TestSupport.run(["help", "import"], in: TestSupport.packageRoot).stdout
        let groups = ["INPUT:", "KEYS AND MERGE:", "SCHEMA:", "SAFETY AND CRON:", "OUTPUT:", "TUNING:"]
        let positions = groups.map { help.range(of: "\n\($0)\n")?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil }, "\(help)")
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(help.contains("EXAMPLES:") && help.contains("EXIT CODES:"))
        let flat = help.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
        #expect(flat.contains("(values: replace, coalesce, newer:, ignore; default: replace)"))
        #expect(flat.contains("(values: abort, skip; default: abort)"))
    }

    @Test func aMistypedSubcommandIsAnsweredDidYouMean() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try TestSupport.run(["exprt", "items"], in: directory)
        #expect(result.status == 64)
        #expect(result.stderr.contains("exprt: no such file or subcommand; did you mean `sqlimport export`?"), "\(result.stderr)")
        #expect(!result.stderr.contains(" read ·"))
    }

    /// The parser named the word it refused ("Unexpected argument 'items'", "Unknown
    /// option '--table'", or "did you mean '--db'?" for `--csv`), never the fix.
    @Test(arguments: [
        (["export", "app.db", "items"], "app.db looks like the database, which is given with --db: sqlimport export TABLE --db app.db"),
        (["snapshot", "app.db"], "app.db looks like the database, which is given with --db: sqlimport snapshot --db app.db -o FILE"),
        (["restore", "copy.db", "s.sqlite.zst"], "copy.db looks like the database, which is given with --db: sqlimport restore SNAPSHOT --db copy.db"),
        (["export", "items", "--table", "items"], "export names the table as its argument: sqlimport export TABLE --db PATH"),
        (["export", "items", "--csv"], "the format is --format csv, or the output's name: -o FILE.csv"),
        (["export", "items", "--gzip"], "gzip is chosen by the output's name ending in .gz: -o FILE.jsonl.gz, or FILE.csv.gz"),
    ])
    func aMistakeWithExportOrSnapshotIsAnsweredWithTheFix(_ arguments: [String], _ hint: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try TestSupport.run(arguments, in: directory)
        #expect(result.status == 64)
        #expect(result.stderr.contains("hint: " + hint), "\(result.stderr)")
    }

    /// An output named like a database is no database given without --db (review: the
    /// hint swapped them on any other mistake).
    @Test func anOutputNamedLikeADatabaseGetsNoHint() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        for arguments in [["export", "t", "-o", "copy.db", "--bogus"], ["snapshot", "-o", "backup.sqlite", "--levl", "5"]] {
            let result = try TestSupport.run(arguments, in: directory)
            #expect(result.status == 64 && !result.stderr.contains("hint:"), "\(arguments): \(result.stderr)")
        }
    }

    @Test func optionsBeforeASubcommandAreRefusedNamingTheOrder() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try TestSupport.run(["--db", "x.db", "export", "items"], in: directory)
        #expect(result.status == 64)
        #expect(result.stderr.contains("export is a subcommand, and it comes first: options go after it"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("x.db").path))
    }

    @Test func completionListsTheValuesOfFixedValueOptionsAndCompletesFiles() throws {
        let script = try TestSupport.run(["--generate-completion-script", "bash"], in: TestSupport.packageRoot).stdout
        for values in [["jsonl", "json", "csv", "tsv"], ["auto", "typed", "cached", "multirow"], ["abort", "skip"], ["error", "skip", "insert"], ["on", "json"]] {
            let list = "-W " + values.map { "'\($0)'" }.joined(separator: "$'\\n'")
            #expect(script.contains(list), "\(list)")
        }
        #expect(script.contains("'--db')\n        __sqlimport_add_completions -f"), "files complete as files")
    }

    @Test func versionNamesTheLibrariesItRunsWith() throws {
        let result = try TestSupport.run(["--version"], in: TestSupport.packageRoot)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.last?.hasPrefix("build") == true)
        // An installed binary names its commit (scripts/install.sh writes share/sqlimport/BUILD).
        let prefix = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(prefix) }
        _ = try TestSupport.runShell(
            "mkdir -p bin share/sqlimport && cp '\(TestSupport.executable.path)' bin/ && echo 'abc123def456, 2026-11-25' > share/sqlimport/BUILD", in: prefix)
        let installed = try TestSupport.run(["--version"], in: prefix, executable: prefix.appendingPathComponent("bin/sqlimport"))
        #expect(installed.stdout.hasSuffix("\nbuild abc123def456, 2026-11-25\n"), "\(installed.stdout)")
        #expect(lines[1].hasPrefix("SQLite 3.") && lines[1].contains("· zstd 1.") && lines[1].contains("· zlib 1."))
    }

    // MARK: - Messages that lead to the fix

    @Test func aNullSpellingInATypedColumnSuggestsTheNullFlag() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db 'CREATE TABLE f (month INTEGER, dep_delay INTEGER) STRICT'", in: directory)
        TestSupport.write("month,dep_delay\n1,NA\n", to: directory.appendingPathComponent("f.csv"))
        let failed = try TestSupport.run(["f.csv", "--db", "app.db"], in: directory)
        #expect(failed.status == 65)
        #expect(failed.stderr.contains("f.csv:2 (byte 16): SQLite refused the record"), "\(failed.stderr)")
        #expect(failed.stderr.contains("; if NA means a missing value in this CSV/TSV input, pass --null NA"))
        let fixed = try TestSupport.run(["f.csv", "--db", "app.db", "--null", "NA"], in: directory)
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(try TestSupport.runShell("sqlite3 app.db 'SELECT month, dep_delay IS NULL FROM f'", in: directory).stdout == "1|1\n")
    }

    @Test func aDatabaseOrAnArchiveGivenAsAnInputIsNamedForWhatItIs() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 other.db 'CREATE TABLE t (a)'; printf 'a\\n1\\n' > a.csv; python3 -c \"import zipfile; z = zipfile.ZipFile('a.zip', 'w'); z.write('a.csv')\"", in: directory)
        let database = try TestSupport.run(["other.db", "--db", "app.db"], in: directory)
        #expect(database.status == 65)
        #expect(database.stderr.contains("other.db is a SQLite database, not JSON, CSV or TSV; did you mean --db other.db?"), "\(database.stderr)")
        let zip = try TestSupport.run(["a.zip", "--db", "app.db"], in: directory)
        #expect(zip.status == 65)
        #expect(zip.stderr.contains("a.zip is a ZIP archive, not JSON, CSV or TSV; unzip it first"), "\(zip.stderr)")
    }

    @Test func aHeaderWithSpacesAfterItsCommasIsPointedOut() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db 'CREATE TABLE flights (year INTEGER, month INTEGER)'", in: directory)
        TestSupport.write("year, month\n2013,1\n", to: directory.appendingPathComponent("flights.csv"))
        let existing = try TestSupport.run(["flights.csv", "--db", "app.db"], in: directory)
        #expect(existing.status == 65)
        #expect(existing.stderr.contains(#"" month" begin or end with a space (a header written as "a, b"): remove the spaces from the header line"#), "\(existing.stderr)")
        let created = try TestSupport.run(["flights.csv", "--db", "new.db", "--report", "report.json"], in: directory)
        #expect(created.status == 0)
        #expect(created.stderr.contains(#"warning: the new table's column(s) " month" begin or end with a space"#), "\(created.stderr)")
        #expect(try String(contentsOf: directory.appendingPathComponent("report.json"), encoding: .utf8).contains("begin or end with a space"))
    }

    // MARK: - Nothing silently

    @Test func skippedRecordsShowTheirFirstReasonsAndWhereTheRestAre() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db 'CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER) STRICT'", in: directory)
        let lines = (1 ... 6).map { "{\"id\":\($0),\"n\":\"bad\($0)\"}" } + ["{\"id\":7,\"n\":7}"]
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("t.jsonl"))
        let result = try TestSupport.run(["t.jsonl", "--db", "app.db", "--on-error", "skip", "--report", "report.json"], in: directory)
        #expect(result.status == 2)
        let reasons = result.stderr.split(separator: "\n").filter { $0.hasPrefix("sqlimport: rejected: t.jsonl:") }
        #expect(reasons.count == 3, "\(result.stderr)")
        #expect(reasons.first?.contains("t.jsonl:1 (byte 0): SQLite refused the record") == true)
        #expect(result.stderr.contains("sqlimport: and 3 more rejected; pass --rejects FILE to keep every one with its reason"))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent("report.json"))) as? [String: Any]
        #expect((report?["firstRejects"] as? [String])?.count == 5)
    }

    @Test func schemaChangesAreOneLineEachAndInTheReport() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write("{\"id\":1,\"a\":\"x\"}\n", to: directory.appendingPathComponent("t.jsonl"))
        let created = try TestSupport.run(["t.jsonl", "--db", "app.db"], in: directory)
        #expect(created.stderr.hasPrefix("sqlimport: created table \"t\"\n"), "\(created.stderr)")
        TestSupport.write("{\"id\":2,\"a\":\"y\",\"b\":2,\"c\":3}\n", to: directory.appendingPathComponent("t.jsonl"))
        let altered = try TestSupport.run(["t.jsonl", "--db", "app.db", "--alter", "--report", "report.json"], in: directory)
        #expect(altered.stderr.hasPrefix("sqlimport: added columns \"b\", \"c\" (--alter)\n"), "\(altered.stderr)")
        let report = try String(contentsOf: directory.appendingPathComponent("report.json"), encoding: .utf8)
        #expect(report.contains("\"addedColumns\" : [\n    \"b\",\n    \"c\"\n  ]"), "\(report)")
        // A first load into an empty table with a secondary index builds it at the end.
        _ = try TestSupport.runShell("sqlite3 indexed.db 'CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT); CREATE INDEX t_a ON t (a)'", in: directory)
        let deferred = try TestSupport.run(["t.jsonl", "--db", "indexed.db", "--ignore-unknown"], in: directory)
        #expect(deferred.stderr.contains("sqlimport: built index \"t_a\" once after the load, not row by row"), "\(deferred.stderr)")
    }

    @Test(arguments: [
        (["--rejects", "bad.jsonl"], "--rejects and --max-errors go with --on-error skip"),
        (["--json", "--null", "NA"], "--null applies to CSV and TSV fields"),
        (["--json", "--no-header"], "--delimiter and --no-header apply to CSV and TSV"),
        (["--rows-per-statement", "10"], "--rows-per-statement applies to --strategy multirow"),
        (["--null-key", "insert"], "--null-key, --duplicate-keys and --create-index apply to an upsert"),
        (["--merge", "coalesce"], "--merge coalesce applies to rows an upsert finds"),
        (["--resume"], "--resume continues a --commit-every run"),
        (["--quiet", "--progress"], "--quiet and --progress contradict each other"),
    ])
    func aFlagThatDoesNotApplyIsRefused(_ flags: [String], _ message: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write("{\"id\":1}\n", to: directory.appendingPathComponent("t.jsonl"))
        let result = try TestSupport.run(["t.jsonl", "--db", "app.db"] + flags, in: directory)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!result.stderr.contains(" read ·"), "no summary after a usage error")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("app.db").path))
    }

    @Test func aFailedRunSaysWhatStaysCommittedNotWhatWasReadAhead() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let lines = (1 ... 10_000).map { "{\"id\":\($0)}" } + ["{oops"]
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("t.jsonl"))
        let whole = try TestSupport.run(["t.jsonl", "--db", "app.db", "--upsert", "id", "--pk", "id"], in: directory)
        #expect(whole.status == 65)
        #expect(whole.stderr.hasSuffix("app.db t: stopped, nothing committed\n"), "\(whole.stderr)")
        let checkpointed = try TestSupport.run(["t.jsonl", "--db", "app.db", "--upsert", "id", "--pk", "id", "--commit-every", "3000"], in: directory)
        #expect(checkpointed.status == 65)
        #expect(checkpointed.stderr.contains("app.db t: stopped; committed before it (re-run with --resume): 9,000 read · 9,000 inserted"), "\(checkpointed.stderr)")
        #expect(try TestSupport.runShell("sqlite3 app.db 'SELECT count(*) FROM t'", in: directory).stdout == "9000\n")
    }

    // MARK: - Progress

    static func progressRun(_ flags: [String], in directory: URL) throws -> TestSupport.Output {
        _ = try TestSupport.runShell("sqlite3 app.db 'CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT); CREATE INDEX t_a ON t (a)'", in: directory)
        let lines = (1 ... 20_000).map { "{\"id\":\($0),\"a\":\"v\($0 % 97)\"}" }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("t.jsonl"))
        return try TestSupport.run(["t.jsonl", "--db", "app.db"] + flags, in: directory, environment: ["SQLIMPORT_PROGRESS_INTERVAL": "0"])
    }

    @Test func progressIntoALogIsPlainLinesWithPhases() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try Self.progressRun(["--progress"], in: directory)
        #expect(result.status == 0)
        #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}"))
        let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("sqlimport: progress: ") }
        #expect(lines.first?.hasPrefix("sqlimport: progress: writing · ") == true, "\(result.stderr)")
        #expect(lines.contains { $0.hasPrefix("sqlimport: progress: building indexes · 20,000 rows") }, "\(result.stderr)")
        #expect(lines.last?.hasPrefix("sqlimport: progress: committing · 20,000 rows") == true)
        #expect(lines.contains { $0.contains("100.0%") })
    }

    @Test func progressAsJSONIsOneObjectPerLineCountingWrittenRecords() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try Self.progressRun(["--progress=json"], in: directory)
        #expect(result.status == 0)
        let objects = result.stderr.split(separator: "\n").filter { $0.hasPrefix("{") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(objects.count >= 3, "\(result.stderr)")
        let phases = objects.compactMap { $0["phase"] as? String }
        #expect(phases.first == "writing" && phases.last == "committing" && phases.contains("building indexes"))
        let written = objects.compactMap { $0["rowsWritten"] as? Int }
        #expect(written == written.sorted() && written.last == 20_000)
        #expect(objects.allSatisfy { ($0["rowsWritten"] as? Int ?? 0) <= ($0["rowsRead"] as? Int ?? 0) })
        #expect(objects.last?["totalBytes"] as? Int == Int(try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent("t.jsonl").path)[.size] as! UInt64))
    }

    @Test func aCompressedInputGetsAPercentageFromItsCompressedBytes() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let lines = (1 ... 20_000).map { "{\"id\":\($0),\"a\":\"v\($0 % 97)\"}" }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("t.jsonl"))
        _ = try TestSupport.runShell("zstd -q --rm t.jsonl", in: directory)
        let result = try TestSupport.run(["t.jsonl.zst", "--db", "app.db", "--table", "t", "--progress=json"], in: directory, environment: ["SQLIMPORT_PROGRESS_INTERVAL": "0"])
        #expect(result.status == 0, "\(result.stderr)")
        let fractions = result.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.compactMap { $0["fraction"] as? Double }
        #expect(!fractions.isEmpty && fractions.last == 1, "\(result.stderr)")
    }

    /// The terminal line, seen in a 30-column tmux pane while the input stalls: the full
    /// line (`writing · 4,096 rows · 150K rows/s`) would wrap.
    @Test func theTerminalLineFitsTheWidthAndDumbTerminalsGetNone() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let lines = (1 ... 5_000).map { "{\"id\":\($0),\"a\":\"some text for \($0)\"}" }
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("t.jsonl"))
        let binary = TestSupport.executable.path
        var panes: [String: String] = [:]
        for term in ["xterm", "dumb"] {
            // A tmux server of its own (-L), away from any tmux the tests run in, driven
            // from one shell (the server does not outlive the test's shell process). The
            // records, then a pause with the pipe open: the line stays drawn. Up to 5 s
            // for the first batch to be written on a loaded machine.
            let tmux = "env -u TMUX tmux -L sqlimport-\(UUID().uuidString.prefix(8))"
            let command = "(cat t.jsonl; sleep 6) | TERM=\(term) '\(binary)' - --db \(term).db --table t; sleep 5"
            let script = """
                \(tmux) new-session -d -s pane -x 30 -y 10 -c '\(directory.path)' "\(command)" || exit 1
                for i in $(seq 25); do sleep 0.2; \(tmux) capture-pane -p -t pane | grep -q rows && break; done
                sleep 0.5
                \(tmux) capture-pane -p -t pane
                \(tmux) kill-server
                """
            let result = try TestSupport.runShell(script, in: directory)
            #expect(result.status == 0, "\(result.stderr)")
            panes[term] = result.stdout
        }
        let drawn = panes["xterm"]?.split(separator: "\n").first { $0.hasPrefix("writing · ") }
        #expect(drawn != nil, "\(panes["xterm"] ?? "")")
        #expect(drawn?.count == 29, "cut to the width, less the cursor's column")
        #expect(drawn?.hasPrefix("writing · 4,096 rows · ") == true, "the first batch, written")
        #expect(panes["xterm"]?.split(separator: "\n").count == 1, "no wrapped line")
        #expect(panes["dumb"]?.trimmingCharacters(in: .whitespacesAndNewlines) == "", "\(panes["dumb"] ?? "")")
    }

    // MARK: - Consistency

    @Test func exportRefusesToOverwriteWithoutForceAndTakesAZstdLevel() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db \"CREATE TABLE t (a); INSERT INTO t VALUES (1), (2)\"", in: directory)
        TestSupport.write("keep\n", to: directory.appendingPathComponent("out.csv"))
        let refused = try TestSupport.run(["export", "t", "--db", "app.db", "-o", "out.csv"], in: directory)
        #expect(refused.status == 64)
        #expect(refused.stderr.contains("out.csv already exists; sqlimport does not overwrite exports. Choose another name, or pass --force to replace it"))
        #expect(try String(contentsOf: directory.appendingPathComponent("out.csv"), encoding: .utf8) == "keep\n")
        #expect(try TestSupport.run(["export", "t", "--db", "app.db", "-o", "out.csv", "--force"], in: directory).status == 0)
        #expect(try String(contentsOf: directory.appendingPathComponent("out.csv"), encoding: .utf8) == "a\n1\n2\n")
        let level = try TestSupport.run(["export", "t", "--db", "app.db", "-o", "out.jsonl", "--zstd", "19"], in: directory)
        #expect(level.status == 0, "\(level.stderr)")
        #expect(try TestSupport.runShell("zstd -dc out.jsonl", in: directory).stdout == "{\"a\":1}\n{\"a\":2}\n")
    }

    /// ArgumentParser keeps the last value of an option given twice, without a word:
    /// `--db a.db --db b.db` wrote b.db. Such a command is refused, naming the values;
    /// options that add one item each (`--type`, `--param`) repeat as before.
    @Test func anOptionGivenTwiceIsRefused() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write("{\"id\":1}\n", to: directory.appendingPathComponent("in.jsonl"))
        let twice = try TestSupport.run(["in.jsonl", "--db", "a.db", "--db=b.db"], in: directory)
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("--db is given 2 times (a.db, b.db), and only one is used; give it once"), "\(twice.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("b.db").path))
        let short = try TestSupport.run(["export", "t", "--db", "a.db", "-o", "x.csv", "--output", "y.csv"], in: directory)
        #expect(short.status == 64)
        #expect(short.stderr.contains("--output is given 2 times (x.csv, y.csv)"), "\(short.stderr)")
        let types = try TestSupport.run(["in.jsonl", "--db", "c.db", "--table", "t", "--type", "id=INTEGER", "--type", "id=INTEGER", "-q"], in: directory)
        #expect(types.status == 0, "\(types.stderr)")
    }

    /// A mistyped option with no input said "no input given": ArgumentParser reports an
    /// unknown option after `validate`, which refused the missing input first.
    @Test func aMistypedOptionWithoutAnInputIsNamed() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let typo = try TestSupport.run(["--quiett"], in: directory)
        #expect(typo.status == 64)
        #expect(typo.stderr.contains("Unknown option '--quiett'. Did you mean '--quiet'?"), "\(typo.stderr)")
        let none = try TestSupport.run(["--db", "a.db"], in: directory)
        #expect(none.status == 64)
        #expect(none.stderr.contains("no input given; pass a file, or - for standard input"), "\(none.stderr)")
    }

    /// Messages that named the wrong cause: a negative number was taken for a flag
    /// ("Missing value"; `--busy-timeout -1` was even accepted), a directory input was a
    /// permissions problem, and `--report` and `--rejects` on one file said the run would
    /// replace what it reads "even with --force", a flag import does not have.
    @Test func messagesNameTheRealCause() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write("{\"id\":1}\n", to: directory.appendingPathComponent("in.jsonl"))
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("feeds"), withIntermediateDirectories: true)
        _ = try TestSupport.runShell("sqlite3 req.db 'CREATE TABLE r (id INTEGER PRIMARY KEY, need TEXT NOT NULL)'", in: directory)
        let cases: [([String], String)] = [
            (["in.jsonl", "--db", "a.db", "--commit-every", "-5"], "--commit-every needs a positive number of records"),
            (["in.jsonl", "--db", "a.db", "--busy-timeout", "-1"], "--busy-timeout takes milliseconds, 0 or more"),
            (["snapshot", "--db", "a.db", "--busy-timeout", "-1"], "--busy-timeout takes milliseconds, 0 or more"),
            (["feeds", "--db", "a.db"], "feeds is a directory, not a file; pass the files in it (e.g. feeds/*.jsonl)"),
            (["feeds/", "--db", "a.db"], "feeds/ is a directory, not a file; pass the files in it (e.g. feeds/*.jsonl)"),
            (["in.jsonl", "--db", "a.db", "--report", "a.db"], "a.db is the database; writing there would replace what is being read. Choose another output name"),
            (["in.jsonl", "--db", "a.db", "--upsert", "id,ID"], "--upsert names id twice; name each column of the key once"),
            (["in.jsonl", "--db", "req.db", "--table", "r"], #"in.jsonl: column "need" of "r" is NOT NULL without a default, and the input has no such field"#),
            (["in.jsonl", "--db", "a.db", "--on-error", "skip", "--report", "r.json", "--rejects", "r.json"], "--report and --rejects both name r.json; give each a file of its own"),
        ]
        for (arguments, message) in cases {
            let result = try TestSupport.run(arguments, in: directory)
            #expect(result.status != 0 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    /// A CSV without a header line: into a new table its first record silently became the
    /// column names (exit 0, one record fewer); into an existing table the error offered
    /// only --alter and --ignore-unknown, which would add columns named after data.
    @Test func aHeaderLineThatIsARecordIsNamed() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        TestSupport.write("b,2,y,t2\nc,3,z,t3\n", to: directory.appendingPathComponent("nohead.csv"))
        let created = try TestSupport.run(["nohead.csv", "--db", "new.db", "--report", "r.json"], in: directory)
        #expect(created.status == 0)
        let warning = #"nohead.csv:1: the header line names column(s) "2", a number: if the file has no header line, its first record became the new table's column names"#
        #expect(created.stderr.contains(warning), "\(created.stderr)")
        #expect(try String(contentsOf: directory.appendingPathComponent("r.json"), encoding: .utf8).contains("the header line names column(s)"))
        _ = try TestSupport.runShell("sqlite3 old.db 'CREATE TABLE items (id TEXT PRIMARY KEY, name TEXT)'", in: directory)
        let refused = try TestSupport.run(["nohead.csv", "--db", "old.db", "--table", "items", "--upsert", "id"], in: directory)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains(#""2" is a number: if the file has no header line, its first record was read as one"#), "\(refused.stderr)")
        // A header of names gets neither.
        let named = try TestSupport.run([TestSupport.fixtures.appendingPathComponent("real/penguins.csv").path, "--db", "p.db", "--null", "NA"], in: directory)
        #expect(named.status == 0 && !named.stderr.contains("a number"), "\(named.stderr)")
    }

    /// snapshot --help gave --threads two defaults: "one per core" and this machine's count.
    @Test func snapshotHelpGivesThreadsOneDefault() throws {
        let help = try TestSupport.run(["snapshot", "--help"], in: TestSupport.packageRoot)
        #expect(help.status == 0)
        #expect(help.stdout.contains("one per core") && !help.stdout.contains("-T0). (default:"), "\(help.stdout)")
    }

    /// inspect of a table the database lacks did not say which it has (export did).
    @Test func inspectOfAMissingTableListsTheTables() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db 'CREATE TABLE items (id TEXT PRIMARY KEY); CREATE TABLE notes (id INTEGER PRIMARY KEY)'", in: directory)
        let run = try TestSupport.run(["inspect", "itmes", "--db", "app.db"], in: directory)
        #expect(run.status == 64)
        #expect(run.stderr.contains(#"no table "itmes" in app.db (it has "items", "notes"); check the name and --db"#), "\(run.stderr)")
    }

    /// export, snapshot and inspect of a missing database said only "unable to open
    /// database file", without the path.
    @Test(arguments: [["export", "t"], ["snapshot"], ["inspect", "t"]])
    func aMissingDatabaseIsNamed(_ command: [String]) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try TestSupport.run(command + ["--db", "missing.db"], in: directory)
        #expect(result.status == 73)
        #expect(result.stderr.contains("no database at missing.db; check the path given to --db"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("missing.db").path))
    }

    @Test func exportBindsNamedParametersAndRefusesUnboundOnes() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db \"CREATE TABLE t (a INTEGER, d TEXT); INSERT INTO t VALUES (1, '2026-01-01'), (2, '2026-02-01')\"", in: directory)
        let bound = try TestSupport.run(["export", "--db", "app.db", "--query", "SELECT a FROM t WHERE d >= :since AND a >= :min", "--param", "since=2026-01-15", "--param", "min=2"], in: directory)
        #expect(bound.stdout == "{\"a\":2}\n", "\(bound.stderr)")
        let unbound = try TestSupport.run(["export", "--db", "app.db", "--query", "SELECT a FROM t WHERE d >= :since"], in: directory)
        #expect(unbound.status == 64)
        #expect(unbound.stderr.contains("--query has the parameter :since, and nothing binds it (SQLite would read it as NULL); pass --param since=VALUE"))
        let positional = try TestSupport.run(["export", "--db", "app.db", "--query", "SELECT a FROM t WHERE d >= ?"], in: directory)
        #expect(positional.status == 64)
        #expect(positional.stderr.contains("positional ? parameter; name it"))
        let unknown = try TestSupport.run(["export", "--db", "app.db", "--query", "SELECT a FROM t WHERE a = :a", "--param", "b=1"], in: directory)
        #expect(unknown.stderr.contains("--param b: --query has no parameter :b (it has :a)"))
        // The name as the query writes it: "has no parameter ::a (it has :a)" named no fix.
        let prefixed = try TestSupport.run(["export", "--db", "app.db", "--query", "SELECT a FROM t WHERE a = :a", "--param", ":a=1"], in: directory)
        #expect(prefixed.status == 64 && prefixed.stderr.contains("--param :a: give the name without its ':': --param a=VALUE"), "\(prefixed.stderr)")
    }

    @Test func everySubcommandTakesQuiet() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db \"CREATE TABLE t (a); INSERT INTO t VALUES (1)\"", in: directory)
        TestSupport.write("{\"a\":2}\n", to: directory.appendingPathComponent("t.jsonl"))
        for arguments in [["import", "t.jsonl"], ["export", "t", "-o", "t.csv"], ["snapshot", "-o", "s.zst"], ["restore", "s.zst", "--db", "copy.db"], ["inspect", "t"]] {
            let withDB = arguments.contains("--db") ? arguments : arguments + ["--db", "app.db"]
            let result = try TestSupport.run(withDB + ["-q"], in: directory)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.stderr.isEmpty, "\(arguments): \(result.stderr)")
            if arguments[0] != "inspect" { #expect(result.stdout.isEmpty, "\(arguments): \(result.stdout)") }
        }
    }

    @Test func snapshotAndExportShowProgressToo() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db \"CREATE TABLE t (a); WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x + 1 FROM c WHERE x < 70000) INSERT INTO t SELECT x FROM c\"", in: directory)
        let snapshot = try TestSupport.run(["snapshot", "--db", "app.db", "-o", "s.zst", "--progress"], in: directory, environment: ["SQLIMPORT_PROGRESS_INTERVAL": "0"])
        #expect(snapshot.status == 0)
        let lines = snapshot.stderr.split(separator: "\n")
        #expect(lines.first == "sqlimport: progress: copying", "\(snapshot.stderr)")
        #expect(lines.last?.hasPrefix("sqlimport: progress: compressing · 100.0% · ") == true, "\(snapshot.stderr)")
        let export = try TestSupport.run(["export", "t", "--db", "app.db", "-o", "t.csv", "--progress"], in: directory, environment: ["SQLIMPORT_PROGRESS_INTERVAL": "0"])
        #expect(export.stderr.hasPrefix("sqlimport: progress: writing · 65,536 rows"), "\(export.stderr)")
    }

    @Test func restoreKeepsTheSnapshotsJournalMode() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 wal.db 'PRAGMA journal_mode = WAL; CREATE TABLE t (a); INSERT INTO t VALUES (1)' >/dev/null; sqlite3 rollback.db 'CREATE TABLE t (a)'", in: directory)
        for (name, mode) in [("wal", "wal"), ("rollback", "delete")] {
            #expect(try TestSupport.run(["snapshot", "--db", "\(name).db", "-o", "\(name).zst", "-q"], in: directory).status == 0)
            #expect(try TestSupport.run(["restore", "\(name).zst", "--db", "\(name)-copy.db", "-q"], in: directory).status == 0)
            #expect(try TestSupport.runShell("sqlite3 \(name)-copy.db 'PRAGMA journal_mode'", in: directory).stdout == "\(mode)\n")
        }
        #expect(try TestSupport.runShell("sqlite3 wal-copy.db 'SELECT a FROM t'", in: directory).stdout == "1\n")
    }
}

extension CLIGuidanceTests {
    /// The JSON Schema of docs/cron.md, checked against real reports: every field a report
    /// has is documented with its type, and every required one is there.
    @Test func reportsMatchTheDocumentedJSONSchema() throws {
        let page = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("docs/cron.md"), encoding: .utf8)
        let afterHeading = try #require(page.range(of: "### JSON Schema")).upperBound
        let start = try #require(page.range(of: "```json\n", range: afterHeading ..< page.endIndex)).upperBound
        let end = try #require(page.range(of: "\n```", range: start ..< page.endIndex)).lowerBound
        let schema = try #require(try JSONSerialization.jsonObject(with: Data(page[start ..< end].utf8)) as? [String: Any])

        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        _ = try TestSupport.runShell("sqlite3 app.db < '\(TestSupport.packageRoot.path)/fixtures/items.schema.sql'", in: directory)
        TestSupport.write(#"{"id":"x","libraryID":"one","remoteID":"q","updatedAt":"2026"}"# + "\n", to: directory.appendingPathComponent("bad.jsonl"))
        let runs: [[String]] = [
            ["\(TestSupport.packageRoot.path)/fixtures/items.jsonl", "--db", "app.db", "--upsert", "libraryID,remoteID", "--report", "ok.json"],
            ["bad.jsonl", "--db", "app.db", "--table", "items", "--upsert", "id", "--on-error", "skip", "--report", "skip.json"],
            ["bad.jsonl", "--db", "app.db", "--table", "items", "--upsert", "id", "--report", "failed.json"],
            ["missing.jsonl", "--db", "app.db", "--report", "missing.json"],
            ["\(TestSupport.packageRoot.path)/fixtures/items.jsonl", "--db", "new.db", "--upsert", "libraryID,remoteID", "--create-index", "--report", "created.json"],
        ]
        for arguments in runs {
            _ = try TestSupport.run(arguments, in: directory)
            let name = arguments[arguments.count - 1]
            let report = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(name)))
            let problems = Self.violations(of: report, against: schema, definitions: schema["$defs"] as? [String: Any] ?? [:], at: name)
            #expect(problems.isEmpty, "\(problems)")
        }
    }

    /// A small validator for the keywords the schema uses: type, enum, const, required,
    /// properties, additionalProperties, items and $ref.
    static func violations(of value: Any, against schema: [String: Any], definitions: [String: Any], at path: String) -> [String] {
        if let reference = schema["$ref"] as? String, let definition = definitions[String(reference.split(separator: "/").last ?? "")] as? [String: Any] {
            return violations(of: value, against: definition, definitions: definitions, at: path)
        }
        var problems: [String] = []
        if let type = schema["type"] as? String {
            let matches: Bool
            switch type {
            case "object": matches = value is [String: Any]
            case "array": matches = value is [Any]
            case "string": matches = value is String
            case "boolean": matches = value is Bool
            case "integer": matches = (value as? NSNumber).map { $0.doubleValue == $0.doubleValue.rounded() } ?? false
            case "number": matches = value is NSNumber
            default: matches = true
            }
            if !matches { problems.append("\(path): not \(type): \(value)") }
        }
        if let options = schema["enum"] as? [String], let text = value as? String, !options.contains(text) { problems.append("\(path): \(text) not in \(options)") }
        if let object = value as? [String: Any] {
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for key in schema["required"] as? [String] ?? [] where object[key] == nil { problems.append("\(path): missing \(key)") }
            for (key, field) in object {
                if let property = properties[key] as? [String: Any] {
                    problems += violations(of: field, against: property, definitions: definitions, at: "\(path).\(key)")
                } else if schema["additionalProperties"] as? Bool == false {
                    problems.append("\(path): \(key) is not documented")
                }
            }
        }
        if let array = value as? [Any], let items = schema["items"] as? [String: Any] {
            for (index, item) in array.enumerated() { problems += violations(of: item, against: items, definitions: definitions, at: "\(path)[\(index)]") }
        }
        return problems
    }

    /// A deferred foreign key fails only at the commit, where SQLite says "FOREIGN KEY
    /// constraint failed" and nothing else, even under `--on-error skip`. The error now
    /// names the row, its value, the parent and the fix; a `--commit-every` run keeps
    /// what its earlier commits wrote.
    @Test func aDeferredForeignKeyThatFailsAtCommitNamesTheRowAndTheFix() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id TEXT PRIMARY KEY, parent TEXT REFERENCES t (id) DEFERRABLE INITIALLY DEFERRED, v INTEGER);")
        let lines = (0 ..< 6).map { #"{"id":"n\#($0)","v":\#($0)}"# } + [#"{"id":"c2","parent":"zz","v":1}"#]
        TestSupport.write(lines.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        for extra in [["--on-error", "skip"], ["--dry-run"], ["--commit-every", "3"]] {
            let run = try TestSupport.run(["in.jsonl", "--db", database, "--table", "t", "--upsert", "id"] + extra, in: directory)
            #expect(run.status == 65, "\(run.stderr)")
            #expect(run.stderr.contains(#"a deferred foreign key failed when the run committed"#), "\(run.stderr)")
            #expect(run.stderr.contains(#""t" row 7: ("parent") = ('zz') has no row in "t" with that ("id")"#), "\(run.stderr)")
            #expect(run.stderr.contains("import them first"), "\(run.stderr)")
        }
        // The run with --commit-every 3 committed its first six records.
        #expect(try DatabaseQueue(path: database).read { try Int.fetchOne($0, sql: "SELECT count(*) FROM t") } == 6)
    }

    /// `inspect` offered `--upsert tu` for a unique generated column, which import then
    /// refuses (exit 64): such a key is listed as not usable, naming the column.
    @Test func inspectOffersOnlyKeysImportAccepts() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: "CREATE TABLE t (id INTEGER PRIMARY KEY, tail TEXT, tu TEXT GENERATED ALWAYS AS (upper(tail)) STORED UNIQUE);")
        let listed = try TestSupport.run(["inspect", "t", "--db", database], in: directory)
        #expect(listed.status == 0)
        #expect(listed.stdout.contains("--upsert id") && !listed.stdout.contains("--upsert tu"), "\(listed.stdout)")
        #expect(listed.stdout.contains(#"(tu)  (UNIQUE constraint sqlite_autoindex_t_1): not an --upsert key, "tu" is generated"#), "\(listed.stdout)")
    }
}
