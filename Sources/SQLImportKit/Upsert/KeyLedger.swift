/// The keys a run has applied, so that a record repeating an earlier record's key is
/// counted (`duplicateKeys`) and named, instead of collapsing rows without a word.
///
/// Each key is kept as a 64-bit fingerprint of its values, normalised the way the key's
/// index compares them: numbers by value (`1`, `1.0` and the CSV text `1` into an INTEGER
/// column are one key), text under the index's collation (`NOCASE` folds ASCII case,
/// `RTRIM` drops trailing spaces). Next to it sits the position of the record that had it
/// first. An open-addressing table of two `UInt64` arrays: 16 bytes a slot, at most half
/// full, so 32–64 bytes per distinct key. Hand-written because the standard library's
/// `Dictionary` costs about three times that per entry.
///
/// Two distinct keys share a fingerprint with a probability of about n²/2⁶⁵ (3 × 10⁻⁶
/// for 10M keys); such a pair would be counted as a duplicate, never written wrongly:
/// the ledger only counts and names, SQLite alone decides which row a record updates.
final class KeyLedger {
    private var fingerprints: [UInt64]
    private var positions: [UInt64]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 1 << 16) {
        fingerprints = Array(repeating: 0, count: capacity)
        positions = Array(repeating: 0, count: capacity)
        mask = capacity - 1
    }

    /// Records `fingerprint` (never 0) first seen at `position`; returns the position of
    /// the record that had it before, or nil when it is new.
    func insert(_ fingerprint: UInt64, position: UInt64) -> UInt64? {
        if (count + 1) * 2 > fingerprints.count { grow() }
        var slot = Int(truncatingIfNeeded: fingerprint) & mask
        while true {
            let stored = fingerprints[slot]
            if stored == 0 {
                fingerprints[slot] = fingerprint
                positions[slot] = position
                count += 1
                return nil
            }
            if stored == fingerprint { return positions[slot] }
            slot = (slot + 1) & mask
        }
    }

    private func grow() {
        let old = (fingerprints, positions)
        fingerprints = Array(repeating: 0, count: old.0.count * 2)
        positions = Array(repeating: 0, count: old.0.count * 2)
        mask = fingerprints.count - 1
        count = 0
        for (fingerprint, position) in zip(old.0, old.1) where fingerprint != 0 { _ = insert(fingerprint, position: position) }
    }

    /// Packs an input number and a line into one word for `insert`.
    static func pack(input: Int, line: Int) -> UInt64 { UInt64(input) << 40 | UInt64(line & 0xFF_FFFF_FFFF) }
    static func unpack(_ position: UInt64) -> (input: Int, line: Int) { (Int(position >> 40), Int(position & 0xFF_FFFF_FFFF)) }
}

/// How one key column compares values: its affinity (for numeric text) and collation.
struct KeyColumn {
    var position: Int
    var affinity: ColumnAffinity
    var foldsCase: Bool
    var trimsTrailingSpaces: Bool

    init(position: Int, affinity: ColumnAffinity, collation: String?) {
        self.position = position
        self.affinity = affinity
        let collation = (collation ?? "BINARY").uppercased()
        foldsCase = collation == "NOCASE"
        trimsTrailingSpaces = collation == "RTRIM"
    }
}

extension KeyLedger {
    /// The fingerprint of `row`'s values in `columns`, or nil when one is NULL (a NULL
    /// never equals anything in a unique index). Never 0.
    /// - Parameter domain: keeps the target's keys apart from the primary key's.
    static func fingerprint(row: Int, of batch: RecordBatch, shape: RowShape, columns: [KeyColumn], domain: UInt8) -> UInt64? {
        guard !columns.isEmpty else { return nil }
        var hasher = Hasher()
        hasher.combine(domain)
        for column in columns {
            let cell = batch.cell(row: row, column: shape.inputColumns[column.position])
            switch cell.kind {
            case .absent, .null:
                return nil
            case .integer where column.affinity == .text:
                // TEXT affinity stores an integer as its decimal text.
                combine(text: Array(String(cell.payload).utf8), column: column, into: &hasher)
            case .integer:
                hasher.combine(0 as UInt8)
                hasher.combine(cell.payload)
            case .real:
                combine(number: cell.doubleValue, into: &hasher)
            case .text, .untypedText, .json, .numberAsText:
                batch.withText(cell) { text in
                    // INTEGER, REAL and NUMERIC affinity store numeric-looking text as a number.
                    let isNumeric = column.affinity == .integer || column.affinity == .real || column.affinity == .numeric
                    if cell.kind != .json, cell.kind != .numberAsText, isNumeric {
                        if case .value(let value) = NumberText.parseInteger(text) {
                            hasher.combine(0 as UInt8)
                            hasher.combine(value)
                            return
                        }
                        if NumberText.isNumberSyntax(text), let value = NumberText.parseDouble(text) {
                            combine(number: value, into: &hasher)
                            return
                        }
                    }
                    combine(text: text, column: column, into: &hasher)
                }
            }
        }
        let value = UInt64(bitPattern: Int64(hasher.finalize()))
        return value == 0 ? 1 : value
    }

    /// Text compares under the column's collation.
    private static func combine<Text: Collection<UInt8>>(text: Text, column: KeyColumn, into hasher: inout Hasher) where Text.Index == Int {
        hasher.combine(2 as UInt8)
        var end = text.count
        if column.trimsTrailingSpaces { while end > 0 && text[end - 1] == UInt8(ascii: " ") { end -= 1 } }
        for index in 0 ..< end {
            let byte = text[index]
            hasher.combine(column.foldsCase && byte >= 65 && byte <= 90 ? byte | 0x20 : byte)
        }
        hasher.combine(end)
    }

    /// Numbers compare by value whatever their storage class: an integral Double hashes
    /// as the integer.
    private static func combine(number: Double, into hasher: inout Hasher) {
        if number == number.rounded(), abs(number) < 9.2e18 {
            hasher.combine(0 as UInt8)
            hasher.combine(Int64(number))
        } else {
            hasher.combine(1 as UInt8)
            hasher.combine(number.bitPattern)
        }
    }
}
