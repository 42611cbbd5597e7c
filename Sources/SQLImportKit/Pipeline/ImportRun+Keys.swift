/// What the write loop knows of each record's key before it writes: whether the conflict
/// target (or the primary-key clause) can match it, and whether another record of the
/// batch has the same key.
extension ImportRun {
    /// A record's fate, decided before its batch is written.
    enum KeyDecision: UInt8 {
        case write
        /// Set aside (`--null-key skip`, or rejected already): not written at all.
        case pass
    }

    /// Decides `plan.decisions[row - firstRow]` for `rows` of `batch`, counts `nullKey`
    /// and repeated keys, and throws where a policy says the run must stop.
    ///
    /// Every record is written, in order, a repeated key too (the later record wins):
    /// SQLite tells the repeat, whose conflict lands on a row this run wrote
    /// (`TouchedRows`); without rowids, or in a dry run, the `KeyLedger` counts it. Either
    /// way each repeat is counted once. (An earlier version did not write a record that a
    /// later one of the same batch repeated. That left the same row only when nothing but
    /// the row could tell: the earlier record's constraint failure went unreported, a new
    /// row took the later record's place in the rowid order, and `1.0` replaced the key
    /// `1` that SQLite keeps. SilentlyWrongRowTests has the cases.)
    func decideKeys(of batch: RecordBatch, rows: Range<Int>, inputName: String, plan: inout BatchPlan) throws {
        let firstRow = rows.lowerBound
        let count = rows.count
        plan.decisions.removeAll(keepingCapacity: true)
        plan.decisions.append(contentsOf: repeatElement(.write, count: count))
        plan.next.removeAll(keepingCapacity: true)
        plan.next.append(contentsOf: repeatElement(-1, count: count))
        for index in plan.setAside { plan.decisions[index] = .pass }
        guard let target else { return }
        plan.fingerprints.removeAll(keepingCapacity: true)
        for index in 0 ..< count {
            let row = firstRow + index
            if !plan.setAside.isEmpty && plan.setAside.contains(index) || !plan.tombstones.isEmpty && plan.tombstones.contains(index) {
                plan.fingerprints.append(0)  // rejected already, or a deletion: no key to repeat
                continue
            }
            if let value = keyFingerprint(row: row, of: batch, shape: plan.shapes[index], inside: plan.inside[index]) {
                plan.fingerprints.append(value)
                continue
            }
            plan.fingerprints.append(0)
            // Neither its target key nor its primary key can match a row: a NULL (or
            // omitted) primary key makes a new row each time, as SQLite does, and so did
            // every re-run, uncounted, while other records of the input had the key. (One
            // omitted with a DEFAULT gets it, which may match.)
            if target.fallbackKey != nil, omitsAPrimaryKeyColumnWithADefault(plan.shapes[index]) { continue }
            summary.counts.nullKey += 1
            let position = batch.position(row: row, inputName: inputName)
            let why = plan.inside[index]
                ? "has a NULL column, which a unique index never matches"
                : "falls outside the partial index's predicate (WHERE \(target.predicate ?? ""))"
            switch options.nullKey {
            case .error:
                let shape = plan.shapes[index]
                let primaryKey = Set((schema?.primaryKey ?? []).map(\.sqliteFolded))
                throw UpsertError.nullKey(
                    position: position, key: describeTargetKey(row: row, of: batch, shape: shape), why: why,
                    isPrimaryKey: !primaryKey.isEmpty && Set(target.columns.map(\.sqliteFolded)) == primaryKey)
            case .skip:
                plan.decisions[index] = .pass
                try reject(RejectedRecord(row: row, of: batch, at: position, reason: "\(position): the record's key \(why) (--null-key skip)"))
            case .insert:
                if firstNullKey == nil { firstNullKey = position }
            }
        }
        // The next record of the batch with the same key, found backwards: records with
        // the same key are never written by one multi-row statement (`plan.next`, see
        // `ImportRun.write`), since SQLite checks foreign keys at the end of a statement,
        // so a later record could excuse an earlier one's violation.
        plan.keys.reset(capacityFor: count)
        for index in stride(from: count - 1, through: 0, by: -1) {
            let fingerprint = plan.fingerprints[index]
            guard fingerprint != 0, let next = plan.keys.exchange(fingerprint, index: index) else { continue }
            plan.next[index] = next
        }
    }

