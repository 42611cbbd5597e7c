/// What the write loop knows of each record's key before it writes: whether the conflict
/// target (or the primary-key clause) can match it, and whether another record of the run
/// has the same key.
extension ImportRun {
    /// A record's fate, decided before its batch is written.
    enum KeyDecision: UInt8 {
        case write
        /// Set aside (`--null-key skip`), or superseded by a later record of the same
        /// batch with the same key: not written at all.
        case pass
    }

    /// Decides `decisions[row - firstRow]` for the rows of `batch`, counts `nullKey` and
    /// `duplicateKeys`, and throws where a policy says the run must stop.
    ///
    /// A record whose key a later record of the same batch repeats is not written: the
    /// later one wins anyway, and so an unchanged re-run writes nothing for it. Repeats
    /// farther apart are both written, in order (the later wins), and SQLite tells them:
    /// the later one's conflict lands on a row this run wrote (`TouchedRows`). Without
    /// rowids, or in a dry run, the `KeyLedger` counts them. Either way each repeat is
    /// counted once.
    func decideKeys(
        of batch: RecordBatch, firstRow: Int, shapes: [RowShape], inside: [Bool], inputName: String, into decisions: inout [KeyDecision]
    ) throws {
        decisions.removeAll(keepingCapacity: true)
        decisions.append(contentsOf: repeatElement(.write, count: batch.rowCount - firstRow))
        guard let target else { return }
        fingerprintScratch.removeAll(keepingCapacity: true)
        for row in firstRow ..< batch.rowCount {
            let index = row - firstRow
            let shape = shapes[index]
            let columns = keyColumns(of: shape)
            var fingerprint: UInt64 = 0
            if let value = keyFingerprint(row: row, of: batch, shape: shape, inside: inside[index], seed: 0) {
                fingerprint = value
            } else if target.fallbackKey != nil {
                fingerprint = 0  // a NULL primary key: a new row each time
            } else {
                summary.counts.nullKey += 1
                let position = batch.position(row: row, inputName: inputName)
                let why = inside[index] ? "has a NULL column, which a unique index never matches" : "falls outside the partial index's predicate (WHERE \(target.predicate ?? ""))"
                switch options.nullKey {
                case .error:
                    throw UpsertError.nullKey(position: position, key: describeKey(row: row, of: batch, shape: shape, columns: columns.target), why: why)
                case .skip:
                    decisions[index] = .pass
                    try reject(RejectedRecord(
                        input: position.input, line: position.line, byteOffset: position.byteOffset,
                        reason: "\(position): the record's key \(why) (--null-key skip)", record: batch.rawRecord(row: row)))
                case .insert:
                    if firstNullKey == nil { firstNullKey = position }
                }
            }
            fingerprintScratch.append(fingerprint)
        }
        // The next record of the batch with the same key, found backwards. A second,
        // independent fingerprint confirms the match, so that only equal keys (never a
        // 64-bit collision) make a record superseded.
        nextRowOfKey.removeAll(keepingCapacity: true)
        nextRowScratch.removeAll(keepingCapacity: true)
        nextRowScratch.append(contentsOf: repeatElement(-1, count: batch.rowCount - firstRow))
        for row in stride(from: batch.rowCount - 1, through: firstRow, by: -1) {
            let index = row - firstRow
            let fingerprint = fingerprintScratch[index]
            guard fingerprint != 0 else { continue }
            if let next = nextRowOfKey[fingerprint],
                keyFingerprint(row: row, of: batch, shape: shapes[index], inside: inside[index], seed: 2)
                    == keyFingerprint(row: next, of: batch, shape: shapes[next - firstRow], inside: inside[next - firstRow], seed: 2)
            {
                nextRowScratch[index] = next
            }
            nextRowOfKey[fingerprint] = row
        }
        for row in firstRow ..< batch.rowCount {
            let index = row - firstRow
            let fingerprint = fingerprintScratch[index]
            guard fingerprint != 0 else { continue }
            let shape = shapes[index]
            let next = nextRowScratch[index]
            if next >= 0 {
                decisions[index] = .pass
                try noteDuplicate(
                    earlier: "\(batch.position(row: row, inputName: inputName))", later: batch.position(row: next, inputName: inputName),
                    row: row, of: batch, shape: shape)
            } else if !session!.tracksRowids,
                let previous = keyLedger.insert(fingerprint, position: KeyLedger.pack(input: batch.inputIndex, line: batch.lines[row]))
            {
                let (input, line) = KeyLedger.unpack(previous)
                try noteDuplicate(earlier: "\(inputNames[input]):\(line)", later: batch.position(row: row, inputName: inputName), row: row, of: batch, shape: shape)
            }
        }
    }

    /// The fingerprint of the key that decides `row`'s row: the conflict target's when
    /// the record is inside its predicate with no NULL in it, else the primary key's (when
    /// the input supplies it), else nil. `seed` 0 is the ledger's; another seed gives an
    /// independent fingerprint that confirms a match.
    private func keyFingerprint(row: Int, of batch: RecordBatch, shape: RowShape, inside: Bool, seed: UInt8) -> UInt64? {
        let columns = keyColumns(of: shape)
        if inside, let value = KeyLedger.fingerprint(row: row, of: batch, shape: shape, columns: columns.target, domain: seed) {
            return value
        }
        guard target?.fallbackKey != nil else { return nil }
        return KeyLedger.fingerprint(row: row, of: batch, shape: shape, columns: columns.primaryKey, domain: seed + 1)
    }

    private func noteDuplicate(earlier: String, later: SourcePosition, row: Int, of batch: RecordBatch, shape: RowShape) throws {
        supersededKeys += 1
        guard options.duplicateKeys == .error || firstDuplicate == nil else { return }
        let columns = keyColumns(of: shape)
        let inside = KeyLedger.fingerprint(row: row, of: batch, shape: shape, columns: columns.target, domain: 0) != nil
        let key = describeKey(row: row, of: batch, shape: shape, columns: inside ? columns.target : columns.primaryKey)
        if options.duplicateKeys == .error { throw UpsertError.duplicateKey(earlier: earlier, later: later, key: key) }
        firstDuplicate = "\(earlier) and \(later.input):\(later.line) share \(key)"
    }

    /// `("libraryID", "remoteID") = (1, "r1")`.
    func describeKey(row: Int, of batch: RecordBatch, shape: RowShape, columns: [KeyColumn]) -> String {
        let names = columns.map { shape.statement.columns[$0.position] }
        let values = columns.map { session!.describe(batch.cell(row: row, column: shape.inputColumns[$0.position]), batch) }
        return "(\(SQLIdentifier.quoteList(names))) = (\(values.joined(separator: ", ")))"
    }

    /// The key columns of the target and of the primary-key clause within `shape`.
    func keyColumns(of shape: RowShape) -> (target: [KeyColumn], primaryKey: [KeyColumn]) {
        if let known = shape.keyColumns { return known }
        func columns(_ names: [String], collations: [String]?) -> [KeyColumn] {
            names.enumerated().compactMap { offset, name in
                guard let position = shape.statement.columns.firstIndex(where: { $0.lowercased() == name.lowercased() }) else { return nil }
                return KeyColumn(position: position, affinity: shape.affinities[position], collation: collations?[offset])
            }
        }
        let primaryKey = target?.fallbackKey ?? []
        let primaryKeyCollations = schema?.uniqueKeys.first { $0.origin == .primaryKey }?.collations
        let result = (
            columns(target?.columns ?? [], collations: target?.key.collations),
            columns(primaryKey, collations: primaryKeyCollations)
        )
        shape.keyColumns = result
        return result
    }
}
