import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// SQLiteData's column groups and enum tables (seed 004, `fixtures/sqlitedata/`): the
/// seed's models, as Swift's `JSONEncoder` writes them, into the seed's own tables.
@Suite struct SQLiteDataShapeTests {
    // The seed's models. Its `RemindersList` lacks the `isCompleted` its CREATE TABLE
    // requires; this one has it, as the seed's `Reminder` does.
    struct Timestamps: Codable {
        let createdAt: Date
        let updatedAt: Date?
    }

    struct RemindersList: Codable {
        let id: Int
        var name = ""
        var isCompleted = false
        let timestamps: Timestamps
    }

    struct Attachment: Codable {
        let id: Int
        let kind: Kind
        enum Kind: Codable {
            case link(URL)
            case note(String)
            case image(URL)
        }
    }

    struct ImageAttachment: Codable {
        let id: Int
        let kind: Kind
        enum Kind: Codable {
            case link(URL)
            case note(String)
            case image(Image)
        }
        struct Image: Codable {
            var caption = ""
            var url: URL
        }
    }

    static let fixtures = TestSupport.fixtures.appendingPathComponent("sqlitedata")
    static func date(_ text: String) -> Date { ISO8601DateFormatter().date(from: text)! }
    static func url(_ text: String) -> URL { URL(string: text)! }

    static let lists = [
        RemindersList(id: 1, name: "Home", isCompleted: false, timestamps: Timestamps(createdAt: date("2026-01-01T09:00:00Z"), updatedAt: nil)),
        RemindersList(
            id: 2, name: "Work", isCompleted: true,
            timestamps: Timestamps(createdAt: date("2026-01-02T09:00:00Z"), updatedAt: date("2026-03-04T10:30:00Z"))),
    ]
    static let attachments = [
        Attachment(id: 1, kind: .link(url("https://example.com/a"))),
        Attachment(id: 2, kind: .note("buy milk")),
        Attachment(id: 3, kind: .image(url("https://example.com/cat.png"))),
    ]
    static let switched = [
        Attachment(id: 1, kind: .note("call the bank")),
        Attachment(id: 2, kind: .image(url("https://example.com/dog.png"))),
        Attachment(id: 3, kind: .link(url("https://example.com/b"))),
        Attachment(id: 4, kind: .note("new")),
    ]
    static let imageAttachments = [
        ImageAttachment(id: 1, kind: .link(url("https://example.com/a"))),
        ImageAttachment(id: 2, kind: .note("buy milk")),
        ImageAttachment(id: 3, kind: .image(.init(caption: "a cat", url: url("https://example.com/cat.png")))),
    ]

    static func jsonLines<Value: Encodable>(_ values: [Value]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try values.map { String(decoding: try encoder.encode($0), as: UTF8.self) + "\n" }.joined()
    }

    /// A database with the seed's tables (`schema.sql`, or another file of the fixtures).
    static func seedDatabase(in directory: URL, schema: String = "schema.sql") throws -> String {
        let path = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(path, schema: try String(contentsOf: fixtures.appendingPathComponent(schema), encoding: .utf8))
        return path
    }

    static func rows(_ database: String, _ sql: String) throws -> [String] {
        try DatabaseQueue(path: database).read { db in
            try Row.fetchAll(db, sql: sql).map { row in row.databaseValues.map { $0.isNull ? "NULL" : "\($0.storage.value!)" }.joined(separator: "|") }
        }
    }

    static let seedRows = ["1|https://example.com/a|NULL|NULL", "2|NULL|buy milk|NULL", "3|NULL|NULL|https://example.com/cat.png"]
    static let switchedRows = [
        "1|NULL|call the bank|NULL", "2|NULL|NULL|https://example.com/dog.png", "3|https://example.com/b|NULL|NULL", "4|NULL|new|NULL",
    ]

    @Test func swiftsJSONEncoderWritesTheFixturesByteForByte() throws {
        for (file, text) in [
            ("remindersLists.jsonl", try Self.jsonLines(Self.lists)), ("attachments.jsonl", try Self.jsonLines(Self.attachments)),
            ("attachments-switched.jsonl", try Self.jsonLines(Self.switched)), ("attachments-image.jsonl", try Self.jsonLines(Self.imageAttachments)),
        ] {
            #expect(try String(contentsOf: Self.fixtures.appendingPathComponent(file), encoding: .utf8) == text, "\(file)")
        }
    }

