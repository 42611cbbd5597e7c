/// `--commit-every` and `--resume` on PostgreSQL, as on SQLite (`ImportRun+Checkpoints`):
/// the reading thread ends a batch every N records, the run records each input's
/// committed offset in `_sqlimport_runs` (`PostgresRunLog`) and commits; `--resume`
/// skips what an interrupted run committed.
extension PostgresRun: CheckpointingRun {
    /// Creates the log table and decides whether this run continues an interrupted one.
    func prepareRunLog() throws {
        let logSchema = try tableSchema?.schema ?? requestedSchema ?? connection.query("SELECT current_schema()").first?[0] ?? "public"
        let log = PostgresRunLog(schema: logSchema)
        try log.ensureTable(connection)
        runLog = log
        try prepareResume(entries: try log.entries(connection, target: requestedTable), table: requestedTable)
    }

    /// The first row of `batch` an interrupted run did not commit (0 without --resume).
    func firstUncommittedRow(of batch: RecordBatch) -> Int {
        guard let offset = resumeOffsetOfInput[batch.inputIndex] else { return 0 }
        // A sorted run may hold committed records anywhere: they go first.
        if batch.isReordered { return batch.partition(before: offset) }
        return (0 ..< batch.rowCount).first { batch.byteOffsets[$0] >= offset } ?? batch.rowCount
    }

    func saveProgress(input: Int, offset: Int64, finished: Bool) throws {
        guard let runLog, let path = options.inputs[safe: input] else { return }
        let entry = RunLog.Entry(
            fingerprint: fingerprints[input] ?? RunLog.Fingerprint(size: -1, checksum: -1, modifiedNanoseconds: -1, inode: -1),
            committedOffset: offset, committedRows: committedRowsOfInput[input, default: 0], finished: finished,
            committedRejects: summary.counts.rejected, rejectsBytes: rejectsFile?.length ?? 0, runID: runID,
            committedIgnored: carriedIgnored + summary.counts.ignored)
        try runLog.save(connection, target: requestedTable, path: path, entry: entry)
    }

    /// After a batch: its end is the input's progress, and a commit follows every
    /// --commit-every records read.
    func afterWriting(_ batch: RecordBatch, rows: Int) throws {
        guard runLog != nil else { return }
        committedRowsOfInput[batch.inputIndex, default: 0] += rows
        rowsSinceCommit += rows
        if batch.endsInput || batch.endsCommitInterval {
            try saveProgress(input: batch.inputIndex, offset: batch.inputBytesConsumed, finished: batch.endsInput)
        }
        if batch.endsCommitInterval && rowsSinceCommit > 0 {
            try connection.commit()
            // Counted as committed before the next BEGIN, which may fail (a lock, a
            // signal): the report's counts are the committed ones.
            countsAtLastCommit = summary.counts
            options.betweenCheckpoints?()
            // The staging tables were dropped with the commit (`ON COMMIT DROP`).
            stagingOfShape.removeAll()
            deletesSinceTruncate.removeAll()
            try PostgresImporter.begin(connection, options: options)
            rowsSinceCommit = 0
        }
    }
}
