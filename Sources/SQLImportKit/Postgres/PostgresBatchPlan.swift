/// How one batch's records are applied, decided in input order on the writing thread, as
/// the SQLite target decides it (`ImportRun+Keys`):
/// - every record gets a round: one more than the latest earlier record of the batch
///   sharing either key, so that no statement touches a row twice and records of one row
///   apply in input order, each written, as one plain upsert per record would (none is
///   dropped for a later one: its constraint failure would go unreported);
/// - a record is a repeat when it lands on a row an earlier record of the run landed on,
///   as far as the keys tell it (SQLite counts by the rows touched; see `countingKeys`).
struct PostgresBatchPlan {
    /// Per row: its round (1, 2, ...).
    var rounds: [Int32]
    /// Records landing on a row an earlier record of the run landed on.
    var repeats = 0
    /// True when a record shares either key with an earlier record of the run.
    var meetsEarlierKeys = false
    /// True when a key is shared by records of different shapes: the batch is then
    /// applied in runs of consecutive records of one shape, in input order.
    var shapesShareKeys = false
    /// What this batch did to `seen`, in order: each key added (`wasPresent` false) or
    /// taken out by a tombstone (true). A rolled-back batch undoes it in reverse.
    var undo: [(key: Int, wasPresent: Bool)] = []
    /// The keys a tombstone took out of the keys met that no later record of the batch
    /// marked again: the server's copy forgets them too (`seen` holds only the keys of
    /// the batch's other records there).
    var forgotten: Set<Int> = []

    /// - Parameters:
    ///   - keys: per row, the hashes of its complete conflict-target key and of its
    ///     complete primary key (nil where a column is NULL or missing).
    ///   - shapes: per row, a number naming its shape.
    ///   - tombstones: the rows that are tombstones (`--tombstone`).
    ///   - seen: the hashes of the keys earlier batches met (updated).
    ///   - duplicate: called for the first repeat when repeats are errors, with the rows.
    ///   - linking: per row (or empty), the hash its target key would have were it inside
    ///     a partial target, for a record outside it (nil otherwise). It orders rounds
    ///     only: such a record may move the row holding that key out of the predicate
    ///     (`deletedAt` set), so a later record of the key must wait for it, or it would
    ///     update the row the earlier one then takes out, instead of inserting its own.
    init(
        keys: [(target: Int?, primary: Int?)], shapes: [Int], tombstones: Set<Int> = [], seen: inout Set<Int>,
        linking: [Int?] = [], duplicate: ((_ earlier: Int?, _ later: Int) throws -> Void)?
    ) rethrows {
        let count = keys.count
        rounds = Array(repeating: 1, count: count)
        // Per-row arrays and growing dictionaries were a tenth of a first load's writing
        // thread: the keys are handled one by one, and the dictionaries sized once.
        var latest: [Int: (round: Int32, row: Int)] = [:]
        latest.reserveCapacity(count * 2)
        var lastWritten: [Int: (round: Int32, row: Int)] = [:]
        lastWritten.reserveCapacity(count * 2)
        var shapeOfKey: [Int: Int] = [:]
        shapeOfKey.reserveCapacity(count * 2)
        var lastLanded: [Int: Int] = [:]
        lastLanded.reserveCapacity(count * 2)
        for row in 0 ..< count {
            let (target, primary) = keys[row]
            let link = row < linking.count ? linking[row] : nil
            for key in [target, primary, link] {
                guard let key else { continue }
                if let shape = shapeOfKey.updateValue(shapes[row], forKey: key), shape != shapes[row] { shapesShareKeys = true }
            }
            var earlier: (round: Int32, row: Int)?
            // The latest earlier record that wrote (not a tombstone), for the count.
            var written: (round: Int32, row: Int)?
            var seenBefore = false
            for key in [target, primary] {
                guard let key else { continue }
                if let found = latest[key], found.round > (earlier?.round ?? 0) { earlier = found }
                if let found = lastWritten[key], found.round > (written?.round ?? 0) { written = found }
                if seen.contains(key) { seenBefore = true }
            }
            if let link, let found = latest[link], found.round > (earlier?.round ?? 0) { earlier = found }
            rounds[row] = (earlier?.round ?? 0) + 1
            for key in [target, primary, link] {
                guard let key else { continue }
                latest[key] = (rounds[row], row)
            }
            // A tombstone is no repeat, and takes its key out of the keys met: its row is
            // deleted, so a later record of the key makes a new row, no repeat, as on
            // SQLite. It keeps its place in the rounds.
            if !tombstones.isEmpty && tombstones.contains(row) {
                let counting = Self.countingKeys(keys[row])
                for probe in [counting.probes.0, counting.probes.1] {
                    guard let probe else { continue }
                    lastLanded[probe] = nil
                    if seen.remove(probe) != nil { undo.append((probe, true)) }
                    forgotten.insert(probe)
                }
                continue
            }
            if written != nil || seenBefore { meetsEarlierKeys = true }
            let counting = Self.countingKeys(keys[row])
            var landedBefore: Int??
            for probe in [counting.probes.0, counting.probes.1] {
                guard let probe else { continue }
                if let earlier = lastLanded[probe] { landedBefore = .some(max(earlier, landedBefore.flatMap { $0 } ?? earlier)) }
                else if landedBefore == nil, seen.contains(probe) { landedBefore = .some(nil) }
            }
            if let landedBefore {
                repeats += 1
                do {
                    try duplicate?(landedBefore, row)
                } catch {
                    // The keys met are as they were (the batch may be written again).
                    for (key, wasPresent) in undo.reversed() {
                        if wasPresent { seen.insert(key) } else { seen.remove(key) }
                    }
                    throw error
                }
            }
            for key in [target, primary] {
                guard let key else { continue }
                lastWritten[key] = (rounds[row], row)
                if seen.insert(key).inserted { undo.append((key, false)) }
            }
            if let mark = counting.mark {
                lastLanded[mark] = row
                if !forgotten.isEmpty { forgotten.remove(mark) }
                if seen.insert(mark).inserted { undo.append((mark, false)) }
            }
        }
    }

    /// Which hashes tell that a record lands on a row an earlier one landed on (`probes`),
    /// and which it leaves for later records (`marks`). Only what the keys prove counts:
    /// - a record with a complete target key (inside a partial target) lands on the row
    ///   holding that key, whose primary key may be another (a stored row's): it repeats
    ///   an earlier record of the same target key, or an earlier record routed by its
    ///   primary key (that row has it; the identity rule sends the record there or
    ///   refuses it). It marks its target key only: its own primary key may be unwritten.
    /// - a record routed by its primary key lands on the row holding it: it repeats an
    ///   earlier record routed by the same primary key.
    /// A record routed by its primary key after a record of the target that inserted a
    ///   row with that primary key repeats it, and is not counted: only the server knows
    ///   that the target inserted (docs/postgresql.md).
    /// (Two probes and one mark at most, without an array per record: the plan runs for
    /// every record on the writing thread.)
    static func countingKeys(_ key: (target: Int?, primary: Int?)) -> CountingKeys {
        let routedByPrimary = key.primary.map { primary in
            var hasher = Hasher()
            hasher.combine(4 as UInt8)
            hasher.combine(primary)
            return hasher.finalize()
        }
        if let target = key.target { return CountingKeys(probes: (target, routedByPrimary), mark: target) }
        return CountingKeys(probes: (routedByPrimary, nil), mark: routedByPrimary)
    }

    struct CountingKeys {
        var probes: (Int?, Int?)
        var mark: Int?
        var probeList: [Int] { [probes.0, probes.1].compactMap { $0 } }
    }
}