    @Test func theSeedsExportsReImportIntoTheSeedsTablesExactlyAndAReRunWritesNothing() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.seedDatabase(in: directory)
        let lists = Self.fixtures.appendingPathComponent("remindersLists.jsonl").path
        let attachments = Self.fixtures.appendingPathComponent("attachments.jsonl").path
        for (input, table) in [(lists, "remindersLists"), (attachments, "attachments")] {
            let first = try TestSupport.run([input, "--db", database, "--table", table, "--upsert", "id", "--flatten", "--report", "-"], in: directory)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains(#""kind=link,note,image""#) == (table == "attachments"), "\(first.stdout)")
            let again = try TestSupport.run([input, "--db", database, "--table", table, "--upsert", "id", "--flatten", "--report", "-"], in: directory)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stdout.contains(#""updated" : 0"#) && !again.stdout.contains(#""unchanged" : 0"#), "\(again.stdout)")
        }
        #expect(try Self.rows(database, "SELECT * FROM remindersLists ORDER BY id") == [
            "1|Home|0|2026-01-01T09:00:00Z|NULL", "2|Work|1|2026-01-02T09:00:00Z|2026-03-04T10:30:00Z",
        ])
        #expect(try Self.rows(database, "SELECT * FROM attachments ORDER BY id") == Self.seedRows)
        // The seed's second attachments table: the image case is a group of two columns.
        let imageDirectory = directory.appendingPathComponent("image")
        try FileManager.default.createDirectory(at: imageDirectory, withIntermediateDirectories: true)
        let imageDatabase = try Self.seedDatabase(in: imageDirectory, schema: "schema-image.sql")
        let result = try TestSupport.run(
            [Self.fixtures.appendingPathComponent("attachments-image.jsonl").path, "--db", imageDatabase, "--table", "attachments", "--upsert", "id", "--flatten"],
            in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("--enum kind=link,note,caption,url"))
        #expect(try Self.rows(imageDatabase, "SELECT * FROM attachments ORDER BY id") == [
            "1|https://example.com/a|NULL|NULL|NULL", "2|NULL|buy milk|NULL|NULL", "3|NULL|NULL|a cat|https://example.com/cat.png",
        ])
    }

    @Test(arguments: [WriteStrategyKind.typed, .cached, .multirow])
    func aCaseSwitchClearsTheOldCaseInEveryStrategyAndPolicy(strategy: WriteStrategyKind) throws {
        let plain = Self.fixtures.appendingPathComponent("attachments.jsonl").path
        let switchedCodable = Self.fixtures.appendingPathComponent("attachments-switched.jsonl").path
        for (policy, expected) in [
            (MergePolicy.replace, Self.switchedRows), (.coalesce, Self.switchedRows), (.ignore, Self.seedRows + ["4|NULL|new|NULL"]),
        ] {
            for declared in [true, false] {
                let directory = TestSupport.temporaryDirectory()
                defer { TestSupport.remove(directory) }
                let database = try Self.seedDatabase(in: directory)
                // The switch in the other JSON spelling: the case's value without `_0`.
                let switchedPlain = TestSupport.write(
                    try String(contentsOf: URL(fileURLWithPath: switchedCodable), encoding: .utf8)
                        .replacingOccurrences(of: #"{"_0":"#, with: "").replacingOccurrences(of: "}}}", with: "}}"),
                    to: directory.appendingPathComponent("switched.jsonl"))
                // Recognised without --enum only in Codable's spelling (see `NestedFields.inferEnums`).
                for switched in declared ? [switchedCodable, switchedPlain] : [switchedCodable] {
                    try DatabaseQueue(path: database).write { try $0.execute(sql: "DELETE FROM attachments") }
                    let configure: (inout ImportOptions) -> Void = { options in
                        options.table = "attachments"
                        options.upsert = ["id"]
                        options.strategy = strategy
                        options.reader.flatten = true
                        options.usesGuardedStatements = true
                        if declared { options.enumGroups = [EnumGroup(field: "kind", columns: ["link", "note", "image"])] }
                    }
                    try TestSupport.runImport([plain], database: database, configure)
                    #expect(try Self.rows(database, "SELECT * FROM attachments ORDER BY id") == Self.seedRows)
                    let summary = try TestSupport.runImport([switched], database: database) { options in
                        configure(&options)
                        options.merge = policy
                    }
                    #expect(try Self.rows(database, "SELECT * FROM attachments ORDER BY id") == expected, "\(policy) \(switched) declared: \(declared)")
                    #expect(summary.counts.inserted == 1)
                    #expect(summary.counts.updated == (policy == .ignore ? 0 : 3))
                    #expect(summary.enumGroups == ["kind=link,note,image"])
                }
            }
        }
    }

    @Test(arguments: [WriteStrategyKind.typed, .cached, .multirow])
    func underNewerACaseSwitchesOnlyWhenTheRecordIsNewer(strategy: WriteStrategyKind) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: """
            CREATE TABLE "attachments" ("id" INTEGER PRIMARY KEY, "version" INTEGER NOT NULL, "link" TEXT, "note" TEXT, "image" TEXT) STRICT;
            INSERT INTO attachments VALUES (1, 1, 'https://example.com/a', NULL, NULL), (2, 5, NULL, 'buy milk', NULL);
            """)
        let input = TestSupport.write(
            #"{"id":1,"version":2,"kind":{"note":"call the bank"}}"# + "\n" + #"{"id":2,"version":4,"kind":{"link":"https://example.com/old"}}"# + "\n",
            to: directory.appendingPathComponent("in.jsonl"))
        let summary = try TestSupport.runImport([input], database: database) { options in
            options.table = "attachments"
            options.upsert = ["id"]
            options.strategy = strategy
            options.merge = .newer(column: "version")
            options.enumGroups = [EnumGroup(field: "kind", columns: ["link", "note", "image"])]
        }
        #expect(try Self.rows(database, "SELECT * FROM attachments ORDER BY id") == ["1|2|NULL|call the bank|NULL", "2|5|NULL|buy milk|NULL"])
        #expect(summary.counts.updated == 1)
        #expect(summary.counts.skipped == 1)
    }

    @Test func aFieldThatCouldFillAColumnByLeafOrByPrefixIsAnErrorNamingBoth() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: #"CREATE TABLE t ("id" INTEGER PRIMARY KEY, "createdAt" TEXT, "timestamps_createdAt" TEXT)"#)
        let input = TestSupport.write(#"{"id":1,"timestamps":{"createdAt":"x"}}"# + "\n", to: directory.appendingPathComponent("t.jsonl"))
        let ambiguous = try TestSupport.run([input, "--db", database, "--upsert", "id", "--flatten"], in: directory)
        #expect(ambiguous.status == 65)
        #expect(ambiguous.stderr.contains(#"field timestamps.createdAt could fill column "createdAt""#))
        #expect(ambiguous.stderr.contains(#""timestamps_createdAt""#) && ambiguous.stderr.contains("--flatten-by leaf"))
        #expect(try Self.rows(database, "SELECT count(*) FROM t") == ["0"])
        for (naming, expected) in [("leaf", "1|x|NULL"), ("prefix", "1|NULL|x")] {
            try DatabaseQueue(path: database).write { try $0.execute(sql: "DELETE FROM t") }
            let chosen = try TestSupport.run([input, "--db", database, "--upsert", "id", "--flatten-by", naming], in: directory)
            #expect(chosen.status == 0, "\(chosen.stderr)")
            #expect(try Self.rows(database, "SELECT * FROM t") == [expected])
        }
    }

    @Test func aLeafThatTwoGroupsShareIsAnErrorNamingBoth() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        try TestSupport.createDatabase(database, schema: #"CREATE TABLE t ("id" INTEGER PRIMARY KEY, "at" TEXT)"#)
        let input = TestSupport.write(#"{"id":1,"created":{"at":"1"},"updated":{"at":"2"}}"# + "\n", to: directory.appendingPathComponent("t.jsonl"))
        let result = try TestSupport.run([input, "--db", database, "--upsert", "id", "--flatten"], in: directory)
        #expect(result.status == 65)
        #expect(result.stderr.contains(#"fields created.at and updated.at both fill column "at""#))
        #expect(result.stderr.contains("--flatten-by prefix"))
    }

    @Test func aRecordWithTwoCasesOrAnUnknownCaseIsAnErrorNamingTheLine() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.seedDatabase(in: directory)
        let good = #"{"id":1,"kind":{"link":"https://example.com/a"}}"#
        for (record, message) in [
            (#"{"id":2,"kind":{"link":"https://example.com/b","note":"x"}}"#,
             "field kind holds the cases link and note; an enum value has exactly one case. Keep one of them in the record, pass --on-error skip to set such records aside, or --group kind"),
            // (--alter adds no case column: it said "add its column to --enum", which has none.)
            (#"{"id":2,"kind":{"video":"https://example.com/v"}}"#,
             #"field kind.video fills no column of the enum kind=link,note,image, and "attachments" has no column for it (--alter adds none to an enum, whose other cases it would have to clear); add a nullable column for it to the table and to --enum"#),
        ] {
            let input = TestSupport.write(good + "\n" + record + "\n", to: directory.appendingPathComponent("in.jsonl"))
            let result = try TestSupport.run(
                [input, "--db", database, "--table", "attachments", "--upsert", "id", "--enum", "kind=link,note,image", "--alter"], in: directory)
            #expect(result.status == 65)
            #expect(result.stderr.contains("in.jsonl:2"), "\(result.stderr)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(try Self.rows(database, "SELECT count(*) FROM attachments") == ["0"])
            #expect(try Self.rows(database, "SELECT count(*) FROM pragma_table_info('attachments')") == ["4"])
        }
    }

    @Test func anEnumWhoseOtherCasesTheInputDoesNotShowMustBeDeclared() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.seedDatabase(in: directory)
        try DatabaseQueue(path: database).write { try $0.execute(sql: "INSERT INTO attachments VALUES (1, 'https://example.com/a', NULL, NULL)") }
        let input = TestSupport.write(#"{"id":1,"kind":{"note":{"_0":"call the bank"}}}"# + "\n", to: directory.appendingPathComponent("in.jsonl"))
        let guessed = try TestSupport.run([input, "--db", database, "--table", "attachments", "--upsert", "id", "--flatten"], in: directory)
        #expect(guessed.status == 65)
        #expect(guessed.stderr.contains("--enum kind=link,note,image"), "\(guessed.stderr)")
        #expect(guessed.stderr.contains("--group kind"), "\(guessed.stderr)")
        #expect(try Self.rows(database, "SELECT * FROM attachments") == ["1|https://example.com/a|NULL|NULL"])
        let declared = try TestSupport.run(
            [input, "--db", database, "--table", "attachments", "--upsert", "id", "--enum", "kind=link,note,image"], in: directory)
        #expect(declared.status == 0, "\(declared.stderr)")
        #expect(try Self.rows(database, "SELECT * FROM attachments") == ["1|NULL|call the bank|NULL"])
    }

    @Test func bulkUpsertFlattensTheSeedsGroupsAndEnums() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.seedDatabase(in: directory)
        let queue = try DatabaseQueue(path: database)
        try queue.write { db in
            try db.bulkUpsert(Self.lists, into: "remindersLists", onConflict: ["id"])
            try db.bulkUpsert(Self.attachments, into: "attachments", onConflict: ["id"])
        }
        #expect(try Self.rows(database, "SELECT * FROM remindersLists ORDER BY id") == [
            "1|Home|0|2026-01-01T09:00:00Z|NULL", "2|Work|1|2026-01-02T09:00:00Z|2026-03-04T10:30:00Z",
        ])
        #expect(try Self.rows(database, "SELECT * FROM attachments ORDER BY id") == Self.seedRows)
        let again = try queue.write { try $0.bulkUpsert(Self.attachments, into: "attachments", onConflict: ["id"]) }
        #expect(again.counts.unchanged == 3)
        let switched = try queue.write { db in
            try db.bulkUpsert(
                Self.switched, into: "attachments", onConflict: ["id"], merge: .coalesce,
                enums: [EnumGroup(field: "kind", columns: ["link", "note", "image"])])
        }
        #expect(switched.counts.updated == 3 && switched.counts.inserted == 1)
        #expect(try Self.rows(database, "SELECT * FROM attachments ORDER BY id") == Self.switchedRows)
    }
}

