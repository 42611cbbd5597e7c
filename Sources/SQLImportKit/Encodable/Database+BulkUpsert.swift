import Foundation
import GRDB

extension Database {
    /// Upserts `Encodable` values into `table` through the same planner as
    /// `sqlimport import`, with the `typed` write strategy: each value is checked
    /// against its column's declared type, and a failure names the column, the type,
    /// the value and the record's position (1-based) in the sequence.
    ///
    /// ```swift
    /// try dbQueue.write { db in
    ///     try db.bulkUpsert(items, into: "items", onConflict: ["libraryID", "remoteID"])
    /// }
    /// ```
    ///
    /// Runs in a savepoint (or a transaction when none is open): on error nothing of the
    /// call is applied. A missing table is created from the values, as the CLI does.
    ///
    /// A nested struct or enum whose property name is not a column of an existing table
    /// is flattened as `--flatten` does (SQLiteData's shapes): a `@Selection` column
    /// group fills its columns by leaf name (`timestamps.createdAt` → `createdAt`), an
    /// enum with associated values fills its case's columns and sets the other cases'
    /// columns to NULL. Name an enum's columns with `enums` (as `--enum` does) when the
    /// values may not show every case; otherwise they are recognised as the CLI does. A
    /// nested value whose property names a column, or any nested value when the table
    /// is created, is stored as JSON text.
    @discardableResult
    public func bulkUpsert<Values: Sequence>(
        _ values: Values, into table: String, onConflict key: [String]? = nil, merge: MergePolicy = .replace,
        enums: [EnumGroup] = []
    ) throws -> ImportSummary where Values.Element: Encodable {
        var options = ImportOptions(inputs: ["<values>"], databasePath: "")
        options.table = table
        options.upsert = key
        options.merge = merge
        options.strategy = .typed
        options.enumGroups = enums
        let existing = try TableSchema.read(self, table: TableSchema.resolveName(self, requested: table))
        options.reader.flatten = existing != nil
        let flattens: (String) -> Bool = { key in existing.map { $0.columnIndex(named: key) == nil } ?? false }
        let source = EncodableBatchSource(values: values, rowsPerBatch: options.rowsPerBatch, flattens: flattens)
        var summary = ImportSummary(database: "", table: table, merge: merge.description, strategy: "typed", strategyReason: "the Swift API checks every value")
        try Importer.write(from: source, options: options, table: table, in: self, summary: &summary, progress: nil)
        return summary
    }
}

/// Encodes a sequence of values into batches, on the calling thread.
final class EncodableBatchSource<Values: Sequence>: BatchSource where Values.Element: Encodable {
    private var iterator: Values.Iterator
    private let rowsPerBatch: Int
    private let namer = ColumnNamer()
    private var opened = false
    private var finished = false
    private var spare: [RecordBatch] = []

    private let flattens: (String) -> Bool

    init(values: Values, rowsPerBatch: Int, flattens: @escaping (String) -> Bool = { _ in false }) {
        iterator = values.makeIterator()
        self.rowsPerBatch = rowsPerBatch
        self.flattens = flattens
    }

    func next() -> BatchReader.Item? {
        if finished { return nil }
        if !opened {
            opened = true
            return .opened(index: 0, InputDescription(path: "<values>", format: .json, compression: .none, bytes: nil))
        }
        let batch = spare.popLast() ?? RecordBatch()
        batch.reset(inputIndex: 0)
        let encoder = RecordEncoder(batch: batch, namer: namer, flattens: flattens)
        do {
            while batch.rowCount < rowsPerBatch, let value = iterator.next() {
                try encoder.encode(value)
            }
        } catch {
            finished = true
            return .failed(error)
        }
        if batch.rowCount == 0 {
            finished = true
            return .finished
        }
        return .batch(batch)
    }

    func recycle(_ batch: RecordBatch) {
        spare.append(batch)
    }

    /// Batches are allocated on demand here, so holding them never starves the source.
    var batchesTheWriterMayHold: Int { .max }
}
