import Foundation
import GRDB
import GRDBSQLite

/// Checkpoints (`--commit-every`), `--resume`, and records set aside (`--on-error skip`).
extension ImportRun: CheckpointingRun {
    // MARK: - Checkpoints and resume

    /// Creates `_sqlimport_runs` and decides whether this run continues an interrupted one:
    /// only with --resume, and only when some input of the last run did not finish.
    func prepareRunLog() throws {
        try RunLog.ensureTable(db)
        try prepareResume(entries: try RunLog.entries(db, target: table), table: table)
    }

    func saveProgress(input: Int, offset: Int64, finished: Bool) throws {
        guard options.commitEvery != nil, let path = options.inputs[safe: input] else { return }
        let entry = RunLog.Entry(
            fingerprint: fingerprints[input] ?? RunLog.Fingerprint(size: -1, checksum: -1, modifiedNanoseconds: -1, inode: -1), committedOffset: offset,
            committedRows: committedRowsOfInput[input, default: 0], finished: finished, committedRejects: summary.counts.rejected,
            rejectsBytes: rejectsFile?.length ?? 0, runID: runID,
            committedIgnored: carriedIgnored + (session?.counts.ignored ?? 0), startMax: carriedStartMax ?? session?.counters.touched?.startMax)
        try RunLog.save(db, target: table, path: path, entry: entry)
    }

    /// After a batch: record its end as this input's progress, and commit after every
    /// --commit-every records read (the reading thread ends batches there).
    func afterWriting(_ batch: RecordBatch, rows: Int) throws {
        guard options.commitEvery != nil else { return }
        committedRowsOfInput[batch.inputIndex, default: 0] += rows
        rowsSinceCommit += rows
        if batch.endsInput || batch.endsCommitInterval {
            try saveProgress(input: batch.inputIndex, offset: batch.inputBytesConsumed, finished: batch.endsInput)
        }
        if batch.endsCommitInterval && rowsSinceCommit > 0 {
            syncCounts()
            // Between the commit and the next BEGIN another connection may insert rows;
            // they are not this run's (`TouchedRows`).
            let rowid = session?.rowidName
            let maxAtCommit = try rowid.map { try Int64.fetchOne(db, sql: "SELECT max(\($0)) FROM \(SQLIdentifier.quote(table))") ?? 0 }
            // The scan reads what this transaction began with: it ends before the commit.
            try endUnchangedRowsScan(interrupt: false)
            // The counts are the committed ones before the next BEGIN, which may fail.
            try transaction.checkpoint(between: options.betweenCheckpoints) { countsAtLastCommit = summary.counts }
            if let session { try checkUnchangedRowsAfterCommit(session) }
            if let rowid, let maxAtCommit, let touched = session?.counters.touched,
                let maxNow = try Int64.fetchOne(db, sql: "SELECT max(\(rowid)) FROM \(SQLIdentifier.quote(table))"), maxNow > maxAtCommit
            {
                touched.insertedByOthers((maxAtCommit + 1) ... maxNow)
            }
            rowsSinceCommit = 0
        }
    }

    // MARK: - Rejects

    func reject(_ record: RejectedRecord) throws {
        try summary.setAside(record, in: rejectsFile, maxErrors: options.maxErrors)
    }

}
