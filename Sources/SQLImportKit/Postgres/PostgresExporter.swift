import Foundation

/// Streams a PostgreSQL table or query out as JSON Lines, JSON, CSV or TSV, optionally
/// compressed: `sqlimport export --db postgresql://...`, the counterpart of `Exporter`.
///
/// The rows come from a cursor inside one `REPEATABLE READ READ ONLY` transaction (one
/// snapshot however long the export takes), `FETCH`ed 10,000 at a time in libpq's text
/// format, so memory stays constant. Each value keeps its type where the format can say
/// it, and reads back as the same value:
///
/// | PostgreSQL | JSON | CSV/TSV |
/// |---|---|---|
/// | `smallint`, `integer`, `bigint`, `numeric` | the number's digits, exactly; infinities `1e999` | the same |
/// | `real`, `double precision` | PostgreSQL's shortest round-tripping text; infinities `1e999`; `-0.0` | the same; `-0` |
/// | `boolean` | `true` / `false` | `true` / `false` |
/// | `json`, `jsonb` | the JSON itself, nested | its text |
/// | `bytea` | the BLOB marker `{"$base64":"..."}` | `base64:...` |
/// | anything else (text, timestamps, uuid, ...) | a string of PostgreSQL's text | the text |
/// | NULL | `null` | empty, or `--null` |
///
/// `numeric`'s and a float's `NaN` has no JSON spelling and is written as the string
/// `"NaN"`. A `bytea` is written as SQLite's export writes a BLOB, so that it imports
/// back as the same bytes into either database (PostgreSQL's `\x0001` text read back as
/// those six characters).
public final class PostgresExporter {
    public let options: ExportOptions

    public init(options: ExportOptions) {
        self.options = options
    }

    /// Rows per `FETCH`.
    static let fetchRows = 10_000

    public func run(progress: ((Int) -> Void)? = nil) throws -> ExportSummary {
        if let path = options.outputFile, !options.force, FileManager.default.fileExists(atPath: path), !AtomicOutputFile.writesInPlace(path) {
            throw OutputError.alreadyExists(path: path, what: "exports")
        }
        let format = try options.resolvedFormat()
        let compression = try options.resolvedCompression()
        let connection = try PostgresConnection(url: options.databasePath)
        try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { try? connection.execute("ROLLBACK") }
        // `bytea` as hex, whatever the server's default (`Kind.bytea`).
        try connection.execute("SET LOCAL bytea_output = 'hex'")
        var sql = try selectSQL(connection)
        var values: [String] = []
        // Only a query given --param binds names: without it, PostgreSQL reads the query
        // as written (an array slice `a[1:n]` is no parameter). A positional `$1` is
        // refused either way (without --param it reached the server, whose "bind message
        // supplies 0 parameters" read as an unreachable server, exit 69).
        if case .query = options.source {
            let bound = try PostgresQueryParameters(query: sql, parameters: options.parameters, bindsNames: !options.parameters.isEmpty)
            (sql, values) = (bound.sql, bound.values)
        }
        do {
            _ = try connection.query("DECLARE sqlimport_export NO SCROLL CURSOR FOR \(sql)", values)
        } catch {
            // The query's own mistakes; the connection's or a lock's stay theirs.
            guard error.kind == .usage || error.kind == .server || error.kind == .data else { throw error }
            // A syntax error in a query without --param that holds a `:name`: the name
            // is the likely cause, and the message names --param (it gave PostgreSQL's
            // "syntax error at or near ':'").
            if error.sqlState == "42601", options.parameters.isEmpty, case .query = options.source {
                do { _ = try PostgresQueryParameters(query: sql, parameters: [:]) } catch let unbound where { if case .unboundPostgresParameter = unbound { true } else { false } }() {
                    throw unbound
                } catch {}
            }
            throw ExportError.invalidQuery(query: sql, message: error.message)
        }
        var batch = try connection.result("FETCH FORWARD \(Self.fetchRows) FROM sqlimport_export")
        let columns = (0 ..< batch.columns).map(batch.name)
        let kinds = (0 ..< batch.columns).map { Kind(type: batch.type($0)) }
        var encoder = try ValueText.encoder(for: format, columns: columns, nullText: options.nullText, namesFoldCase: false)

        return try ExportOutput.write(options, format: format, compression: compression, columns: columns) { writer in
            try encoder.begin(into: &writer.bytes)
            let family: Family
            switch encoder {
            case let json as JSONRowEncoder: family = .json(json)
            case let delimited as DelimitedRowEncoder: family = .delimited(delimited)
            default: preconditionFailure("an encoder of every format is JSON or delimited")
            }
            var rows = 0
            while batch.rows > 0 {
                for row in 0 ..< batch.rows {
                    rows += 1
                    if rows & 0xFFFF == 0 { progress?(rows) }
                    try Self.encode(row, of: batch, kinds: kinds, number: rows, as: family, into: &writer.bytes)
                    try writer.flushIfFull()
                }
                batch = try connection.result("FETCH FORWARD \(Self.fetchRows) FROM sqlimport_export")
            }
            encoder.end(rows: rows, into: &writer.bytes)
            return rows
        }
    }

