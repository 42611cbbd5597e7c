/// One record per statement, with every value checked against its column's declared
/// type before it is bound: a failure names the column, the expected type, the value
/// and the line, rather than SQLite's terser message. The checks mirror SQLite's own
/// (STRICT types, NOT NULL), so a valid input leaves the same database as the other
/// strategies.
struct TypedStrategy: WriteStrategy {
    func rowsPerStatement(columns: Int, session: WriteSession) -> Int { 1 }

    func write(_ rows: Range<Int>, of batch: RecordBatch, shape: RowShape, session: WriteSession, inputName: String, bytes: UnsafePointer<UInt8>) throws {
        let statement = try session.statement(for: shape, rows: 1)
        let schema = session.schema
        rows: for row in rows {
            for (position, input) in shape.inputColumns.enumerated() {
                let column = schema.columns[shape.tableColumns[position]]
                let cell = batch.cell(row: row, column: input)
                if let reason = Self.check(cell, column: column, strict: schema.isStrict, isRowidAlias: schema.rowidAlias == column.name, batch: batch, session: session) {
                    try session.fail(WriteError(position: batch.position(row: row, inputName: inputName), reason: reason), row: row, batch: batch)
                    continue rows
                }
            }
            do {
                try session.execute(
                    statement, shape: shape, rows: row ..< row + 1, batch: batch, bytes: bytes,
                    atomic: session.usesSavepoints && session.onRecordFailure != nil)
            } catch {
                try session.fail(session.recordError(error, row: row, shape: shape, batch: batch, inputName: inputName), row: row, batch: batch)
            }
        }
    }

    /// Why `cell` cannot go into `column`, or nil when it can.
    static func check(_ cell: Cell, column: ColumnInfo, strict: Bool, isRowidAlias: Bool, batch: RecordBatch, session: WriteSession) -> WriteError.Reason? {
        if cell.kind == .null {
            return column.notNull && !isRowidAlias ? .nullInNotNullColumn(column: column.name) : nil
        }
        guard strict else { return nil }
        let type = column.declaredType.uppercased()
        let mismatch = WriteError.Reason.typeMismatch(column: column.name, expected: type, value: session.describe(cell, batch))
        switch type {
        case "INT", "INTEGER":
            switch cell.kind {
            case .integer: return nil
            case .real: return cell.doubleValue.rounded() == cell.doubleValue && abs(cell.doubleValue) < 9.2e18 ? nil : mismatch
            case .text, .untypedText:
                let parsed = batch.withText(cell) { NumberText.parseInteger($0) }
                if case .value = parsed { return nil }
                return mismatch
            default: return mismatch
            }
        case "REAL":
            switch cell.kind {
            case .integer, .real: return nil
            case .text, .untypedText:
                let isNumber = batch.withText(cell) { NumberText.isNumberSyntax($0) && NumberText.parseDouble($0) != nil }
                return isNumber ? nil : mismatch
            default: return mismatch
            }
        case "TEXT":
            return nil
        case "BLOB":
            // Only a BLOB marker (see `BlobMarker`) holds bytes.
            let isMarker: Bool
            switch cell.kind {
            case .json: isMarker = batch.withText(cell) { BlobMarker.decodeJSON($0) } != nil
            case .untypedText: isMarker = batch.withText(cell) { BlobMarker.decodeText($0) } != nil
            default: isMarker = false
            }
            return isMarker ? nil : mismatch
        default:
            return nil
        }
    }
}
