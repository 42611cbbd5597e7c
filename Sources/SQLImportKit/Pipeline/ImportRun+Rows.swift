import Foundation
import GRDB
import GRDBSQLite

/// Hands each batch to the write strategy, in runs of records of one shape.
extension ImportRun {
    func write(_ batch: RecordBatch) throws {
        // The writing thread's time per record, past the first batch (which prepares the
        // statements and meets a cold cache), while the comparison is undecided.
        let writtenBefore = session?.recordsThroughStatements ?? 0
        writeStartedAt = unchangedRowsState == .undecided && writtenBefore > 0 ? DispatchTime.now().uptimeNanoseconds : 0
        defer {
            if writeStartedAt > 0 {
                writingNanoseconds += DispatchTime.now().uptimeNanoseconds - writeStartedAt
                timedRecords += (session?.recordsThroughStatements ?? 0) - writtenBefore
            }
            writeStartedAt = 0
        }
        try mapNewColumns(of: batch)
        // An empty input (or one of only rejected records) needs no statement: its
        // missing fields are no error (a CSV header's unknown ones still are).
        if session == nil && batch.rowCount == 0 {
            try afterWriting(batch, rows: 0)
            return
        }
        let session = try self.session ?? startSession(input: inputNames[batch.inputIndex], fieldsAreFinal: fieldsAreFinal(after: batch))
        self.session = session
        // Records set aside while writing are rejects, not committed records (`--resume`).
        let rejectedBeforeWriting = summary.counts.rejected
        try fillKeyDefaults(batch)
        if batch.bytes.isEmpty { batch.bytes.append(0) }  // a valid base address
        let inputName = inputNames[batch.inputIndex]
        // Records an interrupted run already committed are passed over; with
        // --delete-missing the rows their keys find count as seen (`markResumedRows`), and
        // their scope values count. (They were applied again, which is no no-op: a row
        // two of them changed went back through the first one's values, firing triggers
        // and breaking a unique index another row now held.)
        var firstRow = 0
        if let resumeOffset = resumeOffsetOfInput[batch.inputIndex] {
            // A sorted run may hold committed records anywhere: they go first.
            firstRow = batch.isReordered
                ? batch.partition(before: resumeOffset)
                : (0 ..< batch.rowCount).first { batch.byteOffsets[$0] >= resumeOffset } ?? batch.rowCount
            summary.counts.read -= firstRow
            if !scopeInputs.isEmpty {
                for row in 0 ..< firstRow { collectScope(row: row, of: batch) }
            }
            try batch.bytes.withUnsafeBufferPointer { buffer in
                try markResumedRows(0 ..< firstRow, of: batch, session: session, bytes: buffer.baseAddress!)
            }
        }
        // A sorted run is planned and written in slices of `rowsPerBatch` records, so
        // that each slice's records stay in the CPU's caches from planning to binding.
        var start = firstRow
        while start < batch.rowCount {
            let end = min(start + options.rowsPerBatch, batch.rowCount)
            try write(start ..< end, of: batch, session: session, inputName: inputName)
            start = end
        }
        try checkCancellation()
        if unchangedRowsState == .undecided || unchangedRowsState == .scanning, batch.rowCount > 0 {
            try considerUnchangedRows(session, lastShape: session.shape(of: batch.rowCount - 1, in: batch))
        }
        try afterWriting(batch, rows: batch.rowCount - firstRow - (summary.counts.rejected - rejectedBeforeWriting))
        report(phase: .writing)
    }

