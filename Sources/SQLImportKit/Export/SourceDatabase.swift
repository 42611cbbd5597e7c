import Foundation
import GRDB

/// Opens the database that export and snapshot read: read-only, so that they can never
/// change it, with the busy timeout applied to readers too.
enum SourceDatabase {
    static func openReadOnly(path: String, busyTimeoutMilliseconds: Int) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(TimeInterval(busyTimeoutMilliseconds) / 1000)
        configuration.label = "sqlimport"
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