    /// Counts the repeats among `rows`, once written, where SQLite cannot (no rowids, or a
    /// dry run): the `KeyLedger` learns each written record's key. A record set aside
    /// while writing (`rowsRejectedWhileWriting`) is no earlier record of a repeat, as
    /// where SQLite counts them by the rows the records land on. (Learned before writing,
    /// a rejected record's key made the next record with it a repeat: a count too many,
    /// and `--duplicate-keys error` stopped the run.)
    func countRepeatsInLedger(of batch: RecordBatch, rows: Range<Int>, inputName: String, plan: BatchPlan) throws {
        guard target != nil, !(session?.tracksRowids ?? false) else { return }
        for index in 0 ..< rows.count {
            let fingerprint = plan.fingerprints[index]
            let row = rows.lowerBound + index
            guard plan.decisions[index] == .write, !rowsRejectedWhileWriting.contains(row) else { continue }
            if !plan.tombstones.isEmpty && plan.tombstones.contains(index) {
                // A tombstone that deleted its row: the next record of that key makes a new
                // row, as where SQLite counts repeats by rowid.
                guard rowsDeletedByTombstones.contains(row) else { continue }
                let columns = keyColumns(of: plan.shapes[index])
                for (key, domain) in [(columns.target, UInt8(0)), (columns.primaryKey, UInt8(1))] {
                    if let value = KeyLedger.fingerprint(row: row, of: batch, shape: plan.shapes[index], columns: key, domain: domain) {
                        keyLedger.remove(value)
                    }
                }
                continue
            }
            guard fingerprint != 0 else { continue }
            if let previous = keyLedger.insert(fingerprint, position: KeyLedger.pack(input: batch.inputIndex, line: batch.lines[row])) {
                let (input, line) = KeyLedger.unpack(previous)
                try noteDuplicate(
                    earlier: "\(inputNames[input]):\(line)", later: batch.position(row: row, inputName: inputName), row: row, of: batch,
                    shape: plan.shapes[index], inside: plan.inside[index])
            }
        }
    }

    /// Whether `shape` lacks a primary-key column that has a DEFAULT other than NULL.
    private func omitsAPrimaryKeyColumnWithADefault(_ shape: RowShape) -> Bool {
        guard let schema else { return false }
        return schema.primaryKey.contains { name in
            !shape.statement.columns.contains { $0.sqliteFolded == name.sqliteFolded }
                && (schema.columnIndex(named: name).flatMap { schema.columns[$0].defaultSQL }.map { $0.uppercased() != "NULL" } ?? false)
        }
    }

    /// The fingerprint of the key that decides `row`'s row: the conflict target's when
    /// the record is inside its predicate with no NULL in it, else the primary key's (when
    /// the input supplies it), else nil.
    @inline(__always)
    func keyFingerprint(row: Int, of batch: RecordBatch, shape: RowShape, inside: Bool) -> UInt64? {
        let columns = keyColumns(of: shape)
        if inside, let value = KeyLedger.fingerprint(row: row, of: batch, shape: shape, columns: columns.target, domain: 0) {
            return value
        }
        guard target?.fallbackKey != nil else { return nil }
        return KeyLedger.fingerprint(row: row, of: batch, shape: shape, columns: columns.primaryKey, domain: 1)
    }

    /// Counts a repeat the `KeyLedger` found, and names the first for the warning, or
    /// stops the run (`--duplicate-keys error`).
    private func noteDuplicate(earlier: String, later: SourcePosition, row: Int, of batch: RecordBatch, shape: RowShape, inside: Bool) throws {
        ledgerRepeats += 1
        guard options.duplicateKeys == .error || firstDuplicate == nil else { return }
        let columns = keyColumns(of: shape)
        let byTarget = inside && KeyLedger.fingerprint(row: row, of: batch, shape: shape, columns: columns.target, domain: 0) != nil
        let key = describeKey(row: row, of: batch, shape: shape, columns: byTarget ? columns.target : columns.primaryKey)
        if options.duplicateKeys == .error { throw UpsertError.duplicateKey(earlier: earlier, later: later, key: key) }
        firstDuplicate = "\(earlier) and \(later.input):\(later.line) share \(key)"
    }