extension SQLiteDataShapeTests {
    @Test func inspectShowsTheGroupsAndEnumsASampleFillsWithTheirFlags() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = try Self.seedDatabase(in: directory)
        for table in ["attachments", "remindersLists"] {
            let result = try TestSupport.run(["inspect", table, "--db", database, "--sample", "\(table).jsonl"], in: Self.fixtures)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == (try String(contentsOf: Self.fixtures.appendingPathComponent("inspect-\(table).txt"), encoding: .utf8)))
        }
    }
}

/// Cases found by an adversarial review of the first version.
extension SQLiteDataShapeTests {
    struct Run {
        var status: Int32
        var stderr: String
        var rows: [String]
    }

    /// Runs the CLI on `records` (JSON Lines) against the seed's `attachments` holding
    /// (1, link L1) and (2, note N2), or against `schema`.
    static func run(
        _ records: [String], _ arguments: [String], schema: String? = nil, table: String = "attachments", in directory: URL
    ) throws -> Run {
        let database = directory.appendingPathComponent("app.db").path
        TestSupport.remove(URL(fileURLWithPath: database))
        try TestSupport.createDatabase(database, schema: schema ?? """
            CREATE TABLE "attachments" ("id" INTEGER PRIMARY KEY, "link" TEXT, "note" TEXT, "image" TEXT) STRICT;
            INSERT INTO attachments (id, link, note) VALUES (1, 'L1', NULL), (2, NULL, 'N2');
            """)
        let input = TestSupport.write(records.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("in.jsonl"))
        let result = try TestSupport.run([input, "--db", database, "--table", table, "--upsert", "id"] + arguments, in: directory)
        return Run(status: result.status, stderr: result.stderr, rows: try rows(database, "SELECT * FROM \(table) ORDER BY id"))
    }