    /// The query, or `SELECT *` from an existing table or view (schema-qualified names
    /// and the search path as `inspect` resolves them).
    private func selectSQL(_ connection: PostgresConnection) throws -> String {
        switch options.source {
        case .query(let sql):
            return sql
        case .table(let name):
            guard let schema = try PostgresSchema.read(connection, table: name) else {
                let tables = try connection.query(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = ANY (current_schemas(false)) ORDER BY 1").compactMap { $0[0] }
                throw ExportError.noSuchTable(name: name, available: tables)
            }
            // The table's own rows, as pg_dump's: not those of tables inheriting from it,
            // which would come back into it as rows of its keys (`ownRows`).
            return "SELECT * FROM \(schema.ownRows)"
        }
    }

    /// How a column's text is written.
    enum Kind {
        case number, boolean, json, bytea, text

        init(type: UInt32) {
            switch type {
            case 20, 21, 23, 26, 700, 701, 1700: self = .number  // int8, int2, int4, oid, float4, float8, numeric
            case 16: self = .boolean
            case 17: self = .bytea
            case 114, 3802: self = .json
            default: self = .text
            }
        }
    }

    /// The encoder whose spellings the rows take (its header and end are its own).
    enum Family {
        case json(JSONRowEncoder)
        case delimited(DelimitedRowEncoder)
    }

    private static func encode(
        _ row: Int, of batch: PostgresResult, kinds: [Kind], number: Int, as family: Family, into output: inout [UInt8]
    ) throws(ExportError) {
        switch family {
        case .json(let json):
            if json.array {
                if number > 1 { output.append(UInt8(ascii: ",")) }
                output.append(0x0A)
            }
            for column in 0 ..< kinds.count {
                output.append(contentsOf: json.keys[column])
                if batch.isNull(row, column) {
                    output.append(contentsOf: Spelling.null)
                    continue
                }
                let text = batch.bytes(row, column)
                switch kinds[column] {
                case .number:
                    Self.withNumber(text, json: true) { output.append(contentsOf: $0) }
                case .boolean:
                    output.append(contentsOf: text.first == UInt8(ascii: "t") ? Spelling.true : Spelling.false)
                case .json:
                    output.append(contentsOf: text)
                case .bytea:
                    Self.withBytes(ofHex: text) { BlobMarker.appendJSON($0, to: &output) }
                case .text:
                    guard JSONRowEncoder.appendString(text, to: &output) else { throw .invalidUTF8(column: json.columns[column], row: number) }
                }
            }
            output.append(UInt8(ascii: "}"))
            if !json.array { output.append(0x0A) }
        case .delimited(let delimited):
            for column in 0 ..< kinds.count {
                if column > 0 { output.append(delimited.delimiter) }
                if batch.isNull(row, column) {
                    if let nullText = delimited.nullText { output.append(contentsOf: nullText) }
                    continue
                }
                let text = batch.bytes(row, column)
                switch kinds[column] {
                case .number:
                    Self.withNumber(text, json: false) { delimited.appendText($0, to: &output) }
                case .boolean:
                    (text.first == UInt8(ascii: "t") ? Spelling.true : Spelling.false).withUnsafeBytes { delimited.appendText($0, to: &output) }
                case .bytea:
                    var marker: [UInt8] = []
                    Self.withBytes(ofHex: text) { BlobMarker.appendText($0, to: &marker) }
                    marker.withUnsafeBytes { delimited.appendText($0, to: &output) }
                case .json, .text:
                    delimited.appendText(text, to: &output)
                }
            }
            output.append(0x0A)
        }
    }

    /// Spellings written often, made once (not an array per value).
    private enum Spelling {
        static let null = Array("null".utf8)
        static let `true` = Array("true".utf8)
        static let `false` = Array("false".utf8)
        static let infinity = Array("1e999".utf8)
        static let minusInfinity = Array("-1e999".utf8)
        static let nanString = Array("\"NaN\"".utf8)
        static let minusZero = Array("-0.0".utf8)
    }

    /// Calls `body` with the bytes of a `bytea`'s hex text (`\x0001ff`).
    private static func withBytes(ofHex text: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        func nibble(_ digit: UInt8) -> UInt8 { digit <= UInt8(ascii: "9") ? digit &- UInt8(ascii: "0") : (digit | 0x20) &- UInt8(ascii: "a") &+ 10 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(max(0, text.count - 2) / 2)
        var index = 2
        while index + 1 < text.count {
            bytes.append(nibble(text[index]) << 4 | nibble(text[index + 1]))
            index += 2
        }
        bytes.withUnsafeBytes(body)
    }

    /// Calls `body` with a number's text as PostgreSQL wrote it (exact digits, shortest
    /// floats), or its infinities as `1e999` and `-1e999`, and NaN as a string in JSON; a
    /// float's negative zero as `-0.0` in JSON, where `-0` reads back as the integer 0.
    private static func withNumber(_ text: UnsafeRawBufferPointer, json: Bool, _ body: (UnsafeRawBufferPointer) -> Void) {
        // Only `Infinity`, `-Infinity`, `NaN` and `-0` are not already the number.
        if text.last == UInt8(ascii: "y") || text.last == UInt8(ascii: "N") {
            if text.elementsEqual("Infinity".utf8) { return Spelling.infinity.withUnsafeBytes(body) }
            if text.elementsEqual("-Infinity".utf8) { return Spelling.minusInfinity.withUnsafeBytes(body) }
            if json && text.elementsEqual("NaN".utf8) { return Spelling.nanString.withUnsafeBytes(body) }
        }
        if json && text.count == 2 && text.elementsEqual("-0".utf8) { return Spelling.minusZero.withUnsafeBytes(body) }
        body(text)
    }
}