    /// The target's key of a record, a column it omits named `absent`:
    /// `("org", "email") = (absent, "b@x")`. (A key with an omitted column printed as
    /// `() = ()`.)
    func describeTargetKey(row: Int, of batch: RecordBatch, shape: RowShape) -> String {
        let names = target?.columns ?? []
        let values = names.map { name -> String in
            guard let position = shape.statement.columns.firstIndex(where: { $0.sqliteFolded == name.sqliteFolded }) else { return "absent" }
            return batch.describe(batch.cell(row: row, column: shape.inputColumns[position]))
        }
        return "(\(SQLIdentifier.quoteList(names))) = (\(values.joined(separator: ", ")))"
    }

    /// `("libraryID", "remoteID") = (1, "r1")`.
    func describeKey(row: Int, of batch: RecordBatch, shape: RowShape, columns: [KeyColumn]) -> String {
        session!.describeKey(row: row, of: batch, shape: shape, columns: columns)
    }

    /// The key columns of the target and of the primary-key clause within `shape`.
    @inline(__always)
    func keyColumns(of shape: RowShape) -> RowShape.KeyColumns {
        if let known = shape.keyColumns { return known }
        func present(_ names: [String], collations: [String]?) -> [KeyColumn] {
            names.enumerated().compactMap { offset, name in
                guard let position = shape.statement.columns.firstIndex(where: { $0.sqliteFolded == name.sqliteFolded }) else { return nil }
                return KeyColumn(position: position, affinity: shape.affinities[position], collation: collations?[offset])
            }
        }
        func complete(_ names: [String], collations: [String]?) -> [KeyColumn] {
            let found = present(names, collations: collations)
            return found.count == names.count ? found : []
        }
        let primaryKeyCollations = schema?.uniqueKeys.first { $0.origin == .primaryKey }?.collations
        let result = RowShape.KeyColumns(
            target: complete(target?.columns ?? [], collations: target?.key.collations),
            primaryKey: complete(target?.fallbackKey ?? [], collations: primaryKeyCollations))
        shape.keyColumns = result
        return result
    }
}

/// The write loop's scratch for one batch, reused from batch to batch. The loop moves it
/// into a local variable, so that its arrays are not class properties, each access of
/// which Swift checks for exclusivity at run time.
struct BatchPlan {
    /// Each record's shape and whether it is inside the target's partial predicate.
    var shapes: [RowShape] = []
    var inside: [Bool] = []
    /// Records rejected before their keys are decided (`--on-error skip`).
    var setAside = Set<Int>()
    /// Tombstones (`--tombstone`): they delete their rows, in order with the others.
    var tombstones = Set<Int>()
    /// `KeyDecision` of each record.
    var decisions: [ImportRun.KeyDecision] = []
    var fingerprints: [UInt64] = []
    /// The next record of the batch with the same key, or -1.
    var next: [Int] = []
    var keys = BatchKeyTable()
}

/// Fingerprints of one batch's keys, each with the row that had it last: an
/// open-addressing table cleared per batch, so no allocation and no SipHash per record.
struct BatchKeyTable {
    private var fingerprints: [UInt64] = []
    private var rows: [Int32] = []
    private var mask = 0

    mutating func reset(capacityFor count: Int) {
        var capacity = 16
        while capacity < count * 2 { capacity <<= 1 }
        if fingerprints.count != capacity {
            fingerprints = Array(repeating: 0, count: capacity)
            rows = Array(repeating: 0, count: capacity)
        } else {
            for slot in fingerprints.indices { fingerprints[slot] = 0 }
        }
        mask = capacity - 1
    }

    /// Stores `index` for `fingerprint` (never 0); returns the index stored before, if any.
    @inline(__always)
    mutating func exchange(_ fingerprint: UInt64, index: Int) -> Int? {
        var slot = Int(truncatingIfNeeded: fingerprint) & mask
        while true {
            let stored = fingerprints[slot]
            if stored == 0 {
                fingerprints[slot] = fingerprint
                rows[slot] = Int32(index)
                return nil
            }
            if stored == fingerprint {
                let previous = Int(rows[slot])
                rows[slot] = Int32(index)
                return previous
            }
            slot = (slot + 1) & mask
        }
    }
}
