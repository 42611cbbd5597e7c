import Foundation

/// One PostgreSQL import inside its transaction (see `PostgresImporter`).
final class PostgresRun {
    let options: ImportOptions
    let connection: PostgresConnection
    /// The table, once it exists (a missing one is created from the first batch).
    var tableSchema: PostgresSchema?
    var schema: PostgresSchema { tableSchema! }
    /// The table's name as requested, for a table this run creates.
    let requestedTable: String
    let progress: ((ImportProgress) -> Void)?
    var summary: ImportSummary

    /// The conflict target, its predicate, and the primary key that matches records
    /// outside it (nil when the target is the primary key, or there is none).
    var target: PostgresSchema.UniqueKey?
    var fallbackKey: PostgresSchema.UniqueKey?

    /// Input field index → the table's column name (nil: dropped by --ignore-unknown).
    var columnOfField: [String?] = []
    var fieldNames: [String] = []
    var inputNames: [String] = []
    /// Staging tables by shape (the sorted column names the records have).
    var stagingOfShape: [[String]: String] = [:]
    var sequence: Int64 = 0
    var fileBytesRead: [Int64] = []

    init(options: ImportOptions, connection: PostgresConnection, schema: PostgresSchema?, table: String, progress: ((ImportProgress) -> Void)?) throws {
        self.options = options
        self.connection = connection
        tableSchema = schema
        requestedTable = schema?.table ?? table
        self.progress = progress
        summary = ImportSummary(
            database: PostgresConnection.redacted(options.databasePath), table: requestedTable, merge: options.merge.description,
            strategy: "copy", strategyReason: "PostgreSQL: COPY into a staging table, then one INSERT ... ON CONFLICT per batch")
        if schema != nil { try resolveKeys() }
    }

    /// The conflict target `--upsert` names, and the primary key behind a partial one.
    func resolveKeys() throws {
        if let upsert = options.upsert {
            for column in upsert where schema.column(named: column) == nil {
                throw UpsertError.unknownKeyColumn(table: schema.table, column: column)
            }
            guard let key = schema.uniqueKey(matching: upsert) else {
                throw UpsertError.noMatchingKey(
                    table: schema.table, requested: upsert,
                    available: schema.uniqueKeys.map {
                        UniqueKey(indexName: $0.name, columns: $0.columns, origin: $0.isPrimaryKey ? .primaryKey : .uniqueIndex, partialPredicate: $0.predicate)
                    })
            }
            target = key
            fallbackKey = key.isPrimaryKey ? nil : schema.primaryKey
            summary.conflictTarget = key.columns
            summary.conflictPredicate = key.predicate
            summary.fallbackKey = fallbackKey?.columns
        }
        if case .newer(let column) = options.merge, schema.column(named: column) == nil {
            throw UpsertError.newerColumnMissing(column: column, table: schema.table)
        }
    }

    func execute() throws {
        var readerOptions = options.reader
        readerOptions.skipBadRecords = false
        let reader = BatchReader(
            paths: options.inputs, options: readerOptions, rowsPerBatch: options.rowsPerBatch, cancellation: options.cancellation)
        reader.start()
        defer { reader.stop() }
        while let item = reader.next() {
            if let signal = options.cancellation?.signal { throw ImportError.interrupted(signal: signal) }
            switch item {
            case .opened(_, let description):
                inputNames.append(description.path)
                summary.inputs.append(description)
            case .batch(let batch):
                try write(batch)
                reader.recycle(batch)
            case .failed(let error):
                throw error
            case .finished:
                report(.committing)
                return
            }
        }
    }

    // MARK: - A batch

    private func write(_ batch: RecordBatch) throws {
        if tableSchema == nil {
            try createTable(from: batch)
            try resolveKeys()
        }
        for name in batch.newColumns {
            fieldNames.append(name)
            if let column = schema.column(named: name) {
                columnOfField.append(column.name)
            } else if options.ignoreUnknown {
                columnOfField.append(nil)
            } else {
                throw SchemaError.unknownFields(table: schema.table, fields: [name])
            }
        }
        summary.counts.read += batch.rowCount
        summary.inputs[batch.inputIndex].bytesRead = batch.inputBytesConsumed
        if fileBytesRead.count <= batch.inputIndex { fileBytesRead += repeatElement(0, count: batch.inputIndex + 1 - fileBytesRead.count) }
        fileBytesRead[batch.inputIndex] = batch.fileBytesConsumed
        // Rows grouped by shape, in input order within each group.
        var groups: [[Int]: [Int]] = [:]
        var order: [[Int]] = []
        for row in 0 ..< batch.rowCount {
            var shape: [Int] = []
            for field in 0 ..< (batch.rowEnd(row) - batch.rowStarts[row]) where field < columnOfField.count && columnOfField[field] != nil {
                if batch.cell(row: row, column: field).kind != .absent { shape.append(field) }
            }
            if groups[shape] == nil { order.append(shape) }
            groups[shape, default: []].append(row)
        }
        for shape in order {
            try write(rows: groups[shape]!, fields: shape, of: batch)
        }
        report(.writing)
    }

