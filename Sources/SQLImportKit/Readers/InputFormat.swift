/// The syntax of an input.
public enum InputFormat: String, Sendable, Codable, CaseIterable {
    /// JSON Lines: one object per line.
    case jsonl
    /// One JSON document: an array of objects (streamed element by element) or one object.
    case json
    case csv
    case tsv

    /// The format named by a file's extensions, ignoring `.zst`/`.gz`
    /// (`items.jsonl.zst` → jsonl).
    public static func fromExtension(_ path: String) -> InputFormat? {
        var name = Substring(path.split(separator: "/").last ?? Substring(path)).lowercased()
        for suffix in [".zst", ".zstd", ".gz"] where name.hasSuffix(suffix) {
            name = String(name.dropLast(suffix.count))
        }
        if name.hasSuffix(".jsonl") || name.hasSuffix(".ndjson") { return .jsonl }
        if name.hasSuffix(".json") { return .json }
        if name.hasSuffix(".csv") { return .csv }
        if name.hasSuffix(".tsv") || name.hasSuffix(".tab") { return .tsv }
        return nil
    }

    /// The format suggested by the first non-space byte: `[` a JSON array, `{` JSON
    /// Lines, anything else CSV.
    static func fromFirstByte(_ byte: UInt8?) -> InputFormat {
        switch byte {
        case UInt8(ascii: "["): return .json
        case UInt8(ascii: "{"): return .jsonl
        default: return .csv
        }
    }
}

/// How readers turn bytes into records.
public struct ReaderOptions: Sendable {
    /// `--format`; nil detects it from the extension, then the first byte.
    public var format: InputFormat?
    /// CSV/TSV field separator (`--delimiter`); nil means `,` for CSV and tab for TSV.
    public var delimiter: UInt8?
    /// `--path data.items`: a JSON document's records are the array at this path of keys
    /// (`{"data":{"items":[...]}}`), streamed element by element.
    public var path: [String]?
    /// `--encoding`: the inputs' character encoding, transcoded to UTF-8 while streaming.
    public var encoding = TextEncoding.utf8
    /// `--no-header` names the columns c1…cN.
    public var hasHeader = true
    /// `--null TEXT`: an unquoted field equal to it is NULL.
    public var nullText: String?
    /// `--flatten`: a nested object's fields fill columns by leaf name or by prefixed
    /// name (`meta_color`), see `NestedFields`; arrays stay JSON text.
    public var flatten = false
    /// `--max-record-bytes`: a larger record is refused.
    public var maxRecordBytes = 256 << 20
    /// The largest `maxRecordBytes` (2 GiB): a field's length is 32 bits, and SQLite
    /// stores no value over 1 GB anyway.
    public static let maxRecordBytesLimit = 1 << 31
    /// JSON deeper than this is refused.
    public var maxDepth = 512
    /// Set a malformed record aside (in `RecordBatch.rejects`) instead of failing, where
    /// the reader can find where it ends: a JSON Lines line, a CSV record with the wrong
    /// field count or invalid UTF-8, a JSON array element that is not an object.
    public var skipBadRecords = false
    /// How much the input buffer reads at a time. Tests and the fuzz harness make it tiny,
    /// so that a few bytes of input exercise refills and the buffer's growth.
    var bufferChunkBytes = 1 << 20
    /// The fields whose JSON numbers keep their text when a double does not keep their
    /// digits (`RecordBatch.exactNumbers`): those of PostgreSQL `numeric` columns, by
    /// name ignoring case (a nested field by its leaf's name too); nil for every field
    /// (a table still to be created may get such a column by `--type`).
    package var exactNumberFields: Set<String>? = []
    /// The fields whose JSON numbers are their text as written (a `.numberAsText` cell,
    /// not counted as kept for want of a fit), by their whole name ignoring case (a
    /// nested field never: its column is not known while reading): always
    /// for PostgreSQL `json` and `jsonb` columns, which hold a number as JSON text (`json`
    /// as written, `jsonb` as `numeric`, every digit); for text columns, a number whose
    /// digits a double does not keep (`12345678901234567890.5`), which the column would
    /// otherwise hold as the double's text.
    package var numberTextFields: [String: NumberSpelling] = [:]

    public init() {}
}
