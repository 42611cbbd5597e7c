import Foundation

/// Imports files into a PostgreSQL table: the same readers and the same upsert rules as
/// the SQLite target, applied a batch at a time with set-based statements.
///
/// Each batch is grouped by shape (the fields its records have), and each group is
/// streamed with `COPY ... FROM STDIN` (text format) into a temporary staging table typed
/// like the target's columns, so that PostgreSQL parses every value and a refusal names
/// the record's line and field. Then, in the run's one transaction:
/// 1. a key repeated within the batch keeps its later record (`duplicateKeys`);
/// 2. each record is routed: inside the conflict target (its key complete and inside a
///    partial index's predicate) or outside it (matched by the primary key), with the
///    SQLite target's identity rule: a record never merges into a row of another identity;
/// 3. one `INSERT ... SELECT ... ON CONFLICT (target) WHERE predicate DO UPDATE SET ...
///    WHERE newer AND changed RETURNING (xmax = 0)` per route applies them, and the
///    counts come from `RETURNING` and from the rows left unchanged or skipped.
///
/// `INSERT OR REPLACE`'s PostgreSQL cousins (DELETE + INSERT) are never used.
public final class PostgresImporter {
    public let options: ImportOptions

    public init(options: ImportOptions) {
        self.options = options
    }

    /// After a failed run that had started reading: its summary, with nothing committed.
    public private(set) var partialSummary: ImportSummary?

    /// Where a table the run creates goes: `--table schema.name` whose prefix names a
    /// schema of the database is `name` in that schema (nil: the search path's first
    /// schema, as `CREATE TABLE name` puts it).
    /// - Throws: `SchemaError.unknownPostgresSchema` for a dotted `--table` whose prefix
    ///   names no schema: PostgreSQL would make a table with a dot in its name.
    static func newTablePlacement(
        _ connection: PostgresConnection, requested: String, parsesSchema: Bool
    ) throws -> (schema: String?, table: String) {
        guard parsesSchema, let dot = requested.firstIndex(of: ".") else { return (nil, requested) }
        guard let qualified = try PostgresSchema.qualified(connection, requested) else {
            throw SchemaError.unknownPostgresSchema(name: requested, schema: String(requested[..<dot]))
        }
        return qualified
    }

    /// Runs the import.
    /// - Throws: `PostgresError`, `ImportError`, `UpsertError`, `SchemaError`,
    ///   `InputError` or `ReaderError`; nothing is committed.
    public func run(progress: ((ImportProgress) -> Void)? = nil) throws -> ImportSummary {
        try Self.refuseUnsupported(options)
        let connection = try PostgresConnection(url: options.databasePath)
        // A signal stops a statement that waits for a lock (or runs long) at once, as the
        // SQLite target's busy handler gives up; its 57014 is then the signal.
        options.cancellation?.onCancel { [weak connection] in connection?.cancelStatement() }
        let run: PostgresRun
        do {
            try Self.begin(connection, options: options)
            let requested = try options.resolvedTable()
            let schema = try PostgresSchema.read(connection, table: requested, parsesSchema: options.table != nil)
            if schema == nil, let kind = try PostgresSchema.otherRelation(connection, named: requested, parsesSchema: options.table != nil) {
                throw SchemaError.notATable(name: requested, kind: kind)
            }
            let placement = schema == nil ? try Self.newTablePlacement(connection, requested: requested, parsesSchema: options.table != nil) : nil
            if !options.dryRun {
                try Self.lockTable(connection, schema: schema?.schema ?? placement?.schema, table: schema?.table ?? placement?.table ?? requested)
            }
            run = try PostgresRun(
                options: options, connection: connection, schema: schema, table: placement?.table ?? requested, inSchema: placement?.schema,
                progress: progress)
            if schema == nil && options.inferRows != ImportOptions(inputs: [], databasePath: "").inferRows {
                run.sampled = try PostgresRun.ColumnSample.firstRecords(options.inferRows, options: options)
            }
        } catch {
            throw stopBySignal(error) ?? error
        }
        do {
            try run.execute()
            if options.dryRun { try connection.execute("ROLLBACK") } else { try connection.commit() }
        } catch {
            connection.rollbackIfOpen()
            var failed = run.summary
            failed.counts = run.countsAtLastCommit  // nothing, or what the last checkpoint kept
            failed.finishedAt = Date()
            partialSummary = failed
            throw stopBySignal(error) ?? error
        }
        var summary = run.summary
        summary.dryRun = options.dryRun
        if summary.counts.newerMixedForms > 0, let warning = options.merge.newerMixedFormsWarning(summary.counts.newerMixedForms, first: run.newerMixes.first) {
            summary.warnings.append(warning)
        }
        if summary.counts.duplicateKeys > 0 {
            summary.warnings.append(
                "\(summary.counts.duplicateKeys) record(s) repeat the key of an earlier record; the later record won. Pass --duplicate-keys error to refuse such input")
        }
        if run.recordsAppliedWithTheirShape > 0, let reason = run.orderOfWrites?.reason {
            summary.warnings.append(
                "\(run.recordsAppliedWithTheirShape) record(s) were applied together with the records of their batch that have the same fields, before earlier records with other fields; on this table the order of writes shows (\(reason)), and SQLite would apply them in input order. Records with the same fields keep the input's order")
        }
        if summary.counts.ignored > 0 {
            summary.warnings.append(
                "\(summary.counts.ignored) record(s) were left out by a BEFORE trigger of the table that returned NULL: neither inserted nor updated")
        }
        if summary.counts.numbersKeptAsText > 0 {
            summary.warnings.append(
                "\(summary.counts.numbersKeptAsText) number(s) do not fit a 64-bit integer or a double exactly and were passed to PostgreSQL as their digits (exact in numeric and text columns)")
        }
        // Under --null-key skip they were set aside, each named with its reason.
        if summary.counts.nullKey > 0 && options.nullKey == .insert {
            summary.warnings.append(
                "\(summary.counts.nullKey) record(s) have a NULL key column or fall outside the partial index's predicate, and the input supplies no primary key: they were inserted as new rows (--null-key insert), and a re-run will insert them again")
        }
        summary.finishedAt = Date()
        return summary
    }