    private func write(rows: [Int], fields: [Int], of batch: RecordBatch) throws {
        let columns = fields.map { columnOfField[$0]! }
        if let target {
            let key = target.columns + (fallbackKey?.columns ?? [])
            for column in target.columns where !columns.contains(where: { $0.lowercased() == column.lowercased() }) {
                throw UpsertError.keyNotInInput(column: column)
            }
            _ = key
        }
        let staging = try stagingTable(for: columns)
        var first: Int64 = 0
        try connection.execute("TRUNCATE \(staging)")
        let text = try copyText(rows: rows, fields: fields, of: batch, firstSequence: &first)
        do {
            try text.withUnsafeBytes { bytes in
                try connection.copy(
                    "COPY \(staging) (sqlimport_seq, \(SQLIdentifier.quoteList(columns))) FROM STDIN", data: bytes)
            }
        } catch var error as PostgresError {
            // "COPY sqlimport_staging_1, line 3, column libraryID: ..." names the record.
            if let context = error.context, let range = context.range(of: #"line \d+"#, options: .regularExpression),
                let line = Int(context[range].dropFirst(5)), line >= 1, line <= rows.count
            {
                error.position = batch.position(row: rows[line - 1], inputName: inputNames[batch.inputIndex])
                if let column = context.range(of: #"column [^:]+"#, options: .regularExpression) {
                    error.message += "; \(context[column])"
                }
            }
            throw error
        }
        let statement = PostgresUpsert(
            table: schema.qualifiedName, staging: staging, columns: columns, target: target, fallbackKey: fallbackKey, policy: options.merge,
            schema: schema)
        var counts = summary.counts
        try statement.apply(connection, counts: &counts, duplicateKeysAreErrors: options.duplicateKeys == .error, nullKeyInserts: options.nullKey == .insert) { sequence in
            self.position(ofSequence: sequence, first: first, rows: rows, batch: batch)
        }
        summary.counts = counts
    }

    /// The position of the record COPY gave sequence number `sequence`.
    private func position(ofSequence sequence: Int64, first: Int64, rows: [Int], batch: RecordBatch) -> SourcePosition {
        let index = Int(sequence - first)
        guard index >= 0, index < rows.count else { return SourcePosition(input: inputNames[batch.inputIndex], line: 0, byteOffset: 0) }
        return batch.position(row: rows[index], inputName: inputNames[batch.inputIndex])
    }

    /// A temporary table with a sequence number and the target's types for `columns`.
    private func stagingTable(for columns: [String]) throws -> String {
        if let name = stagingOfShape[columns] { return name }
        let name = "sqlimport_staging_\(stagingOfShape.count + 1)"
        let definitions = columns.map { column in "\(SQLIdentifier.quote(column)) \(schema.column(named: column)!.type)" }
        try connection.execute(
            "CREATE TEMP TABLE \(name) (sqlimport_seq bigint NOT NULL, sqlimport_route smallint NOT NULL DEFAULT 1, sqlimport_round integer NOT NULL DEFAULT 1, \(definitions.joined(separator: ", "))) ON COMMIT DROP")
        stagingOfShape[columns] = name
        return name
    }

    /// The rows in COPY's text format: `\N` for NULL; backslash, tab, newline and carriage
    /// return escaped; every value as its text, for PostgreSQL to parse into the column's
    /// type (an integer beyond int64 is exact in a numeric column, refused in a bigint one).
    private func copyText(rows: [Int], fields: [Int], of batch: RecordBatch, firstSequence: inout Int64) throws -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(batch.bytes.count + rows.count * 16)
        firstSequence = sequence
        try batch.bytes.withUnsafeBufferPointer { buffer in
            let bytes = buffer.baseAddress!
            for row in rows {
                out.append(contentsOf: String(sequence).utf8)
                sequence += 1
                for field in fields {
                    out.append(0x09)
                    let cell = batch.cell(row: row, column: field)
                    switch cell.kind {
                    case .absent, .null:
                        out.append(contentsOf: [0x5C, 0x4E])  // \N
                    case .integer:
                        out.append(contentsOf: String(cell.payload).utf8)
                    case .real:
                        out.append(contentsOf: "\(cell.doubleValue)".utf8)
                    case .text, .untypedText, .json, .numberAsText:
                        let text = UnsafeBufferPointer(start: bytes + Int(cell.payload), count: Int(cell.length))
                        if text.contains(0) {
                            throw PostgresError(
                                kind: .data,
                                message: "field \(SQLIdentifier.quote(fieldNames[field])) holds a NUL character, which PostgreSQL text cannot store; remove it from the input",
                                position: batch.position(row: row, inputName: inputNames[batch.inputIndex]))
                        }
                        for byte in text {
                            switch byte {
                            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
                            case 0x09: out.append(contentsOf: [0x5C, 0x74])
                            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
                            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
                            default: out.append(byte)
                            }
                        }
                    }
                }
                out.append(0x0A)
            }
        }
        return out
    }

    private func report(_ phase: ImportProgress.Phase) {
        guard let progress else { return }
        let sizes = summary.inputs.map(\.bytes)
        let total: Int64? = sizes.contains(where: { $0 == nil }) || summary.inputs.count < options.inputs.count ? nil : sizes.reduce(0) { $0 + $1! }
        progress(ImportProgress(phase: phase, rowsRead: summary.counts.read, rowsWritten: summary.counts.read, bytesRead: fileBytesRead.reduce(0, +), totalBytes: total))
    }
}
