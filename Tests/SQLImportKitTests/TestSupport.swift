import Foundation
import GRDB
import Testing
@testable import SQLImportKit

/// Paths and helpers shared by the tests.
enum TestSupport {
    /// The package's root folder.
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let fixtures = packageRoot.appendingPathComponent("fixtures")
    /// `fixtures/conformance`: the vendored third-party corpora (see its README).
    static let conformance = packageRoot.appendingPathComponent("fixtures/conformance")

    /// A fresh temporary folder, removed when the process exits is not guaranteed: tests
    /// clean up with `defer { remove(dir) }`.
    static func temporaryDirectory() -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sqlimport-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func remove(_ url: URL) {
        try? FileManager.default.removeItem(at: url)
    }

    @discardableResult
    static func write(_ text: String, to url: URL) -> String {
        try! Data(text.utf8).write(to: url)
        return url.path
    }

    @discardableResult
    static func write(bytes: [UInt8], to url: URL) -> String {
        try! Data(bytes).write(to: url)
        return url.path
    }

    /// Imports `inputs` into `database` with `configure` applied to the options.
    @discardableResult
    static func runImport(_ inputs: [String], database: String, _ configure: (inout ImportOptions) -> Void = { _ in }) throws -> ImportSummary {
        var options = ImportOptions(inputs: inputs, databasePath: database)
        configure(&options)
        return try Importer(options: options).run()
    }

    /// Every table's schema and rows as text, rows sorted, each value with its storage
    /// class: `42`, `r:0.1`, `'text'` (JSON-escaped), `x'00ff'`, `NULL`.
    static func dump(_ path: String) throws -> String {
        let queue = try DatabaseQueue(path: path)
        return try queue.read { db in try dump(db) }
    }

    static func dump(_ db: Database) throws -> String {
        var lines: [String] = []
        let objects = try Row.fetchAll(db, sql: "SELECT type, name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY type DESC, name")
        for object in objects {
            lines.append("\(object["type"] as String) \(object["name"] as String): \(object["sql"] as String? ?? "")")
        }
        for object in objects where (object["type"] as String) == "table" {
            let name: String = object["name"]
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM \(SQLIdentifier.quote(name))").map { row in
                row.databaseValues.map(describe).joined(separator: "|")
            }
            lines.append("-- \(name): \(rows.count) rows")
            lines.append(contentsOf: rows.sorted())
        }
        return lines.joined(separator: "\n")
    }

    static func describe(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let value): return String(value)
        case .double(let value): return "r:\(value)"
        case .string(let value):
            let json = try! JSONEncoder().encode(value)
            return String(decoding: json, as: UTF8.self)
        case .blob(let data): return "x'" + data.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }

    /// The seeds' schema: a TEXT primary key and a partial unique index.
    static let seedsSchema = """
        CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL DEFAULT '', libraryID INTEGER NOT NULL,
          remoteID TEXT, notes TEXT, updatedAt TEXT NOT NULL) STRICT;
        CREATE UNIQUE INDEX idx_items_sync_identity ON items (libraryID, remoteID) WHERE remoteID IS NOT NULL;
        """

    static func createDatabase(_ path: String, schema: String) throws {
        let queue = try DatabaseQueue(path: path)
        try queue.write { try $0.execute(sql: schema) }
    }

    /// The built `sqlimport` executable, beside the test bundle.
    static var executable: URL {
        let directory = Bundle.main.bundleURL.pathExtension == "xctest"
            ? Bundle.main.bundleURL.deletingLastPathComponent()
            : URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for candidate in [directory, directory.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("sqlimport")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return packageRoot.appendingPathComponent(".build/debug/sqlimport")
    }

    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `/bin/sh -c command` in `directory`.
    /// `app.db` with `t (k INTEGER PRIMARY KEY, v INTEGER)` whose trigger raises
    /// `RAISE(resolution, message)` for the record with `v = 5`, and `ten.jsonl` with the
    /// records k = v = 1...10, in `directory`.
    static func makeTenRecordsWithATriggerOnTheFifth(raising resolution: String, _ message: String, in directory: URL) throws {
        _ = try runShell(
            "sqlite3 app.db 'CREATE TABLE t (k INTEGER PRIMARY KEY, v INTEGER); CREATE TRIGGER refuse BEFORE INSERT ON t WHEN new.v = 5 BEGIN SELECT RAISE(\(resolution), \"\(message)\"); END;'",
            in: directory)
        write((1 ... 10).map { #"{"k":\#($0),"v":\#($0)}"# }.joined(separator: "\n") + "\n", to: directory.appendingPathComponent("ten.jsonl"))
    }

    static func runShell(_ command: String, in directory: URL) throws -> Output {
        try run(["-c", command], in: directory, executable: URL(fileURLWithPath: "/bin/sh"))
    }

    /// Runs the built binary with `arguments` in `directory`.
    static func run(_ arguments: [String], in directory: URL, stdin: Data? = nil, environment: [String: String] = [:], executable: URL = executable) throws -> Output {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SQLIMPORT_DB")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        // Files, not pipes: a large output can never block the child.
        let outURL = FileManager.default.temporaryDirectory.appendingPathComponent("out-\(UUID().uuidString)")
        let errURL = FileManager.default.temporaryDirectory.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        defer {
            remove(outURL)
            remove(errURL)
        }
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// Reads all records of a file into plain Swift values, for reader tests.
enum RecordsReader {
    enum Value: Equatable, CustomStringConvertible {
        case null, integer(Int64), real(Double), text(String), untyped(String), json(String), numberAsText(String)

        var description: String {
            switch self {
            case .null: return "null"
            case .integer(let value): return "\(value)"
            case .real(let value): return "r:\(value)"
            case .text(let value): return "\"\(value)\""
            case .untyped(let value): return "u\"\(value)\""
            case .json(let value): return "json:\(value)"
            case .numberAsText(let value): return "n:\(value)"
            }
        }
    }

    /// Every record of `path` as `[column: value]` (absent fields left out).
    static func read(_ path: String, options: ReaderOptions = ReaderOptions()) throws -> [[String: Value]] {
        let input = try InputSource(path: path)
        let namer = ColumnNamer()
        let (reader, _) = try RecordReaders.make(input: input, options: options, namer: namer, keepRaw: false)
        var records: [[String: Value]] = []
        let batch = RecordBatch()
        var more = true
        while more {
            batch.reset(inputIndex: 0)
            more = try reader.fill(batch, maxRows: 7, maxBytes: 1 << 20)
            for row in 0 ..< batch.rowCount {
                var record: [String: Value] = [:]
                for column in 0 ..< namer.names.count {
                    let cell = batch.cell(row: row, column: column)
                    let value: Value
                    switch cell.kind {
                    case .absent: continue
                    case .null: value = .null
                    case .integer: value = .integer(cell.payload)
                    case .real: value = .real(cell.doubleValue)
                    case .text: value = .text(batch.text(cell))
                    case .untypedText: value = .untyped(batch.text(cell))
                    case .json: value = .json(batch.text(cell))
                    case .numberAsText: value = .numberAsText(batch.text(cell))
                    }
                    record[namer.names[column]] = value
                }
                records.append(record)
            }
        }
        return records
    }
}
