/// Gives each field name of the input a stable column number, on the reading thread.
///
/// Records of one file nearly always list their keys in the same order, so the namer
/// remembers which column the n-th key of the previous record had and checks the bytes
/// against it before falling back to a dictionary: no String is built per field.
final class ColumnNamer {
    private(set) var names: [String] = []
    /// Every name's UTF-8 bytes, back to back; name `c` is `nameBytes[nameStarts[c] ..< nameStarts[c + 1]]`.
    private let nameBytes = ByteStore(capacity: 4096)
    private let nameStarts = GrowableBuffer<Int>(capacity: 256)
    /// By exact bytes: two names Swift finds equal (canonically equivalent) are two fields.
    private var numbers: [NameKey: Int] = [:]
    /// The column of the n-th field of the previous record.
    private let columnAtSlot = GrowableBuffer<Int>(capacity: 256)
    /// `ReaderOptions.exactNumberFields`, and for each column whether it is one.
    var exactNumberFields: Set<String>? = []
    private(set) var keepsExactNumbers: [Bool] = []
    /// `ReaderOptions.numberTextFields`, and for each column its rule.
    var numberTextFields: [String: NumberSpelling] = [:]
    private(set) var numberSpellings: [NumberSpelling] = []

    init(existing: [String] = []) {
        nameStarts.append(0)
        for name in existing { _ = add(name) }
    }

    /// The column number of the field `key`, the `slot`-th field of its record.
    @inline(__always)
    func column(for key: UnsafeBufferPointer<UInt8>, slot: Int, batch: RecordBatch) -> Int {
        if slot < columnAtSlot.count {
            let guess = columnAtSlot[slot]
            let start = nameStarts[guess]
            if nameStarts[guess + 1] - start == key.count, key.count == 0 || memcmp(nameBytes.base + start, key.baseAddress!, key.count) == 0 {
                return guess
            }
        }
        let name = String(decoding: key, as: UTF8.self)
        let column: Int
        if let known = numbers[NameKey(name)] {
            column = known
        } else {
            column = add(name)
            batch.newColumns.append(name)
        }
        if slot < columnAtSlot.count {
            columnAtSlot[slot] = column
        } else {
            while columnAtSlot.count < slot { columnAtSlot.append(0) }
            columnAtSlot.append(column)
        }
        return column
    }

    private func add(_ name: String) -> Int {
        let number = names.count
        names.append(name)
        nameBytes.append(contentsOf: name.utf8)
        nameStarts.append(nameBytes.count)
        numbers[NameKey(name)] = number
        // A nested field (`meta` U+001F `price`) by its leaf, or as `meta_price`.
        let lowered = name.lowercased()
        let path = lowered.split(separator: Character(FieldPath.separatorString), omittingEmptySubsequences: false)
        let names = [lowered, String(path.last ?? ""), path.joined(separator: "_")]
        keepsExactNumbers.append(exactNumberFields.map { fields in names.contains(where: fields.contains) } ?? true)
        // By the whole name only: a nested field lands in a column that `--flatten-by`
        // names, which its leaf or path may not be (`meta.price` into REAL `meta_price`
        // beside a TEXT `price` was refused as a number kept with its digits).
        numberSpellings.append(path.count == 1 ? numberTextFields[lowered] ?? .value : .value)
        return number
    }
}

/// How a JSON number of a field is read (`ReaderOptions.numberTextFields`).
package enum NumberSpelling: Sendable {
    /// The integer or double it is (or its text past both, counted).
    case value
    /// Its text as written where a double does not keep its digits.
    case writtenWhereDigitsAreLost
    /// Its text as written.
    case written
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