    private func write(_ rows: Range<Int>, of batch: RecordBatch, session: WriteSession, inputName: String) throws {
        let firstRow = rows.lowerBound
        try batch.bytes.withUnsafeBufferPointer { buffer in
            let bytes = buffer.baseAddress!
            var plan = BatchPlan()
            swap(&plan, &batchPlan)
            defer { swap(&plan, &batchPlan) }
            plan.shapes.removeAll(keepingCapacity: true)
            plan.inside.removeAll(keepingCapacity: true)
            plan.setAside.removeAll(keepingCapacity: true)
            plan.tombstones.removeAll(keepingCapacity: true)
            let hasEnums = !enumCaseOfInput.isEmpty || !enumUnknownCaseOfInput.isEmpty || !plainGroupOfInput.isEmpty
            let hasScope = !scopeInputs.isEmpty
            for row in rows {
                if hasScope { collectScope(row: row, of: batch) }
                if tombstoneInput != nil && isTombstone(row: row, of: batch) { plan.tombstones.insert(row - firstRow) }
                // (Local functions: nothing is made per row unless a record is set aside.)
                func position() -> SourcePosition { batch.position(row: row, inputName: inputName) }
                func setAside(reason: String) throws {
                    try reject(RejectedRecord(row: row, of: batch, at: position(), reason: reason))
                    plan.setAside.insert(row - firstRow)
                }
                if hasEnums {
                    do {
                        try checkEnumCases(row: row, of: batch, inputName: inputName)
                    } catch let error as NestedFieldError where options.onError == .skip {
                        try setAside(reason: error.description)
                    }
                }
                let shape = session.shape(of: row, in: batch)
                if shape.inputColumns.isEmpty {
                    // `{}`, or only fields no column takes: a bad record like any other
                    // under --on-error skip (it stopped the run, which committed nothing).
                    // (Once: one set aside above for its enum or group is not counted twice.)
                    guard options.onError == .skip else { throw ImportError.emptyRecord(position()) }
                    if !plan.setAside.contains(row - firstRow) { try setAside(reason: "\(position()): \(ImportError.emptyRecordReason)") }
                    plan.shapes.append(shape)
                    plan.inside.append(true)
                    continue
                }
                var inside = true
                if let filter = session.partialFilter, try !filter.isInside(row: row, of: batch, shape: shape, session: session, bytes: bytes) {
                    summary.counts.outsidePartialIndex += 1
                    inside = false
                }
                plan.shapes.append(shape)
                plan.inside.append(inside)
                if summary.statementSQL == nil {
                    let statement = session.upsertStatement(of: shape)
                    summary.statementSQL = statement.sql(rowCount: 1)
                    if let fallback = statement.fallback?.statement {
                        summary.statementSQL! += "\n-- a record that \(statement.fallbackCondition) runs instead:\n"
                            + fallback.sql(rowCount: 1)
                    }
                }
            }
            try decideKeys(of: batch, rows: rows, inputName: inputName, plan: &plan)
            if firstLoadKeys != nil, try mayConflict(rows, of: batch, plan: plan, inputName: inputName) {
                for row in rows { plan.shapes[row - firstRow] = session.shape(of: row, in: batch) }
            }
            var from = firstRow
            rowsRejectedWhileWriting.removeAll(keepingCapacity: true)
            rowsDeletedByTombstones.removeAll(keepingCapacity: true)
            defer {
                rowsRejectedWhileWriting.removeAll(keepingCapacity: true)
                rowsDeletedByTombstones.removeAll(keepingCapacity: true)
            }
            while true {
                do {
                    try writeRuns(from ..< rows.upperBound, firstRow: firstRow, of: batch, plan: plan, session: session, inputName: inputName, bytes: bytes)
                    break
                } catch let conflict as InsertsOnlyConflict {
                    // SQLite undid the failed statement: its records and the ones after it
                    // go again, through the upsert statements.
                    let position = batch.position(row: conflict.row, inputName: inputName)
                    try endInsertsOnly(at: "\(position)", "a record whose key may repeat an earlier record's (SQLite refused its plain insert)")
                    for row in conflict.row ..< rows.upperBound { plan.shapes[row - firstRow] = session.shape(of: row, in: batch) }
                    from = conflict.row
                }
            }
            try countRepeatsInLedger(of: batch, rows: rows, inputName: inputName, plan: plan)
            if batch.numbersKeptAsText > 0 { countNumbersKeptAsText(of: batch, rows: rows, plan: plan) }
            if schema?.isStrict == false { countMissingValuesAsText(of: batch, rows: rows, plan: plan, inputName: inputName, bytes: bytes) }
        }
    }

    /// Counts the CSV/TSV values that spell a missing value (`WriteError.nullSpellings`)
    /// that records of `rows` give for a numeric column of a table that is not STRICT,
    /// which SQLite keeps as text (`OutcomeCounts.missingValuesAsText`; tombstones give
    /// none, and a record `newer:` or `ignore` keeps out still gives its values). A new
    /// table's column would be TEXT, with a warning, and a STRICT one refuses them,
    /// naming `--null`; here SQLite keeps `NA` as text among the numbers, and nothing
    /// said so.
    private func countMissingValuesAsText(of batch: RecordBatch, rows: Range<Int>, plan: BatchPlan, inputName: String, bytes: UnsafePointer<UInt8>) {
        for index in 0 ..< rows.count {
            let row = rows.lowerBound + index
            guard plan.decisions[index] == .write else { continue }
            let shape = plan.shapes[index]
            for position in shape.inputColumns.indices where shape.affinities[position].convertsNumbers {
                let cell = batch.cell(row: row, column: shape.inputColumns[position])
                guard cell.kind == .untypedText, cell.length <= 4 else { continue }
                let text = UnsafeRawBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
                // (The sets are looked up only for such a value, not for every record.)
                guard WriteError.isNullSpelling(text), !rowsRejectedWhileWriting.contains(row), plan.tombstones.isEmpty || !plan.tombstones.contains(index)
                else { continue }
                summary.counts.missingValuesAsText += 1
                if firstMissingValueAsText == nil, let schema, shape.tableColumns[position] < schema.columns.count {
                    firstMissingValueAsText = (
                        schema.columns[shape.tableColumns[position]].name, String(decoding: text, as: UTF8.self), batch.position(row: row, inputName: inputName)
                    )
                }
            }
        }
    }

