/// The file bytes a run has read, per input, and the `ImportProgress` they give: one
/// mechanism for the SQLite and the PostgreSQL runs.
struct FileProgress {
    /// Per input, the file bytes read by the end of the latest batch (compressed bytes
    /// for a compressed input).
    private var bytesRead: [Int64] = []

    mutating func record(_ batch: RecordBatch) {
        if bytesRead.count <= batch.inputIndex { bytesRead += repeatElement(0, count: batch.inputIndex + 1 - bytesRead.count) }
        bytesRead[batch.inputIndex] = batch.fileBytesConsumed
    }

    /// The share of the input's file bytes read so far, once every input is open and a
    /// regular file; nil before, or for a pipe.
    func fractionRead(summary: ImportSummary, inputCount: Int) -> Double? {
        let sizes = summary.inputs.map(\.bytes)
        guard summary.inputs.count == inputCount, !sizes.contains(where: { $0 == nil }) else { return nil }
        let total = sizes.reduce(0) { $0 + $1! }
        guard total > 0 else { return nil }
        return min(Double(bytesRead.reduce(0, +)) / Double(total), 1)
    }

    /// The progress of a run whose `summary` lists the inputs opened so far, out of
    /// `inputCount`; the total size is known once every input is open and a regular file.
    func progress(phase: ImportProgress.Phase, summary: ImportSummary, inputCount: Int, rowsWritten: Int) -> ImportProgress {
        let sizes = summary.inputs.map(\.bytes)
        let total: Int64? = sizes.contains(where: { $0 == nil }) || summary.inputs.count < inputCount ? nil : sizes.reduce(0) { $0 + $1! }
        return ImportProgress(
            phase: phase, rowsRead: summary.counts.read, rowsWritten: min(rowsWritten, summary.counts.read), bytesRead: bytesRead.reduce(0, +),
            totalBytes: total)
    }
}
