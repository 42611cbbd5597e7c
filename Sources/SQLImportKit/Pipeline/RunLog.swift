import CZlib
import Foundation
import GRDB

/// The progress of checkpointed runs (`--commit-every`), kept in the database itself in
/// the table `_sqlimport_runs`, updated in the same transaction as the rows. `--resume`
/// reads it to continue a killed run without re-applying committed records.
///
/// ```sql
/// CREATE TABLE _sqlimport_runs (target TEXT, path TEXT, size INTEGER, head_crc32 INTEGER,
///   committed_offset INTEGER, committed_rows INTEGER, finished INTEGER, updated_at TEXT,
///   mtime_ns INTEGER, inode INTEGER, committed_rejects INTEGER, rejects_bytes INTEGER,
///   run_id TEXT, committed_ignored INTEGER, start_max INTEGER, PRIMARY KEY (target, path))
/// ```
///
/// `head_crc32` holds the CRC-32 of the whole input (its name is from when it covered the
/// first MiB only; an entry written then never matches, so such a run starts over).
/// ```sql
/// ```
struct RunLog {
    static let table = "_sqlimport_runs"

    /// What identifies an input's content: its size, modification time and inode, and
    /// the CRC-32 of all its bytes (read once when the run starts). A new night's export
    /// with the same size and the same first bytes differs in its time, its inode or its
    /// checksum; an input rewritten in place with its old time kept differs in its
    /// checksum.
    struct Fingerprint: Equatable {
        var size: Int64
        var checksum: Int64
        var modifiedNanoseconds: Int64
        var inode: Int64

