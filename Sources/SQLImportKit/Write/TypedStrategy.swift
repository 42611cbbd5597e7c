/// One record per statement. SQLite alone decides what a column accepts, as in every
/// strategy, so that all of them leave the same database; when SQLite refuses a value
/// for its column's type or NOT NULL, the error names the column, the declared type, the
/// value and the line (`check`), rather than SQLite's terser message.
struct TypedStrategy: WriteStrategy {
    func rowsPerStatement(columns: Int, session: WriteSession) -> Int { 1 }

    func write(_ rows: Range<Int>, of batch: RecordBatch, shape: RowShape, session: WriteSession, inputName: String, bytes: UnsafePointer<UInt8>) throws {
        let statement = try session.statement(for: shape, rows: 1)
        for row in rows {
            do {
                try session.execute(
                    statement, shape: shape, rows: row ..< row + 1, batch: batch, bytes: bytes,
                    atomic: session.usesSavepoints && session.onRecordFailure != nil)
            } catch {
                if error.endsInsertsOnly { throw InsertsOnlyConflict(row: row) }
                var failure = session.recordError(error, row: row, shape: shape, batch: batch, inputName: inputName)
                if case .sqlite(let code, let message) = failure.reason, code == 3091 || code == 1299,
                    let reason = Self.explain(message, row: row, of: batch, shape: shape, session: session)
                {
                    failure = WriteError(position: failure.position, reason: reason)
                }
                try session.fail(failure, row: row, batch: batch)
            }
        }
    }

    /// The typed reason for a refusal SQLite reported as `message` (a STRICT type or a
    /// NOT NULL constraint, naming `table.column`), or nil.
    static func explain(_ message: String, row: Int, of batch: RecordBatch, shape: RowShape, session: WriteSession) -> WriteError.Reason? {
        let schema = session.schema
        for (position, input) in shape.inputColumns.enumerated() {
            let column = schema.columns[shape.tableColumns[position]]
            guard message.hasSuffix(".\(column.name)") else { continue }
            return check(
                batch.cell(row: row, column: input), column: column, strict: schema.isStrict, isRowidAlias: schema.rowidAlias == column.name,
                batch: batch, session: session)
        }
        return nil
    }

    /// Why `cell` cannot go into `column`, or nil when it can.
    static func check(_ cell: Cell, column: ColumnInfo, strict: Bool, isRowidAlias: Bool, batch: RecordBatch, session: WriteSession) -> WriteError.Reason? {
        if cell.kind == .null {
            return column.notNull && !isRowidAlias ? .nullInNotNullColumn(column: column.name) : nil
        }
        guard strict else { return nil }
        let type = column.declaredType.uppercased()
        let mismatch = WriteError.Reason.typeMismatch(column: column.name, expected: type, value: batch.describe(cell))
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
