import Foundation
import GRDB

/// Opens the database that export and snapshot read: read-only, so that they can never
/// change it, with the busy timeout applied to readers too.
package enum SourceDatabase {
    /// - Throws: `ExportError.noDatabase` when no file is at `path`, `.databaseIsAFolder`
    ///   for a folder (SQLite says only "unable to open database file", or "disk I/O error").
    package static func openReadOnly(path: String, busyTimeoutMilliseconds: Int) throws -> DatabaseQueue {
        var isFolder: ObjCBool = false
        if path != ":memory:", !path.hasPrefix("file:"), !FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) { throw ExportError.noDatabase(path: path) }
        if isFolder.boolValue { throw ExportError.databaseIsAFolder(path: path) }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(TimeInterval(busyTimeoutMilliseconds) / 1000)
        configuration.label = "sqlimport"
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
