/// Files people pass as inputs by mistake, told apart by their first bytes.
public enum ForeignFile: String, Sendable, Equatable {
    case sqliteDatabase = "a SQLite database"
    case zipArchive = "a ZIP archive"
    case xz = "xz-compressed"
    case bzip2 = "bzip2-compressed"
    case parquet = "a Parquet file"

    static func detect(_ magic: [UInt8]) -> ForeignFile? {
        if magic.starts(with: Array("SQLite format 3\u{0}".utf8)) { return .sqliteDatabase }
        if magic.starts(with: [0x50, 0x4B, 0x03, 0x04]) || magic.starts(with: [0x50, 0x4B, 0x05, 0x06]) { return .zipArchive }
        if magic.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        if magic.starts(with: Array("BZh".utf8)), magic.count > 3, (0x31 ... 0x39).contains(magic[3]) { return .bzip2 }
        if magic.starts(with: Array("PAR1".utf8)) { return .parquet }
        return nil
    }

    /// How to get records out of it.
    func hint(path: String) -> String {
        switch self {
        case .sqliteDatabase: return "did you mean --db \(path)? To copy its rows, export them first: sqlimport export TABLE --db \(path) | sqlimport - ..."
        case .zipArchive: return "unzip it first, e.g. unzip -p \(path) FILE.csv | sqlimport - --csv ..."
        case .xz: return "decompress it first, e.g. xz -dc \(path) | sqlimport - ... (sqlimport reads zstd and gzip)"
        case .bzip2: return "decompress it first, e.g. bzip2 -dc \(path) | sqlimport - ... (sqlimport reads zstd and gzip)"
        case .parquet: return "convert it to CSV or JSON Lines first, e.g. duckdb -c \"COPY (FROM '\(path)') TO '/dev/stdout' (FORMAT json)\" | sqlimport - ..."
        }
    }
}