    /// Counts the numbers past a 64-bit integer or a double that records of `rows` stored
    /// as TEXT: in TEXT and untyped columns, of records written. (The reader's count
    /// included numbers that a numeric column refused, and those of rejected records,
    /// and the warning said they were stored.)
    private func countNumbersKeptAsText(of batch: RecordBatch, rows: Range<Int>, plan: BatchPlan) {
        for index in 0 ..< rows.count {
            let row = rows.lowerBound + index
            guard plan.decisions[index] == .write, !rowsRejectedWhileWriting.contains(row) else { continue }
            let shape = plan.shapes[index]
            for position in shape.inputColumns.indices where shape.affinities[position] == .text || shape.affinities[position] == .blob {
                if batch.cell(row: row, column: shape.inputColumns[position]).kind == .numberAsText { summary.counts.numbersKeptAsText += 1 }
            }
        }
    }

    /// Adds the key fingerprints of the records of `rows` that will be written to
    /// `firstLoadKeys`, and ends the plain inserts (`endInsertsOnly`) when one may repeat
    /// an earlier record's key, or when the set is full. Returns whether it ended them.
    private func mayConflict(_ rows: Range<Int>, of batch: RecordBatch, plan: BatchPlan, inputName: String) throws -> Bool {
        guard let keys = firstLoadKeys else { return false }
        for row in rows {
            let index = row - rows.lowerBound
            guard plan.decisions[index] == .write, plan.inside[index], plan.tombstones.isEmpty || !plan.tombstones.contains(index) else { continue }
            // The fingerprint `decideKeys` took: the target key's (or, where a target column
            // is NULL, the primary key's, whose repeat SQLite would refuse anyway).
            let fingerprint = plan.fingerprints[index]
            guard fingerprint != 0 else { continue }
            let shape = plan.shapes[index]
            guard KeyLedger.isExact(row: row, of: batch, shape: shape, columns: keyColumns(of: shape).target) else {
                try endInsertsOnly(at: "\(batch.position(row: row, inputName: inputName))", "a key value SQLite may store in another form than it is written")
                return true
            }
            switch keys.insert(fingerprint) {
            case .added:
                continue
            case .present:
                try endInsertsOnly(at: "\(batch.position(row: row, inputName: inputName))", "a record whose conflict-target key may repeat an earlier record's")
            case .full:
                try endInsertsOnly(at: "\(batch.position(row: row, inputName: inputName))", "the first load's \(keys.count) distinct keys filled the key set (a sixteenth of --cache-mib)")
            }
            return true
        }
        return false
    }

    /// Writes the runs of consecutive records of one shape in `rows`, never holding two
    /// records with the same key (`decideKeys`).
    private func writeRuns(
        _ rows: Range<Int>, firstRow: Int, of batch: RecordBatch, plan: BatchPlan, session: WriteSession, inputName: String,
        bytes: UnsafePointer<UInt8>
    ) throws {
        // The first repeated key is named from its row right after the statement that met
        // it, before a tombstone or a mirror deletes the row, or another takes its rowid.
        func writeRun(_ run: Range<Int>, of batch: RecordBatch, shape: RowShape, session: WriteSession, inputName: String, bytes: UnsafePointer<UInt8>) throws {
            let named = session.counters.firstDuplicateRowid != nil
            try strategy.write(run, of: batch, shape: shape, session: session, inputName: inputName, bytes: bytes)
            if !named, session.counters.firstDuplicateRowid != nil { nameFirstDuplicate(session: session) }
        }
        var runStart = rows.lowerBound
        var runShape: RowShape?
        var runEnd = Int.max
        for row in rows {
            let index = row - firstRow
            if !plan.tombstones.isEmpty && plan.tombstones.contains(index) {
                // Everything before it is written first, so that order holds.
                if let runShape {
                    try writeRun(runStart ..< row, of: batch, shape: runShape, session: session, inputName: inputName, bytes: bytes)
                }
                runShape = nil
                runStart = row + 1
                runEnd = Int.max
                if plan.decisions[index] == .write, try deleteTombstone(row: row, of: batch, inputName: inputName, bytes: bytes) {
                    rowsDeletedByTombstones.insert(row)
                }
                continue
            }
            if unchangedRows != nil, plan.decisions[index] == .write, plan.inside[index],
                let rowid = unchangedRowid(row: row, of: batch, shape: plan.shapes[index], session: session, bytes: bytes)
            {
                // The records before it are written first: one of them may change its row.
                if let runShape {
                    try writeRun(runStart ..< row, of: batch, shape: runShape, session: session, inputName: inputName, bytes: bytes)
                }
                runShape = nil
                runEnd = Int.max
                if passUnchanged(rowid, session: session) {
                    runStart = row + 1
                    continue
                }
            }
            let shape: RowShape? = plan.decisions[index] == .write ? plan.shapes[index] : nil
            if shape !== runShape || row >= runEnd {
                runEnd = Int.max
                if let runShape {
                    try writeRun(runStart ..< row, of: batch, shape: runShape, session: session, inputName: inputName, bytes: bytes)
                }
                runShape = shape
                runStart = row
            }
            if shape != nil, plan.next[index] >= 0 { runEnd = min(runEnd, firstRow + plan.next[index]) }
        }
        if let runShape {
            try writeRun(runStart ..< rows.upperBound, of: batch, shape: runShape, session: session, inputName: inputName, bytes: bytes)
        }
    }

}
