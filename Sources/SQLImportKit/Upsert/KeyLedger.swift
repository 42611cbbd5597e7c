/// The keys a run has applied, so that a record repeating an earlier record's key is
/// counted (`duplicateKeys`) and named, instead of collapsing rows without a word. Used
/// where SQLite cannot tell it by rowid (`TouchedRows`): WITHOUT ROWID tables and dry
/// runs. (`KeyLedger.fingerprint` also finds repeats within a batch, for every table.)
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

    /// Forgets `fingerprint`: the row of that key was deleted (a tombstone), so the next
    /// record with it makes a new row, no repeat. Backward-shift deletion keeps every
    /// later key of the probe sequence findable.
    func remove(_ fingerprint: UInt64) {
        var hole = Int(truncatingIfNeeded: fingerprint) & mask
        while fingerprints[hole] != fingerprint {
            if fingerprints[hole] == 0 { return }
            hole = (hole + 1) & mask
        }
        var next = (hole + 1) & mask
        while fingerprints[next] != 0 {
            // A key moves into the hole when its probe from its home slot passes the hole.
            let home = Int(truncatingIfNeeded: fingerprints[next]) & mask
            if (next - home) & mask >= (next - hole) & mask {
                fingerprints[hole] = fingerprints[next]
                positions[hole] = positions[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        fingerprints[hole] = 0
        positions[hole] = 0
        count -= 1
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
    /// The index's collation (`BINARY` when it names none).
    var collation: String

    init(position: Int, affinity: ColumnAffinity, collation: String?) {
        self.position = position
        self.affinity = affinity
        let collation = (collation ?? "BINARY").uppercased()
        self.collation = collation
        foldsCase = collation == "NOCASE"
        trimsTrailingSpaces = collation == "RTRIM"
    }
}

/// A fast 64-bit hash for key fingerprints: 8 bytes a step, multiply-xorshift mixing and
/// the SplitMix64 finaliser. Hand-written because the standard library's `Hasher`
/// (SipHash, fed a byte at a time for folded text) cost a tenth of a re-run's time.
struct KeyHasher {
    private var state: UInt64

    init(seed: UInt8) { state = 0x9E37_79B9_7F4A_7C15 &* (UInt64(seed) &+ 1) }

    @inline(__always) mutating func combine(_ value: UInt64) {
        state = (state ^ value) &* 0xBF58_476D_1CE4_E5B9
        state ^= state >> 31
    }

    /// `text` as its index compares it: ASCII case folded for NOCASE, trailing spaces
    /// dropped for RTRIM.
    mutating func combine(text: UnsafeRawBufferPointer, foldsCase: Bool, trimsTrailingSpaces: Bool) {
        var end = text.count
        if trimsTrailingSpaces { while end > 0 && text[end - 1] == UInt8(ascii: " ") { end -= 1 } }
        combine(2)
        combine(UInt64(end))
        var index = 0
        while index + 8 <= end {
            var word = text.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            if foldsCase { word = Self.foldASCII(word) }
            combine(word)
            index += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while index < end {
            var byte = text[index]
            if foldsCase && byte >= 65 && byte <= 90 { byte |= 0x20 }
            tail |= UInt64(byte) << shift
            shift += 8
            index += 1
        }
        combine(tail)
    }

    /// Lower-cases the ASCII capitals of eight bytes at once.
    @inline(__always) private static func foldASCII(_ word: UInt64) -> UInt64 {
        let high: UInt64 = 0x8080_8080_8080_8080
        let ascii = ~word & high  // bytes below 0x80
        let aboveA = (word & ~high) &+ 0x3F3F_3F3F_3F3F_3F3F  // byte + 0x3F >= 0x80 when byte >= 'A'
        let aboveZ = (word & ~high) &+ 0x2525_2525_2525_2525  // byte + 0x25 >= 0x80 when byte > 'Z'
        let capitals = ascii & aboveA & ~aboveZ & high
        return word | (capitals >> 2)
    }

    @inline(__always) func finalize() -> UInt64 {
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension KeyLedger {
    /// The fingerprint of `row`'s values in `columns`, or nil when one is NULL (a NULL
    /// never equals anything in a unique index). Never 0.
    /// - Parameter domain: keeps the target's keys apart from the primary key's, and
    ///   gives independent fingerprints of one key.
    static func fingerprint(row: Int, of batch: RecordBatch, shape: RowShape, columns: [KeyColumn], domain: UInt8) -> UInt64? {
        guard !columns.isEmpty else { return nil }
        var hasher = KeyHasher(seed: domain)
        for column in columns {
            let cell = batch.cell(row: row, column: shape.inputColumns[column.position])
            switch cell.kind {
            case .absent, .null:
                return nil
            case .integer where column.affinity == .text:
                // TEXT affinity stores an integer as its decimal text.
                NumberText.withDecimalDigits(of: cell.payload) { hasher.combine(text: $0, foldsCase: false, trimsTrailingSpaces: false) }
            case .integer:
                hasher.combine(0)
                hasher.combine(UInt64(bitPattern: cell.payload))
            case .real:
                combine(number: cell.doubleValue, into: &hasher)
            case .text, .untypedText, .json, .numberAsText:
                batch.withText(cell) { text in
                    // INTEGER, REAL and NUMERIC affinity store numeric-looking text as a number.
                    // So does the binder with CSV text into a column without affinity.
                    let isNumeric = column.affinity == .integer || column.affinity == .real || column.affinity == .numeric
                        || column.affinity == .blob && cell.kind == .untypedText && !NumberText.hasLeadingZero(text)
                    if cell.kind != .json, cell.kind != .numberAsText, isNumeric {
                        // What the binder makes of the text (`StatementBinder`): the number
                        // the column's affinity reads, ` 20` and `+20` as 20 too (they were
                        // fingerprinted as text, and a repeat of `20` went uncounted).
                        switch column.affinity == .blob ? NumberText.typelessNumber(text) : NumberText.affinityNumber(text) {
                        case .integer(let value):
                            hasher.combine(0)
                            hasher.combine(UInt64(bitPattern: value))
                            return
                        case .real(let value):
                            combine(number: value, into: &hasher)
                            return
                        case .notANumber, .bigInteger, .unrepresentable:
                            break  // text; or a number the binder refuses
                        }
                    }
                    hasher.combine(text: text, foldsCase: column.foldsCase, trimsTrailingSpaces: column.trimsTrailingSpaces)
                }
            }
        }
        let value = hasher.finalize()
        return value == 0 ? 1 : value
    }

    /// Whether `row`'s fingerprint over `columns` is certain to be equal to that of every
    /// record SQLite would store under the same key: false for the spellings the
    /// fingerprint does not normalise as SQLite's affinity does (a REAL into a TEXT
    /// column, which SQLite renders as text; text a numeric column may convert, such as
    /// ` 1`, `+1`, `1.` or `.5`). Counting tolerates those (`KeyLedger`); a first load that
    /// runs plain inserts on the strength of the fingerprint does not (`FingerprintSet`).
    static func isExact(row: Int, of batch: RecordBatch, shape: RowShape, columns: [KeyColumn]) -> Bool {
        for column in columns {
            let cell = batch.cell(row: row, column: shape.inputColumns[column.position])
            switch cell.kind {
            case .real where column.affinity == .text:
                return false
            case .text, .untypedText:
                let numeric = column.affinity == .integer || column.affinity == .real || column.affinity == .numeric
                    || column.affinity == .blob && cell.kind == .untypedText
                guard numeric else { continue }
                let exact = batch.withText(cell) { text -> Bool in
                    if case .value = NumberText.parseInteger(text) { return true }
                    if NumberText.isNumberSyntax(text) { return true }
                    // Text that is not a number by JSON's syntax stays text unless it
                    // starts, after spaces, like one.
                    var index = 0
                    while index < text.count, text[index] == UInt8(ascii: " ") || text[index] &- 9 < 5 { index += 1 }
                    guard index < text.count else { return index == 0 }
                    let first = text[index]
                    return !(first &- UInt8(ascii: "0") < 10 || first == UInt8(ascii: "+") || first == UInt8(ascii: "-") || first == UInt8(ascii: "."))
                }
                if !exact { return false }
            default:
                continue
            }
        }
        return true
    }

    /// Numbers compare by value whatever their storage class: an integral Double hashes
    /// as the integer.
    private static func combine(number: Double, into hasher: inout KeyHasher) {
        if number == number.rounded(), abs(number) < 9.2e18 {
            hasher.combine(0)
            hasher.combine(UInt64(bitPattern: Int64(number)))
        } else {
            hasher.combine(1)
            hasher.combine(number.bitPattern)
        }
    }
}