    static let enumFlag = ["--enum", "kind=link,note,image"]

    /// `{"kind":{}}` names no case and leaves the row's cases as they are, declared or
    /// inferred, in every strategy and policy (it cleared every case column: the empty
    /// object's marker was read as a case named ""). An empty key inside a nested object,
    /// or a key holding U+001F (which joins nested names), is refused.
    @Test(arguments: ["typed", "cached", "multirow"])
    func anEmptyEnumObjectLeavesTheCasesAlone(_ strategy: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        for flags in [Self.enumFlag, ["--flatten"], Self.enumFlag + ["--merge", "coalesce"]] {
            let records = [
                #"{"id":2,"kind":{}}"#, #"{"id":1,"kind":{"link":{"_0":"L1"}}}"#, #"{"id":3,"kind":{"note":{"_0":"n"}}}"#,
                #"{"id":4,"kind":{"image":{"_0":"i"}}}"#,
            ]
            let kept = try Self.run(records, flags + ["--strategy", strategy], in: directory)
            #expect(kept.status == 0, "\(flags): \(kept.stderr)")
            #expect(kept.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL", "3|NULL|n|NULL", "4|NULL|NULL|i"], "\(flags)")
        }
        let empty = try Self.run([#"{"id":1,"kind":{"":"x"}}"#], Self.enumFlag + ["--strategy", strategy], in: directory)
        #expect(empty.status == 65 && empty.stderr.contains("a nested object has an empty field name"), "\(empty.stderr)")
        #expect(empty.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL"])
        let separator = try Self.run([#"{"id":1,"note\u001fx":"y"}"#], ["--strategy", strategy], in: directory)
        #expect(separator.status == 65 && separator.stderr.contains("U+001F"), "\(separator.stderr)")
    }

    /// Under `--on-error skip` a record whose case the enum lacks is rejected and the
    /// others applied, as sqlitedata.md says (the whole run stopped).
    @Test(arguments: ["typed", "cached", "multirow"])
    func aRecordWithAnUnknownCaseIsRejectedUnderSkip(_ strategy: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        // (A case with no value, `{"none":{}}`, has no column to miss: it clears the others.)
        let records = [#"{"id":1,"kind":{"note":{"_0":"n1"}}}"#, #"{"id":2,"kind":{"foo":{"_0":"x"}}}"#, #"{"id":3,"kind":{"none":{}}}"#, #"{"id":4,"kind":{"link":{"_0":"l4"}}}"#]
        let skipped = try Self.run(records, Self.enumFlag + ["--on-error", "skip", "--strategy", strategy], in: directory)
        #expect(skipped.status == 2, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("in.jsonl:2") && skipped.stderr.contains("kind.foo"), "\(skipped.stderr)")
        #expect(skipped.rows == ["1|NULL|n1|NULL", "2|NULL|N2|NULL", "3|NULL|NULL|NULL", "4|l4|NULL|NULL"])
        let stopped = try Self.run(records, Self.enumFlag + ["--strategy", strategy], in: directory)
        #expect(stopped.status == 65 && stopped.stderr.contains("in.jsonl:2"), "\(stopped.stderr)")
    }

    /// `{"meta":{}}` under `--flatten` fills no column: into a table with a column `meta`
    /// (JSON text) the record was applied without it, silently; now it stops and says
    /// which flag fits. `--group meta` says the object's fields are columns.
    @Test func anEmptyObjectForAColumnStopsUnderFlatten() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let schema = #"CREATE TABLE t (id TEXT PRIMARY KEY, createdAt TEXT, meta TEXT); INSERT INTO t VALUES ('u', NULL, '{"a":1}');"#
        let record = #"{"id":"u","meta":{},"timestamps":{"createdAt":"c2"}}"#
        let stopped = try Self.run([record], ["--flatten"], schema: schema, table: "t", in: directory)
        #expect(stopped.status == 65 && stopped.stderr.contains("field meta is an empty object"), "\(stopped.stderr)")
        #expect(stopped.rows == [#"u|NULL|{"a":1}"#])
        let grouped = try Self.run([record], ["--flatten", "--group", "meta"], schema: schema, table: "t", in: directory)
        #expect(grouped.status == 0, "\(grouped.stderr)")
        #expect(grouped.rows == [#"u|c2|{"a":1}"#])
    }

    /// A plainly written field read as a group from records of one key each must stop
    /// when a later batch brings another key, as when both are in the first batch (a row
    /// held a link and a note: the second case was written without clearing the first).
    @Test func aSecondKeyInALaterBatchStopsAsInTheFirst() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let links = (1 ... 5000).map { #"{"id":\#($0),"kind":{"link":"u\#($0)"}}"# }
        let later = try Self.run(links + [#"{"id":1,"kind":{"note":"n"}}"#], ["--flatten"], in: directory)
        #expect(later.status == 65, "\(later.stderr)")
        #expect(later.stderr.contains("field kind holds one key per record (link, note)"), "\(later.stderr)")
        #expect(later.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL"])
        let declared = try Self.run(links + [#"{"id":1,"kind":{"note":"n"}}"#], ["--flatten", "--enum", "kind=link,note"], in: directory)
        #expect(declared.status == 0, "\(declared.stderr)")
        #expect(declared.rows.first == "1|NULL|n|NULL")
        // A group whose optional field first appears later, beside the others, is a group:
        // `Timestamps` with `updatedAt` nil (left out) in the first batch.
        let schema = "CREATE TABLE lists (id INTEGER PRIMARY KEY, createdAt TEXT NOT NULL, updatedAt TEXT);"
        let created = (1 ... 5000).map { #"{"id":\#($0),"timestamps":{"createdAt":"c\#($0)"}}"# }
        let group = try Self.run(created + [#"{"id":1,"timestamps":{"createdAt":"c1","updatedAt":"u1"}}"#], ["--flatten"], schema: schema, table: "lists", in: directory)
        #expect(group.status == 0, "\(group.stderr)")
        #expect(group.rows.first == "1|c1|u1")
    }

    @Test func underCoalesceACaseColumnFilledWithoutACaseKeepsItsValue() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try Self.run([#"{"id":2,"note":null}"#, #"{"id":1,"link":null}"#], Self.enumFlag + ["--merge", "coalesce"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL"])
    }

    @Test func aPlainOneKeyObjectIsNeverGuessedToBeAnEnum() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        // JSONEncoder leaves nil fields out, so a column group can hold one key per record.
        let schema = """
            CREATE TABLE lists (id INTEGER PRIMARY KEY, name TEXT NOT NULL, createdAt TEXT, updatedAt TEXT);
            INSERT INTO lists VALUES (1, 'Home', '2026-01-01', NULL);
            """
        let records = [#"{"id":1,"name":"Home","timestamps":{"updatedAt":"2026-03-01"}}"#, #"{"id":3,"name":"New","timestamps":{"createdAt":"2026-03-02"}}"#]
        let guessed = try Self.run(records, ["--flatten"], schema: schema, table: "lists", in: directory)
        #expect(guessed.status == 65)
        #expect(guessed.stderr.contains("--enum timestamps=createdAt,updatedAt") && guessed.stderr.contains("--group timestamps"), "\(guessed.stderr)")
        #expect(guessed.rows == ["1|Home|2026-01-01|NULL"])
        let group = try Self.run(records, ["--group", "timestamps"], schema: schema, table: "lists", in: directory)
        #expect(group.status == 0, "\(group.stderr)")
        #expect(group.rows == ["1|Home|2026-01-01|2026-03-01", "3|New|2026-03-02|NULL"])
    }

    @Test func aCodableEnumFirstSeenAfterTheFirstBatchIsStillRecognised() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let records = (10 ..< 5010).map { #"{"id":\#($0),"kind":{"image":{"_0":"i"}}}"# }.prefix(0) + (10 ..< 5010).map { #"{"id":\#($0)}"# }
            + [#"{"id":1,"kind":{"note":{"_0":"n1"}}}"#, #"{"id":2,"kind":{"link":{"_0":"l2"}}}"#, #"{"id":3,"kind":{"image":{"_0":"i3"}}}"#]
        let result = try Self.run(Array(records), ["--flatten"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Array(result.rows.prefix(3)) == ["1|NULL|n1|NULL", "2|l2|NULL|NULL", "3|NULL|NULL|i3"])
    }

    /// A table a `--flatten` run created names an enum's cases by prefix (`kind_link`);
    /// a later run into it inferred enums by leaf names only, took `kind` for a column
    /// group, and a record switching case left the old one set: two cases in one row
    /// (exit 0; a helper's oracle test of the fixtures).
    @Test func aReRunIntoATableTheRunCreatedStillClearsTheOldCase() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("new.db").path
        let fixtures = TestSupport.fixtures.appendingPathComponent("sqlitedata")
        let first = try TestSupport.run(
            [fixtures.appendingPathComponent("attachments.jsonl").path, "--db", database, "--table", "att", "--flatten", "--pk", "id"], in: directory)
        #expect(first.status == 0, "\(first.stderr)")
        let switched = try TestSupport.run(
            [fixtures.appendingPathComponent("attachments-switched.jsonl").path, "--db", database, "--table", "att", "--flatten", "--upsert", "id"], in: directory)
        #expect(switched.status == 0, "\(switched.stderr)")
        #expect(switched.stderr.contains("so it was read as one"), "\(switched.stderr)")
        let twoCases = try Self.rows(database, "SELECT id FROM att WHERE (kind_link IS NOT NULL) + (kind_note IS NOT NULL) + (kind_image IS NOT NULL) > 1")
        #expect(twoCases.isEmpty)
        #expect(try Self.rows(database, "SELECT * FROM att WHERE id IN (1, 2, 3) ORDER BY id")
            == ["1|NULL|call the bank|NULL", "2|NULL|NULL|https://example.com/dog.png", "3|https://example.com/b|NULL|NULL"])
    }

    /// An enum inside a column group (`{"meta":{"kind":{"note":{"_0":…}}}}`) was applied
    /// as a group: a record switching case kept the old one, and two cases at once were
    /// accepted (exit 0), with no way to declare it. It is refused until declared, with
    /// its dotted path, and then cleared and checked as any enum.
    @Test func anEnumInsideAGroupIsRefusedUntilDeclaredByItsPath() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let schema = """
            CREATE TABLE r (id TEXT PRIMARY KEY NOT NULL, createdAt TEXT, updatedAt TEXT, link TEXT, note TEXT) STRICT;
            INSERT INTO r VALUES ('A', 'c0', 'u0', 'L0', NULL);
            """
        let record = #"{"id":"A","meta":{"kind":{"note":{"_0":"x"}},"timestamps":{"createdAt":"c1"}}}"#
        let refused = try Self.run([record], ["--flatten"], schema: schema, table: "r", in: directory)
        #expect(refused.status == 65 && refused.stderr.contains("in.jsonl:1 (byte 0): field meta.kind.note._0") && refused.stderr.contains("--enum meta.kind="), "\(refused.stderr)")
        #expect(refused.rows == ["A|c0|u0|L0|NULL"])
        let declared = try Self.run([record], ["--flatten", "--enum", "meta.kind=link,note"], schema: schema, table: "r", in: directory)
        #expect(declared.status == 0, "\(declared.stderr)")
        #expect(declared.rows == ["A|c1|u0|NULL|x"])
        let twoCases = try Self.run(
            [#"{"id":"A","meta":{"kind":{"note":{"_0":"x"},"link":{"_0":"y"}}}}"#], ["--flatten", "--enum", "meta.kind=link,note"], schema: schema, table: "r", in: directory)
        #expect(twoCases.status == 65 && twoCases.stderr.contains("holds the cases link and note"), "\(twoCases.stderr)")
        let group = try Self.run([record], ["--flatten", "--group", "meta.kind"], schema: schema, table: "r", in: directory)
        #expect(group.status == 0, "\(group.stderr)")
        #expect(group.rows == ["A|c1|u0|L0|x"])
    }

    /// The seeds' tables default their ids to `uuid()`, which SQLiteData apps define on
    /// their own connections and SQLite lacks: with a `NOT NULL ON CONFLICT REPLACE` key
    /// every import failed (exit 64 "unknown function", or 70), and a record without an
    /// id did (exit 70) with a plain key (a helper's report).
    @Test(arguments: ["", " ON CONFLICT REPLACE"])
    func theSeedsUUIDDefaultWorksAndFillsAMissingID(_ conflictClause: String) throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let schema = """
            CREATE TABLE "remindersLists" (
              "id" TEXT PRIMARY KEY NOT NULL\(conflictClause) DEFAULT (uuid()),
              "title" TEXT NOT NULL DEFAULT ''
            ) STRICT;
            """
        let given = try Self.run([#"{"id":"6F1C0B7E-1111-4A5B-9C3D-000000000001","title":"a"}"#], [], schema: schema, table: "remindersLists", in: directory)
        #expect(given.status == 0, "\(given.stderr)")
        #expect(given.rows == ["6F1C0B7E-1111-4A5B-9C3D-000000000001|a"])
        let database = directory.appendingPathComponent("app.db").path
        let input = TestSupport.write(#"{"title":"b"}"# + "\n", to: directory.appendingPathComponent("b.jsonl"))
        let missing = try TestSupport.run([input, "--db", database, "--table", "remindersLists"], in: directory)
        #expect(missing.status == 0, "\(missing.stderr)")
        let made = try Self.rows(database, "SELECT id FROM remindersLists WHERE title = 'b'")
        #expect(made.count == 1 && made[0].wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil, "\(made)")
    }

    /// Records filling a declared enum's column directly, in an input whose other
    /// records give that case inside the field, stopped the whole run as two fields
    /// filling one column (exit 65 under `--on-error skip`, no line, a fix that failed).
    /// Only a record holding both is refused, as sqlitedata.md says.
    @Test func anEnumsColumnGivenDirectlyByOtherRecordsIsRefusedOnlyWhereOneRecordHoldsBoth() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let records = [
            #"{"id":3,"kind":{"link":{"_0":"x"}}}"#, #"{"id":4,"link":null}"#, #"{"id":5,"link":"direct"}"#,
            #"{"id":6,"kind":{"note":{"_0":"n"}},"link":"both"}"#,
        ]
        let skipped = try Self.run(records, Self.enumFlag + ["--on-error", "skip"], in: directory)
        #expect(skipped.status == 2, "\(skipped.stderr)")
        #expect(skipped.stderr.contains("in.jsonl:4") && skipped.stderr.contains("also fills its column \"link\" directly"), "\(skipped.stderr)")
        #expect(skipped.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL", "3|x|NULL|NULL", "4|NULL|NULL|NULL", "5|direct|NULL|NULL"])
        let stopped = try Self.run(records, Self.enumFlag, in: directory)
        #expect(stopped.status == 65 && stopped.stderr.contains("in.jsonl:4"), "\(stopped.stderr)")
        #expect(stopped.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL"])
    }

    /// A declared enum or group given as `null` was an unknown field whose error advised
    /// `--alter`, which added a column of the field's name and cleared no case.
    @Test func aDeclaredEnumOrGroupGivenAsNullIsNamedWithoutAdvisingAlter() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let records = [#"{"id":3,"kind":{"link":{"_0":"x"}}}"#, #"{"id":1,"kind":null}"#]
        let refused = try Self.run(records, Self.enumFlag, in: directory)
        #expect(refused.status == 65 && refused.stderr.contains("in.jsonl:2 (byte 36): field kind is null, a plain value or an array, where --enum kind"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("--alter"), "\(refused.stderr)")
        let altered = try Self.run(records, Self.enumFlag + ["--alter"], in: directory)
        #expect(altered.status == 65, "\(altered.stderr)")
        #expect(altered.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL"])
        let dropped = try Self.run(records, Self.enumFlag + ["--ignore-unknown"], in: directory)
        #expect(dropped.status == 0, "\(dropped.stderr)")
        #expect(dropped.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL", "3|x|NULL|NULL"])
        let group = try Self.run([#"{"id":1,"stamps":null}"#], ["--group", "stamps"], in: directory)
        #expect(group.status == 65 && group.stderr.contains("where --group stamps expects an object"), "\(group.stderr)")
        // Under --on-error skip such a record is set aside like any bad one, once, and the
        // others are stored (the run stopped, exit 65: a helper's SQLiteData differential).
        let mixed = [#"{"id":4,"kind":{"note":{"_0":"x"}}}"#, #"{"id":5,"kind":"note"}"#, #"{"id":6,"kind":{"link":{"_0":"y"}}}"#, #"{"kind":null}"#]
        let skipped = try Self.run(mixed, Self.enumFlag + ["--on-error", "skip", "--rejects", "r.jsonl"], in: directory)
        #expect(skipped.status == 2, "\(skipped.stderr)")
        #expect(skipped.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL", "4|NULL|x|NULL", "6|y|NULL|NULL"])
        let rejects = try String(contentsOf: directory.appendingPathComponent("r.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(rejects.count == 2 && rejects[0].contains("in.jsonl:2 (byte 36): field kind is null, a plain value or an array"), "\(rejects)")
    }

    /// Messages that named what is not (a helper's SQLiteData differential): the column a
    /// nested field fills by its leaf name (it named "meta_link", no column), a case
    /// field no column takes (it said the case was not among the enum's columns, naming
    /// one that was), and --flatten-by prefix for names that differ only in case (which
    /// it does not tell apart).
    @Test func enumAndFlattenMessagesNameWhatIs() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let both = try Self.run([#"{"id":3,"kind":{"note":{"_0":"x"}},"meta":{"link":"y"}}"#], ["--enum", "kind=link,note"], in: directory)
        #expect(both.status == 65 && both.stderr.contains(#"also fills its column "link" directly"#), "\(both.stderr)")
        let extra = try Self.run([#"{"id":3,"kind":{"note":{"_0":"x","_1":"y"}}}"#], ["--enum", "kind=link,note"], in: directory)
        #expect(extra.status == 65 && extra.stderr.contains("field kind.note._1 fills no column of the enum kind=link,note: no column of the enum takes it"), "\(extra.stderr)")
        let places = "CREATE TABLE places (id TEXT PRIMARY KEY, address_street TEXT);"
        let cased = try Self.run([#"{"id":"p","Address_Street":"X","address":{"street":"Y"}}"#], ["--flatten"], schema: places, table: "places", in: directory)
        #expect(cased.status == 65 && cased.stderr.contains("both fill column") && !cased.stderr.contains("--flatten-by prefix"), "\(cased.stderr)")
    }

    /// The `uuid()` sqlimport defines is not deterministic: defined on every connection,
    /// it made SQLite refuse a schema whose partial index called an app's deterministic
    /// `uuid()` as the database opened (exit 73, "corrupt"), whatever the table (a
    /// helper's review). It is defined only for a table whose defaults call it.
    @Test func aDatabaseWhoseIndexCallsTheAppsUUIDStillOpens() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let database = directory.appendingPathComponent("app.db").path
        let queue = try DatabaseQueue(path: database)
        try queue.write { db in
            db.add(function: DatabaseFunction("uuid", argumentCount: 0, pure: true) { _ in UUID().uuidString.lowercased() })
            try db.execute(sql: """
                CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT);
                CREATE INDEX t_v ON t (v) WHERE uuid() IS NOT NULL;
                CREATE TABLE plain (id TEXT PRIMARY KEY, v TEXT);
                """)
        }
        try queue.close()
        let input = TestSupport.write(#"{"id":"a","v":"x"}"# + "\n", to: directory.appendingPathComponent("plain.jsonl"))
        let result = try TestSupport.run([input, "--db", database, "--upsert", "id"], in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.rows(database, "SELECT * FROM plain") == ["a|x"])
    }

    /// An object inside a group written plainly, one key per record
    /// (`{"meta":{"kind":{"link":…}}}`, then `note`), was applied as a group: a record
    /// switching case kept the old one (two cases in a row, exit 0; a helper's review).
    /// As at the top, the run stops and asks for `--enum` or `--group` by its path.
    @Test func aPlainOneKeyObjectInsideAGroupStopsAndAsks() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let schema = "CREATE TABLE items (id INTEGER PRIMARY KEY, link TEXT, note TEXT) STRICT;"
        let records = [#"{"id":1,"meta":{"kind":{"link":"L"}}}"#, #"{"id":2,"meta":{"kind":{"note":"N"}}}"#, #"{"id":1,"meta":{"kind":{"note":"N1"}}}"#]
        let asked = try Self.run(records, ["--flatten"], schema: schema, table: "items", in: directory)
        #expect(asked.status == 65 && asked.stderr.contains("field meta.kind holds one key per record (link, note)") && asked.stderr.contains("--enum meta.kind=link,note"), "\(asked.stderr)")
        #expect(asked.rows.isEmpty)
        let declared = try Self.run(records, ["--flatten", "--enum", "meta.kind=link,note"], schema: schema, table: "items", in: directory)
        #expect(declared.status == 0, "\(declared.stderr)")
        #expect(declared.rows == ["1|NULL|N1", "2|NULL|N"])
        // A declared enum's payload group is the case's, whatever keys its records hold.
        let payload = try Self.run(
            [#"{"id":1,"meta":{"kind":{"image":{"caption":"c"}}}}"#, #"{"id":2,"meta":{"kind":{"image":{"url":"u"}}}}"#],
            ["--enum", "meta.kind=link,caption,url"], schema: "CREATE TABLE items (id INTEGER PRIMARY KEY, link TEXT, caption TEXT, url TEXT) STRICT;",
            table: "items", in: directory)
        #expect(payload.status == 0, "\(payload.stderr)")
        #expect(payload.rows == ["1|NULL|c|NULL", "2|NULL|NULL|u"])
        // A group whose records hold two of its fields is a group.
        let group = try Self.run(
            [#"{"id":1,"meta":{"kind":{"link":"L","note":"x"}}}"#, #"{"id":2,"meta":{"kind":{"note":"N"}}}"#], ["--flatten"], schema: schema, table: "items", in: directory)
        #expect(group.status == 0, "\(group.stderr)")
    }

    /// `--enum kind=… --group kind` was accepted, the enum silently winning.
    @Test func aFieldDeclaredBothAnEnumAndAGroupIsRefused() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try Self.run([#"{"id":1,"kind":{"note":"n"}}"#], Self.enumFlag + ["--group", "kind"], in: directory)
        #expect(result.status == 64 && result.stderr.contains("--enum kind=link,note,image and --group kind name the same field"), "\(result.stderr)")
        #expect(result.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL"])
    }

    @Test func aCaseWithNoValueStillClearsTheOtherCases() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let schema = """
            CREATE TABLE attachments (id INTEGER PRIMARY KEY, link TEXT, note TEXT, caption TEXT, url TEXT) STRICT;
            INSERT INTO attachments VALUES (1, 'L1', NULL, NULL, NULL);
            """
        let result = try Self.run([#"{"id":1,"kind":{"image":{"_0":{}}}}"#], ["--enum", "kind=link,note,caption,url"], schema: schema, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.rows == ["1|NULL|NULL|NULL|NULL"])
    }

    @Test func aCaseAndAnotherCasesColumnInOneRecordIsAnError() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let result = try Self.run([#"{"id":1,"kind":{"note":"x"},"link":"y"}"#], Self.enumFlag, in: directory)
        #expect(result.status == 65)
        #expect(result.stderr.contains("in.jsonl:1") && result.stderr.contains(#"also fills its column "link""#), "\(result.stderr)")
        #expect(result.rows == ["1|L1|NULL|NULL", "2|NULL|N2|NULL"])
    }

    @Test func underOnErrorSkipATwoCaseRecordIsRejectedAndTheOthersApplied() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        for strategy in ["typed", "cached", "multirow"] {
            let records = [#"{"id":1,"kind":{"note":"n"}}"#, #"{"id":2,"kind":{"link":"a","image":"b"}}"#, #"{"id":3,"kind":{"link":"l3"}}"#]
            let rejects = directory.appendingPathComponent("rejects.jsonl").path
            let result = try Self.run(records, Self.enumFlag + ["--on-error", "skip", "--rejects", rejects, "--strategy", strategy], in: directory)
            #expect(result.status == 2, "\(result.stderr)")
            #expect(result.rows == ["1|NULL|n|NULL", "2|NULL|N2|NULL", "3|l3|NULL|NULL"], "\(strategy)")
            #expect(try String(contentsOfFile: rejects, encoding: .utf8).contains("holds the cases image and link"))
        }
    }

    @Test func nullCasesAreNoCasesAndBothSpellingsMayMix() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let records = [#"{"id":1,"kind":{"link":null,"note":"x","image":null}}"#, #"{"id":2,"kind":{"note":{"_0":"m"}}}"#, #"{"id":3,"kind":{"note":"o"}}"#]
        let result = try Self.run(records, Self.enumFlag, in: directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.rows == ["1|NULL|x|NULL", "2|NULL|m|NULL", "3|NULL|o|NULL"])
    }

    @Test func aFieldOfADeclaredEnumWithoutAColumnNamesItsLine() throws {
        let directory = TestSupport.temporaryDirectory()
        defer { TestSupport.remove(directory) }
        let unknown = try Self.run([#"{"id":1,"kind":{"note":"x"}}"#, #"{"id":2,"kind":{"video":"v"}}"#], Self.enumFlag, in: directory)
        #expect(unknown.status == 65)
        #expect(unknown.stderr.contains("in.jsonl:2") && unknown.stderr.contains("field kind.video fills no column"), "\(unknown.stderr)")
        let twice = try Self.run([#"{"id":1}"#], ["--enum", "kind=link,note", "--enum", "kind=image"], in: directory)
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("--enum names the field kind twice"), "\(twice.stderr)")
    }
}
