/// Gives each field name of the input a stable column number, on the reading thread.
///
/// Records of one file nearly always list their keys in the same order, so the namer
/// remembers which column the n-th key of the previous record had and checks the bytes
/// against it before falling back to a dictionary: no String is built per field.
final class ColumnNamer {
    private(set) var names: [String] = []
    private var nameBytes: [[UInt8]] = []
    private var numbers: [String: Int] = [:]
    private var columnAtSlot: [Int] = []

    init(existing: [String] = []) {
        for name in existing { _ = add(name) }
    }

    /// The column number of the field `key`, the `slot`-th field of its record.
    @inline(__always)
    func column(for key: UnsafeBufferPointer<UInt8>, slot: Int, batch: RecordBatch) -> Int {
        if slot < columnAtSlot.count {
            let guess = columnAtSlot[slot]
            if nameBytes[guess].withUnsafeBufferPointer({ $0.elementsEqual(key) }) { return guess }
        }
        let name = String(decoding: key, as: UTF8.self)
        let column: Int
        if let known = numbers[name] {
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
        nameBytes.append(Array(name.utf8))
        numbers[name] = number
        return number
    }
}