        init(path: String) throws(InputError) {
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                throw .unreadable(path: path, reason: "--resume needs a regular file, not a pipe or standard input")
            }
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw .unreadable(path: path, reason: "cannot open it")
            }
            defer { try? handle.close() }
            var crc: uLong = 0
            while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                crc = chunk.withUnsafeBytes { bytes in
                    crc32(crc, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt(bytes.count))
                }
            }
            size = Int64(info.st_size)
            checksum = Int64(crc)
            modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            inode = Int64(bitPattern: UInt64(info.st_ino))
        }

        init(size: Int64, checksum: Int64, modifiedNanoseconds: Int64, inode: Int64) {
            self.size = size
            self.checksum = checksum
            self.modifiedNanoseconds = modifiedNanoseconds
            self.inode = inode
        }
    }

    struct Entry {
        var fingerprint: Fingerprint
        var committedOffset: Int64
        var committedRows: Int
        var finished: Bool
        /// The run's records set aside (`--on-error skip`) up to this checkpoint, and the
        /// length of its `--rejects` file then: what a resumed run that skips the
        /// committed records still reports and keeps.
        var committedRejects = 0
        var rejectsBytes: Int64 = 0
        /// The run that wrote it (`CheckpointingRun.runID`); nil in logs from before.
        var runID: String? = nil
        /// The run's records the database dropped up to this checkpoint, which withhold
        /// `--delete-missing`'s deletions when a resumed run passes over them.
        var committedIgnored = 0
        /// SQLite: the table's largest rowid when the run began (`TouchedRows.startMax`):
        /// a resumed run's rows from before it are those of the interrupted run, not the
        /// rows that run, or others between its checkpoints, inserted.
        var startMax: Int64? = nil
    }

    static func ensureTable(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE IF NOT EXISTS \(table) (target TEXT NOT NULL, path TEXT NOT NULL, size INTEGER, head_crc32 INTEGER,
              committed_offset INTEGER NOT NULL, committed_rows INTEGER NOT NULL, finished INTEGER NOT NULL, updated_at TEXT NOT NULL,
              PRIMARY KEY (target, path))
            """)
        let columns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]))
        for column in ["mtime_ns", "inode", "committed_rejects", "rejects_bytes", "committed_ignored", "start_max"] where !columns.contains(column) {
            try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN \(column) INTEGER")
        }
        if !columns.contains("run_id") { try db.execute(sql: "ALTER TABLE \(table) ADD COLUMN run_id TEXT") }
    }

    static func entries(_ db: Database, target: String) throws -> [String: Entry] {
        guard try db.tableExists(table) else { return [:] }
        var result: [String: Entry] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) WHERE target = ?", arguments: [target]) {
            result[row["path"]] = Entry(
                fingerprint: Fingerprint(
                    size: row["size"] ?? -1, checksum: row["head_crc32"] ?? -1, modifiedNanoseconds: row["mtime_ns"] ?? -1, inode: row["inode"] ?? -1),
                committedOffset: row["committed_offset"], committedRows: row["committed_rows"], finished: row["finished"],
                committedRejects: row["committed_rejects"] ?? 0, rejectsBytes: row["rejects_bytes"] ?? 0, runID: row["run_id"],
                committedIgnored: row["committed_ignored"] ?? 0, startMax: row["start_max"])
        }
        return result
    }

    static func save(_ db: Database, target: String, path: String, entry: Entry) throws {
        try db.execute(
            sql: """
                INSERT INTO \(table) (target, path, size, head_crc32, committed_offset, committed_rows, finished, updated_at, mtime_ns, inode,
                  committed_rejects, rejects_bytes, run_id, committed_ignored, start_max)
                VALUES (?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'), ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (target, path) DO UPDATE SET size = excluded.size, head_crc32 = excluded.head_crc32,
                  committed_offset = excluded.committed_offset, committed_rows = excluded.committed_rows,
                  finished = excluded.finished, updated_at = excluded.updated_at, mtime_ns = excluded.mtime_ns, inode = excluded.inode,
                  committed_rejects = excluded.committed_rejects, rejects_bytes = excluded.rejects_bytes, run_id = excluded.run_id,
                  committed_ignored = excluded.committed_ignored, start_max = excluded.start_max
                """,
            arguments: [
                target, path, entry.fingerprint.size, entry.fingerprint.checksum, entry.committedOffset, entry.committedRows, entry.finished,
                entry.fingerprint.modifiedNanoseconds, entry.fingerprint.inode, entry.committedRejects, entry.rejectsBytes, entry.runID,
                entry.committedIgnored, entry.startMax,
            ])
    }
}

extension RunLog {
    /// The entries `--resume` continues from: those of the interrupted run (the run that
    /// wrote an unfinished entry of these inputs), when there is one; else none, with the
    /// warning `--resume` gets. An entry of another run (an input the interrupted run was
    /// not given, last written by an earlier run that finished) is no progress of it.
    static func entriesToResume(_ entries: [String: Entry], options: ImportOptions, table: String) -> (entries: [String: Entry], warning: String?) {
        let previous = options.inputs.compactMap { entries[$0] }
        if options.resume, let interrupted = previous.first(where: { !$0.finished }) {
            // A log from before run ids cannot tell the interrupted run's finished inputs
            // from an earlier run's: with upserts, reading them again is safe.
            if interrupted.runID == nil && options.upsert != nil {
                return (entries.filter { $0.value.runID == nil && !$0.value.finished }, nil)
            }
            return (entries.filter { $0.value.runID == interrupted.runID }, nil)
        }
        if options.resume {
            return ([:], "--resume: no interrupted run of these inputs into \(SQLIdentifier.quote(table)); importing from the start")
        }
        return ([:], nil)
    }

    /// Where an input starts.
    enum InputStart {
        /// From its first record, with a new entry.
        case fresh
        /// From its first record, because it changed since the interrupted run (upserts
        /// make starting over safe).
        case restart(warning: String)
        /// After what the interrupted run committed.
        case resume(offset: Int64, rows: Int)
    }

    /// Where input `path` starts, given the interrupted run's `entry` for it.
    static func start(of path: String, entry: Entry?, fingerprint: Fingerprint?, options: ImportOptions) throws -> InputStart {
        guard let entry else { return .fresh }
        // Standard input cannot be compared with what the interrupted run read: it is
        // taken as changed, and read from its first record.
        guard path != "-", entry.fingerprint == fingerprint else {
            // Without --upsert, records applied again would be inserted again.
            if options.strictResume || options.upsert == nil {
                throw ImportError.inputChangedSinceInterruptedRun(path: path, strict: options.strictResume)
            }
            return .restart(warning:
                "--resume: \(ImportError.changedSinceInterruptedRun(path)), so it was imported from its first record; pass --strict-resume to stop instead")
        }
        return .resume(offset: entry.finished ? Int64.max : entry.committedOffset, rows: entry.committedRows)
    }
}

/// A run that checkpoints (`--commit-every`): the SQLite and the PostgreSQL run share the
/// rules of `--resume` through it.
protocol CheckpointingRun: AnyObject {
    var options: ImportOptions { get }
    var summary: ImportSummary { get set }
    var fingerprints: [Int: RunLog.Fingerprint] { get set }
    var resumeEntries: [String: RunLog.Entry] { get set }
    /// Records of input `i` before this decompressed offset were committed by the
    /// interrupted run, and are skipped.
    var resumeOffsetOfInput: [Int: Int64] { get set }
    var committedRowsOfInput: [Int: Int] { get set }
    var rejectsFile: RejectsFile? { get set }
    /// The counts the last commit kept (what a failed run reports).
    var countsAtLastCommit: OutcomeCounts { get set }
    /// What the log's entries of this run are marked with: a new identifier, or the
    /// interrupted run's when this run resumes it.
    var runID: String { get set }
    /// The records the database dropped by the interrupted run before its last
    /// checkpoint, and its `startMax` (`RunLog.Entry`), when this run resumes it.
    var carriedIgnored: Int { get set }
    var carriedStartMax: Int64? { get set }
    /// Records input `input`'s progress in the log (nothing without `--commit-every`).
    func saveProgress(input: Int, offset: Int64, finished: Bool) throws
}

extension CheckpointingRun {
    /// Fingerprints the inputs and decides, from the log's `entries` for `table`, whether
    /// this run continues an interrupted one.
    func prepareResume(entries: [String: RunLog.Entry], table: String) throws {
        // The log keeps one entry per path: an input given twice would resume its second
        // reading from the first one's offset.
        var seen = Set<String>()
        for path in options.inputs where path != "-" && !seen.insert(path).inserted {
            throw ImportError.conflictingOptions(
                "\(path) is given twice; with --commit-every each input may be given once (its progress is kept by path): run the import twice instead")
        }
        for (index, path) in options.inputs.enumerated() where path != "-" {
            fingerprints[index] = try RunLog.Fingerprint(path: path)
        }
        let (resumed, warning) = RunLog.entriesToResume(entries, options: options, table: table)
        resumeEntries = resumed
        if let interrupted = resumed.values.first?.runID { runID = interrupted }
        // An input the interrupted run never had, before inputs it committed: its records
        // are applied after theirs, which one run of this list would not do. (With
        // --upsert the inputs after it are read again from their first records instead:
        // `resumeInput`.)
        let had = options.inputs.map { resumed[$0] != nil }
        if !restartsAfterANewOrChangedInput, let last = had.lastIndex(of: true), let new = had[..<last].firstIndex(of: false),
            let committed = had[new...].firstIndex(of: true)
        {
            summary.warnings.append(
                "--resume: \(options.inputs[new]) was not an input of the interrupted run but comes before \(options.inputs[committed]), whose committed records it will not precede: a key both hold keeps the value of the one read last. Give the interrupted run's inputs in their order, or run again without --resume")
        }
        if let warning { summary.warnings.append(warning) }
        // An input of the interrupted run left out of this one: what it committed stays.
        for path in resumed.keys.sorted() where !options.inputs.contains(path) {
            summary.warnings.append(
                "--resume: \(path) was an input of the interrupted run and is not one of this run's: the records it committed stay in the table; run without --resume to start over")
        }
        // A changed input that stops the run stops it here, before `--rejects` is opened
        // (which keeps only the lines of the inputs resumed, and emptied the file).
        for (index, path) in options.inputs.enumerated() {
            _ = try RunLog.start(of: path, entry: resumed[path], fingerprint: fingerprints[index], options: options)
        }
    }

    /// Opens `--rejects`. A resumed run that skips what the interrupted one committed
    /// keeps that run's rejects: their lines stay in the file (those written after its
    /// last checkpoint are dropped: their records come again), and they count in
    /// `rejected`, so that the resumed run reports the whole input as one run would.
    func openRejects() throws {
        // Inputs are read in order, and each entry holds the run's rejects so far: what
        // the inputs before the first one that changed had committed is kept. (A changed
        // input is read again from its first record, and so is everything after it.)
        var resumed: [RunLog.Entry] = []
        for (index, path) in options.inputs.enumerated() {
            guard let entry = resumeEntries[path], path != "-", entry.fingerprint == fingerprints[index] else { break }
            resumed.append(entry)
        }
        let rejects = resumed.map(\.committedRejects).max() ?? 0
        let bytes = resumed.map(\.rejectsBytes).max() ?? 0
        if let path = options.rejectsPath {
            let file = try RejectsFile(path: path, keeping: bytes)
            rejectsFile = file
            if bytes > 0 && !file.keptLines {
                summary.warnings.append(
                    "--resume: \(path) no longer holds the \(rejects) reject(s) of the interrupted run (it is shorter than at its last checkpoint); they still count in rejected")
            }
        }
        summary.counts.rejected += rejects
        carriedIgnored = resumed.map(\.committedIgnored).max() ?? 0
        carriedStartMax = resumed.compactMap(\.startMax).min()
        // Committed by the interrupted run: they stay whatever this one does (a resumed
        // run that stopped before its first checkpoint reported none).
        countsAtLastCommit.rejected += rejects
        summary.resumedRejects = rejects
    }

    /// Whether an input after one the interrupted run did not read as now (changed since,
    /// standard input, or not one of its inputs) is read again from its first record:
    /// with --upsert, which makes that safe, and without --strict-resume.
    var restartsAfterANewOrChangedInput: Bool { options.upsert != nil && !options.strictResume }

    /// Where input `index` starts (`RunLog.start`), once it is opened. After an input read
    /// from its first record that the interrupted run did not read as now, the inputs it
    /// had committed are read from their first records too: skipping them applied the
    /// earlier input's records after theirs, and a key both hold kept the earlier
    /// input's value, where one run keeps the later's (a helper's kill test).
    func resumeInput(_ index: Int, path: String) throws {
        // (A finished input after one the interrupted run had not finished was read
        // before it there: the list's order changed.)
        let finished = resumeEntries[path]?.finished == true
        let earlierChanged = options.inputs[..<index].indices.first { earlier in
            let entry = resumeEntries[options.inputs[earlier]]
            return entry == nil || options.inputs[earlier] == "-" || entry?.fingerprint != fingerprints[earlier] || finished && entry?.finished == false
        }
        if restartsAfterANewOrChangedInput, let earlier = earlierChanged, resumeEntries[path] != nil {
            summary.restartedInputs.append(path)
            summary.warnings.append(
                "--resume: \(path) was imported from its first record, as \(options.inputs[earlier]) before it was read anew or not to its end (it changed since the interrupted run, was not one of its inputs, or came after \(path) there), so that a key both hold keeps the value of the one read last, as in one run")
            try saveProgress(input: index, offset: 0, finished: false)
            return
        }
        let start = try RunLog.start(of: path, entry: resumeEntries[path], fingerprint: fingerprints[index], options: options)
        if restartsAfterANewOrChangedInput, earlierChanged == nil {
            // The first input read from its first record: the entries of those after it
            // that the interrupted run committed are reset now, in this run's transaction,
            // so that a resume of this run stopped before it reaches them does not skip
            // what the first run committed of them (a helper's second interruption).
            if case .resume = start {} else {
                for later in options.inputs.indices.dropFirst(index + 1) where resumeEntries[options.inputs[later]] != nil {
                    try saveProgress(input: later, offset: 0, finished: false)
                }
            }
        }
        switch start {
        case .fresh:
            try saveProgress(input: index, offset: 0, finished: false)
        case .restart(let warning):
            summary.restartedInputs.append(path)
            summary.warnings.append(warning)
            try saveProgress(input: index, offset: 0, finished: false)
        case .resume(let offset, let rows):
            resumeOffsetOfInput[index] = offset
            committedRowsOfInput[index] = rows
            summary.resumedRecords += rows
        }
    }
}
