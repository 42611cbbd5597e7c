import Foundation
import GRDB

/// Opens the database that export and snapshot read: read-only, so that they can never
/// change it, with the busy timeout applied to readers too.
package enum SourceDatabase {
    /// - Throws: `ExportError.noDatabase` when no file is at `path` (SQLite says only
    ///   "unable to open database file").
    package static func openReadOnly(path: String, busyTimeoutMilliseconds: Int) throws -> DatabaseQueue {
        if path != ":memory:", !path.hasPrefix("file:"), !FileManager.default.fileExists(atPath: path) { throw ExportError.noDatabase(path: path) }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(TimeInterval(busyTimeoutMilliseconds) / 1000)
        configuration.label = "sqlimport"
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
