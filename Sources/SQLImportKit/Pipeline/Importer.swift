import Foundation
import GRDB
import GRDBSQLite

/// Streams inputs into a SQLite table: the library's entry point for `sqlimport import`.
///
/// The inputs are parsed on a reading thread and written on the calling thread, with a
/// bounded queue of batches between them. All inputs of a run are applied in one
/// transaction: a failure leaves the database exactly as it was.
///
/// ```swift
/// var options = ImportOptions(inputs: ["items.jsonl"], databasePath: "app.db")
/// options.upsert = ["libraryID", "remoteID"]
/// let summary = try Importer(options: options).run()
/// ```
public final class Importer {
    public let options: ImportOptions

    public init(options: ImportOptions) {
        self.options = options
    }

    /// Runs the import and returns what it did.
    /// - Parameter progress: called on the writing thread after each batch.
    public func run(progress: ((ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        let database = try DatabaseOpener.open(path: options.databasePath, readOnly: options.dryRun, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds)
        return try database.inDatabase { db in try run(in: db, progress: progress) }
    }

    /// Runs the import on a connection the caller opened (outside any transaction).
    /// The connection's limits apply: `SQLITE_LIMIT_VARIABLE_NUMBER` sizes multi-row
    /// statements.
    public func run(in db: Database, progress: ((ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        guard !options.inputs.isEmpty else { throw ImportError.noInputs }
        if options.alter && options.ignoreUnknown {
            throw ImportError.conflictingOptions("--alter and --ignore-unknown contradict each other; choose one")
        }
        let table = try options.resolvedTable()
        let reader = BatchReader(
            paths: options.inputs, options: options.reader, rowsPerBatch: options.rowsPerBatch,
            spareBatches: (options.inferRows + options.rowsPerBatch - 1) / options.rowsPerBatch)
        reader.start()
        defer { reader.stop() }
        var summary = try Self.write(from: reader, options: options, table: table, in: db, progress: progress)
        summary.finishedAt = Date()
        return summary
    }

    /// Applies every batch of `source` to `table` in one transaction.
    static func write(
        from source: BatchSource, options: ImportOptions, table: String, in db: Database, progress: ((ImportProgress) -> Void)?
    ) throws -> ImportSummary {
        var summary = ImportSummary(
            database: options.databasePath, table: table, merge: options.merge.description,
            strategy: options.strategy.rawValue, strategyReason: "chosen with --strategy")
        summary.dryRun = options.dryRun
        // A caller's open transaction gets a savepoint; otherwise take the write lock
        // up front, so that a busy database fails before any work is done.
        let scope: (() throws -> Database.TransactionCompletion) throws -> Void = { body in
            if db.isInsideTransaction { try db.inSavepoint(body) } else { try db.inTransaction(options.dryRun ? .deferred : .immediate, body) }
        }
        try scope {
            let pragmas = try BulkPragmas(db, cacheSizeMiB: options.cacheSizeMiB)
            defer { pragmas.restore(db) }
            let run = ImportRun(options: options, db: db, table: table, source: source, summary: summary, progress: progress)
            defer { run.close() }
            try run.execute()
            summary = run.summary
            return options.dryRun ? .rollback : .commit
        }
        return summary
    }
}

/// Opens the database as sqlimport needs it.
enum DatabaseOpener {
    static func open(path: String, readOnly: Bool, busyTimeoutMilliseconds: Int) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(TimeInterval(busyTimeoutMilliseconds) / 1000)
        configuration.label = "sqlimport"
        if readOnly {
            // A dry run touches nothing: read-only on an existing file, else in memory.
            guard FileManager.default.fileExists(atPath: path) else { return try DatabaseQueue(configuration: configuration) }
            configuration.readonly = true
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}

/// Connection settings for bulk work, restored when the run ends.
struct BulkPragmas {
    private let cacheSize: Int
    private let tempStore: Int

    init(_ db: Database, cacheSizeMiB: Int) throws {
        cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        tempStore = try Int.fetchOne(db, sql: "PRAGMA temp_store") ?? 0
        try db.execute(sql: "PRAGMA cache_size = \(-max(cacheSizeMiB, 1) * 1024)")
        try db.execute(sql: "PRAGMA temp_store = MEMORY")
    }

    func restore(_ db: Database) {
        try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)")
        try? db.execute(sql: "PRAGMA temp_store = \(tempStore)")
    }
}