    /// A server error after a signal is the signal's stop: the statement it cancelled
    /// (57014), or one that failed as the connection went.
    private func stopBySignal(_ error: Error) -> ImportError? {
        guard error is PostgresError, let signal = options.cancellation?.signal else { return nil }
        return .interrupted(signal: signal)
    }

    /// Opens the run's transaction (again after each checkpoint), with `--busy-timeout`
    /// as its lock timeout.
    static func begin(_ connection: PostgresConnection, options: ImportOptions) throws {
        try connection.execute("BEGIN")
        try connection.execute("SET LOCAL lock_timeout = '\(max(options.busyTimeoutMilliseconds, 1))ms'")
    }

    /// Keeps two runs into one table from interleaving, as `RunLock` does on SQLite: the
    /// row locks of a transaction end at its commit, and with `--commit-every` another
    /// run wrote between this one's checkpoints (two mirrors each kept the other's
    /// rows). A session-level advisory lock on the table's name, held until the
    /// connection closes; another run waits for it up to `--busy-timeout` (the
    /// transaction's `lock_timeout`), then exits 75 naming the server process that holds it.
    static func lockTable(_ connection: PostgresConnection, schema: String?, table: String) throws {
        let key = "hashtext('sqlimport'), hashtext(coalesce($1, current_schema()) || '.' || $2)"
        if try connection.query("SELECT pg_try_advisory_lock(\(key))", [schema, table]).first?.first == "t" { return }
        let holder = try connection.query(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND (classid, objid) = "
                + "(hashtext('sqlimport')::oid, hashtext(coalesce($1, current_schema()) || '.' || $2)::oid) LIMIT 1",
            [schema, table])
        let pid: Int32? = holder.first?.first.flatMap { $0 }.flatMap { Int32($0) }
        do {
            _ = try connection.query("SELECT pg_advisory_lock(\(key))", [schema, table])
        } catch {
            guard error.sqlState == "55P03" else { throw error }
            let held = "the advisory lock of table \(schema.map { "\($0)." } ?? "")\(table)" + (pid.map { ", server process \($0)" } ?? "")
            throw ImportError.anotherRun(lock: held, pid: nil)
        }
    }

    /// Flags the PostgreSQL target does not take yet, refused rather than ignored.
    static func refuseUnsupported(_ options: ImportOptions) throws {
        var flags: [String] = []
        if options.reader.flatten || !options.enumGroups.isEmpty || !options.columnGroups.isEmpty { flags.append("--flatten/--enum/--group") }
        if options.strategy != .auto { flags.append("--strategy") }
        if options.wal { flags.append("--wal") }
        if !flags.isEmpty {
            throw ImportError.conflictingOptions(
                "\(flags.joined(separator: ", ")) do not apply to a PostgreSQL database yet (docs/postgresql.md lists what does); drop them, or import into SQLite")
        }
        // As on SQLite (`Importer.validate`): a dry run with checkpoints ran every record
        // again under --resume, and predicted deletions the real resume does not make.
        if options.dryRun && options.commitEvery != nil {
            throw ImportError.conflictingOptions("--dry-run commits nothing; drop --commit-every")
        }
        try options.refuseNewerOnTheKey()
    }
}
