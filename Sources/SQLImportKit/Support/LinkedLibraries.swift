import CZlib
import CZstd
import GRDB

/// The versions of the C libraries this build runs with, as `sqlimport --version` shows
/// them: the SQLite, zstd and zlib found at run time, which may differ from the headers
/// the build saw.
public enum LinkedLibraries {
    public static var sqlite: String { (try? DatabaseQueue().read { try String.fetchOne($0, sql: "SELECT sqlite_version()") }) ?? "unknown" }
    public static var zstd: String { String(cString: ZSTD_versionString()) }
    public static var zlib: String { String(cString: zlibVersion()) }
}
