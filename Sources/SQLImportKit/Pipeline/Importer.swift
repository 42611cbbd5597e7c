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
        var options = options
        if !options.enumGroups.isEmpty || !options.columnGroups.isEmpty || options.flattenNaming != .auto { options.reader.flatten = true }
        self.options = options
    }

    /// Runs the import and returns what it did.
    /// - Parameter progress: called on the writing thread after each batch.
    public func run(progress: ((ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        if options.parseOnly { return try parseAll(progress: progress) }
        if options.databasePath.isEmpty {
            // SQLite would open a private temporary database, gone when the run ends.
            throw ImportError.conflictingOptions("the database path is empty; name the database file")
        }
        // A misspelled input is found before the database file is created.
        for path in options.inputs where path != "-" && !FileManager.default.fileExists(atPath: path) {
            throw InputError.notFound(path: path)
        }
        let createsDatabase = !options.dryRun && !FileManager.default.fileExists(atPath: options.databasePath)
        do {
            return try openAndRun(progress: progress)
        } catch {
            // A run that failed before it wrote anything leaves no empty database behind.
            if createsDatabase, let size = try? FileManager.default.attributesOfItem(atPath: options.databasePath)[.size] as? Int, size == 0 {
                try? FileManager.default.removeItem(atPath: options.databasePath)
            }
            throw error
        }
    }

    /// The type of every column from every record of every input (`--infer-rows all`),
    /// by the rule of `TypeTracker`. The inputs are regular files, read once here.
    private func inferTypesFromAllRecords() throws -> [(column: String, type: String)] {
        if options.inputs.contains("-") {
            throw ImportError.conflictingOptions(
                "--infer-rows all reads the input twice, and standard input cannot be read twice; save it to a file first, or give a number of records")
        }
        var names: [String] = []
        var trackers: [TypeTracker] = []
        try readAll { batch in
            names += batch.newColumns.map(FieldPath.prefixName)
            trackers += repeatElement(TypeTracker(), count: batch.newColumns.count)
            batch.bytes.withUnsafeBufferPointer { bytes in
                for row in 0 ..< batch.rowCount {
                    for column in 0 ..< min(batch.rowEnd(row) - batch.rowStarts[row], trackers.count) {
                        trackers[column].observe(batch.cell(row: row, column: column), bytes: bytes)
                    }
                }
            }
        }
        // (Each name once, by its bytes: two names Swift finds equal are two columns.)
        var seen = Set<NameKey>()
        return zip(names, trackers.map(\.declaredType)).filter { seen.insert(NameKey($0.0)).inserted }.map { (column: $0.0, type: $0.1) }
    }

    /// `--parse-only`: every input read and parsed on the reading thread, the records
    /// counted here, no database opened.
    private func parseAll(progress: ((ImportProgress) -> Void)?) throws -> ImportSummary {
        try validate(nested: false)
        var summary = ImportSummary(
            database: options.databasePath, table: (try? options.resolvedTable()) ?? "-", merge: options.merge.description,
            strategy: "none", strategyReason: "--parse-only writes nothing")
        summary.parseOnly = true
        try readAll(opened: { summary.inputs.append($0) }) { batch in
            summary.counts.read += batch.rowCount + batch.rejects.count
            summary.counts.rejected += batch.rejects.count
            summary.inputs[batch.inputIndex].bytesRead = batch.inputBytesConsumed
            progress?(ImportProgress(rowsRead: summary.counts.read, rowsWritten: summary.counts.read, bytesRead: summary.bytesRead, totalBytes: nil))
        }
        summary.finishedAt = Date()
        return summary
    }

    /// Reads every input through the readers and hands each batch to `body` (a pass that
    /// writes nothing: `--parse-only`, `--infer-rows all`).
    func readAll(opened: (InputDescription) -> Void = { _ in }, _ body: (RecordBatch) throws -> Void) throws {
        var readerOptions = options.reader
        readerOptions.skipBadRecords = options.onError == .skip
        let reader = BatchReader(
            paths: options.inputs, options: readerOptions, rowsPerBatch: options.rowsPerBatch, spareBatches: 1, keepRaw: false,
            cancellation: options.cancellation, commitEvery: nil)
        reader.start()
        defer { reader.stop() }
        while let item = reader.next() {
            if let signal = options.cancellation?.signal { throw ImportError.interrupted(signal: signal) }
            switch item {
            case .opened(_, let description): opened(description)
            case .batch(let batch):
                try body(batch)
                reader.recycle(batch)
            case .failed(let error): throw error
            case .finished: return
            }
        }
    }

    /// Refuses, before anything is opened, a `--db` that no database file can be at, as
    /// the real run and a dry run alike (a dry run makes a missing database in memory, and
    /// said nothing): one ending in `/` (SQLite would make a file of the folder's name),
    /// one whose folder does not exist, or is a file.
    private func refuseAPathNoDatabaseCanBeAt() throws {
        let path = options.databasePath
        guard path != ":memory:", !path.hasPrefix("file:"), !FileManager.default.fileExists(atPath: path) else { return }
        var fault = DatabaseFault(kind: .notADatabase, database: path, message: "")
        fault.rollback = .nothingWritten
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isFolder: ObjCBool = false
        if path.hasSuffix("/") {
            fault.message = "the path ends with /, which names a folder"
        } else if !FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) {
            fault.kind = .missingFolder
            fault.message = "unable to open database file"
        } else if !isFolder.boolValue {
            fault.message = "its folder \(folder) is a file"
        } else {
            return
        }
        throw fault
    }

    private func openAndRun(progress: ((ImportProgress) -> Void)?) throws -> ImportSummary {
        try refuseAPathNoDatabaseCanBeAt()
        let database: DatabaseQueue
        do {
            database = try DatabaseOpener.open(
                path: options.databasePath, dryRun: options.dryRun, busyTimeoutMilliseconds: options.busyTimeoutMilliseconds,
                cancellation: options.cancellation)
        } catch {
            try throwIfSignalEndedAWaitForALock(error)
            guard var fault = DatabaseFault.classify(error, database: options.databasePath) as? DatabaseFault else { throw error }
            // (A missing folder was refused before opening: `refuseAPathNoDatabaseCanBeAt`.)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: options.databasePath, isDirectory: &isFolder), isFolder.boolValue {
                fault.kind = .notADatabase
                fault.message = "it is a folder"
            }
            let journal = options.databasePath + "-journal"
            fault.rollback = DatabaseFault.isHot(journal: journal) ? .earlierHotJournal(journal: journal) : .nothingWritten
            throw fault
        }
        do {
            return try database.inDatabase { db in try run(in: db, progress: progress) }
        } catch var fault as DatabaseFault where !options.dryRun && [.full, .ioError, .readOnly, .corrupt].contains(fault.kind) {
            // An I/O fault may leave a hot journal behind (`finishRollback`).
            try? database.close()
            fault.rollback = DatabaseFault.finishRollback(database: options.databasePath)
            throw fault
        }
    }

    /// Runs the import on a connection the caller opened. Inside the caller's open
    /// transaction the run uses a savepoint. The connection's limits apply:
    /// `SQLITE_LIMIT_VARIABLE_NUMBER` sizes multi-row statements.
    ///
    /// An error of SQLite's that is about the database, not the input (a full disk, a
    /// read-only, locked or corrupt file), is thrown as a `DatabaseFault`.
    public func run(in db: Database, progress: ((ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        do {
            return try importAll(in: db, progress: progress)
        } catch {
            try throwIfSignalEndedAWaitForALock(error)
            throw DatabaseFault.classify(error, database: options.databasePath)
        }
    }

    /// A wait for a lock that a signal ended (`DatabaseOpener`'s busy handler) is the
    /// signal's, not a locked database's.
    private func throwIfSignalEndedAWaitForALock(_ error: any Error) throws {
        guard let signal = options.cancellation?.signal, let busy = error as? DatabaseError,
            busy.resultCode == .SQLITE_BUSY || busy.resultCode == .SQLITE_LOCKED
        else { return }
        throw ImportError.interrupted(signal: signal)
    }

    private func importAll(in db: Database, progress: ((ImportProgress) -> Void)?) throws -> ImportSummary {
        try validate(nested: db.isInsideTransaction)
        var options = self.options
        let table = try TableSchema.resolveName(db, requested: options.resolvedTable(), parsesSchema: options.table != nil)
        if options.inferRows == ImportOptions.inferFromAllRecords, try TableSchema.read(db, table: table) == nil {
            // --infer-rows all: a first pass types every column from every record; the
            // second pass creates the table with those types and loads it.
            for (column, type) in try inferTypesFromAllRecords() where !options.typeOverrides.keys.contains(where: { $0.sqliteFolded == column.sqliteFolded }) {
                options.typeOverrides[column] = type
            }
            options.inferRows = 1000
        } else if options.inferRows == ImportOptions.inferFromAllRecords {
            // The table exists: nothing to infer, and the sample need not be large.
            options.inferRows = 1000
        }
        if options.wal && !options.dryRun {
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        var readerOptions = options.reader
        readerOptions.skipBadRecords = options.onError == .skip
        // Into a TEXT column, a number whose digits a double would lose is its text as
        // written (`12345678901234567890.5`), as an integer past 64 bits is.
        if let schema = try TableSchema.read(db, table: table) {
            for (index, column) in schema.columns.enumerated() where schema.affinity(ofColumn: index) == .text {
                readerOptions.numberTextFields[column.name.lowercased()] = .writtenWhereDigitsAreLost
            }
        }
        let rowsPerBatch = options.rowsPerBatch
        let keyOrder = options.upsert != nil && options.sortMemoryMiB > 0 ? KeyOrder(memoryBytes: options.sortMemoryMiB << 20, runBytes: options.sortRunBytes) : nil
        let reader = BatchReader(
            paths: options.inputs, options: readerOptions, rowsPerBatch: rowsPerBatch,
            spareBatches: (options.inferRows + rowsPerBatch - 1) / rowsPerBatch, keepRaw: options.onError == .skip,
            cancellation: options.cancellation, commitEvery: options.dryRun ? nil : options.commitEvery, keyOrder: keyOrder)
        reader.start()
        defer { reader.stop() }
        var summary = ImportSummary(
            database: options.databasePath, table: table, merge: options.merge.description,
            strategy: options.strategy.rawValue, strategyReason: "chosen with --strategy")
        do {
            try Self.write(from: reader, options: options, table: table, in: db, summary: &summary, progress: progress)
        } catch {
            summary.finishedAt = Date()
            partialSummary = summary
            throw error
        }
        summary.finishedAt = Date()
        return summary
    }

    /// After a failed run: what it had read and committed when it stopped.
    public private(set) var partialSummary: ImportSummary?

    private func validate(nested: Bool) throws {
        guard !options.inputs.isEmpty else { throw ImportError.noInputs }
        guard (1 ... ReaderOptions.maxRecordBytesLimit).contains(options.reader.maxRecordBytes) else {
            throw ImportError.conflictingOptions("--max-record-bytes must be between 1 and \(ReaderOptions.maxRecordBytesLimit) (2 GiB)")
        }
        if options.alter && options.ignoreUnknown {
            throw ImportError.conflictingOptions("--alter and --ignore-unknown contradict each other; choose one")
        }
        if let every = options.commitEvery {
            if every < 1 { throw ImportError.conflictingOptions("--commit-every needs a positive number of records") }
            if nested { throw ImportError.conflictingOptions("--commit-every cannot run inside the caller's transaction; commit it first") }
            if options.dryRun { throw ImportError.conflictingOptions("--dry-run commits nothing; drop --commit-every") }
        }
        if options.resume {
            guard options.commitEvery != nil else {
                throw ImportError.conflictingOptions("--resume continues a --commit-every run; pass the same --commit-every again")
            }
        }
        if options.onError == .abort && (options.rejectsPath != nil || options.maxErrors != nil) {
            throw ImportError.conflictingOptions("--rejects and --max-errors go with --on-error skip")
        }
        try options.refuseNewerOnTheKey()
    }

    /// Applies every batch of `source` to `table`, in one transaction or, with
    /// `commitEvery`, in checkpointed ones.
    static func write(
        from source: BatchSource, options: ImportOptions, table: String, in db: Database, summary: inout ImportSummary,
        progress: ((ImportProgress) -> Void)?
    ) throws {
        summary.dryRun = options.dryRun
        let pragmas = try BulkPragmas(db, cacheSizeMiB: options.cacheSizeMiB)
        defer { pragmas.restore(db) }
        try DatabaseFault.checkIntegrity(db, database: options.databasePath, upTo: options.quickCheckMaxBytes)
        // A dry run is the real run, rolled back at the end: the same checks, errors,
        // plan and counts, and it holds the write lock while it runs.
        let transaction = RunTransaction(db: db)
        // Another run's checkpoints never let this one in (`RunLock`); a run inside the
        // caller's transaction has but one, and a database in memory no other run.
        let file = String(cString: sqlite3_db_filename(db.sqliteConnection, "main"))
        let lock = transaction.isNested || file.isEmpty
            ? nil : try RunLock.acquire(database: file, timeoutMilliseconds: options.busyTimeoutMilliseconds, cancellation: options.cancellation)
        defer { lock?.release() }
        try transaction.begin()
        let run = ImportRun(options: options, db: db, table: table, source: source, transaction: transaction, summary: summary, progress: progress)
        defer { run.close() }
        // A signal stops the statement that runs, however long (a first load's index
        // builds), not only the next batch.
        let interruption = options.cancellation.map { InterruptOnCancel(db, $0) }
        defer { interruption?.end() }
        do {
            try run.execute()
            try run.checkCancellation()
            run.report(phase: .committing)
            if options.dryRun {
                // The commit a dry run never makes is where deferred foreign keys fail.
                try transaction.refuseDeferredForeignKeyViolations()
                transaction.rollback()
            } else {
                try transaction.commit()
            }
            summary = run.summary
        } catch {
            transaction.rollback()
            summary = run.summaryAfterFailure
            if let signal = options.cancellation?.signal { throw ImportError.interrupted(signal: signal) }
            throw error
        }
    }
}

/// Opens the database as sqlimport needs it.
enum DatabaseOpener {
    /// A dry run of a database that does not exist runs in memory, so that no file is made.
    static func open(path: String, dryRun: Bool, busyTimeoutMilliseconds: Int, cancellation: Cancellation? = nil) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(TimeInterval(busyTimeoutMilliseconds) / 1000)
        if let cancellation {
            // SQLite's own busy timeout sleeps through a signal: a SIGTERM waited for the
            // whole --busy-timeout while another writer held the lock. This one waits in
            // steps of at most 10 ms and gives up at once when the run is cancelled.
            let limit = TimeInterval(busyTimeoutMilliseconds) / 1000
            let clock = BusyClock()
            configuration.busyMode = .callback { tries in
                if cancellation.signal != nil { return false }
                let now = Date()
                if tries == 0 { clock.start = now }
                let left = limit - now.timeIntervalSince(clock.start)
                guard left > 0 else { return false }
                usleep(useconds_t(min(left, 0.01) * 1_000_000))
                return true
            }
        }
        configuration.label = "sqlimport"
        if dryRun && !FileManager.default.fileExists(atPath: path) { return try DatabaseQueue(configuration: configuration) }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}

extension DatabaseOpener {
    /// SQLiteData's schemas default their ids to `uuid()` (`"id" TEXT PRIMARY KEY NOT
    /// NULL DEFAULT (uuid())`), a function the app defines on its own connections
    /// (`@DatabaseFunction func uuid() -> UUID`) and SQLite lacks: without it, every
    /// statement SQLite compiles that default into failed ("unknown function"), with a
    /// `NOT NULL ON CONFLICT REPLACE` key even when every record supplies its id. Where a
    /// column default of `schema` calls it and the connection has no `uuid()`, sqlimport
    /// defines one as SQLite's own uuid extension (ext/misc/uuid.c) and StructuredQueries
    /// spell a UUID: a random version 4 UUID in lower case. Only then, and once the
    /// schema is loaded: a function that is not deterministic would make SQLite refuse
    /// a schema whose partial index or generated column calls `uuid()` as the database
    /// is opened (exit 73, "malformed database schema").
    static func addUUIDFunctionWhenMissing(_ db: Database, for schema: TableSchema) throws {
        let callsUUID = schema.columns.contains { column in
            column.defaultSQL.map { $0.lowercased().filter { !$0.isWhitespace }.contains("uuid()") } ?? false
        }
        guard callsUUID else { return }
        do {
            _ = try db.makeStatement(sql: "SELECT uuid()")
        } catch let error as DatabaseError where error.message?.contains("no such function") == true {
            db.add(function: DatabaseFunction("uuid", argumentCount: 0, pure: false) { _ in UUID().uuidString.lowercased() })
        }
    }
}

/// Connection settings for bulk work, restored when the run ends.
///
/// Only the page cache is enlarged (`--cache-mib`). `temp_store` stays as it is: SQLite's
/// sorter (index builds) spills to temporary files, and keeping those in memory would
/// let a large sort grow the process without bound.
struct BulkPragmas {
    private let cacheSize: Int

    init(_ db: Database, cacheSizeMiB: Int) throws {
        cacheSize = try Int.fetchOne(db, sql: "PRAGMA cache_size") ?? -2000
        try db.execute(sql: "PRAGMA cache_size = \(-max(cacheSizeMiB, 1) * 1024)")
    }

    func restore(_ db: Database) {
        try? db.execute(sql: "PRAGMA cache_size = \(cacheSize)")
    }
}

/// Interrupts the connection's running statement (`sqlite3_interrupt`) when the run is
/// cancelled, until `end`: after it the connection may be closed, and the handler, which
/// `Cancellation` keeps, must not touch it.
final class InterruptOnCancel: @unchecked Sendable {
    private let lock = NSLock()
    private var connection: OpaquePointer?

    init(_ database: Database, _ cancellation: Cancellation) {
        connection = database.sqliteConnection
        // Weak: a `Cancellation` used for many runs keeps its handlers until it fires.
        cancellation.onCancel { [weak self] in self?.interrupt() }
    }

    private func interrupt() {
        lock.lock()
        defer { lock.unlock() }
        if let connection { sqlite3_interrupt(connection) }
    }

    func end() {
        lock.lock()
        connection = nil
        lock.unlock()
    }
}

/// When the current wait for a lock began (`DatabaseOpener.open`): SQLite calls the busy
/// handler of a connection from the thread that uses it, one wait at a time.
private final class BusyClock: @unchecked Sendable {
    var start = Date()
}
