import Foundation

/// The temporary files that exist right now, so that they can be removed when the
/// process is interrupted: the CLI's SIGINT and SIGTERM handlers call `removeAll()`.
///
/// Every temporary file sqlimport creates sits next to its final output (so the final
/// rename stays on one file system) and is registered here from before it is created
/// until it is renamed or removed.
package final class TemporaryFiles: @unchecked Sendable {
    /// The registry of the process.
    package static let shared = TemporaryFiles()

    private let lock = NSLock()
    private var paths: Set<String> = []

    /// Registers `path`, which is about to be created.
    package func register(_ path: String) {
        lock.withLock { _ = paths.insert(path) }
    }

    /// Forgets `path`: it has been renamed into place or removed.
    package func unregister(_ path: String) {
        lock.withLock { _ = paths.remove(path) }
    }

    /// Runs `body` with `paths` registered, then removes those files (whether `body`
    /// created them or not) and forgets them: for files that a library, not sqlimport,
    /// creates, such as `VACUUM INTO`'s target or SQLite's journals.
    package func whileRegistered<Result>(_ paths: [String], _ body: () throws -> Result) rethrows -> Result {
        paths.forEach(register)
        defer {
            for path in paths {
                unlink(path)
                unregister(path)
            }
        }
        return try body()
    }

    /// The registered paths, for tests.
    package var registered: Set<String> { lock.withLock { paths } }

    /// Removes every registered file (a missing one is not an error) and forgets them.
    package func removeAll() {
        let current = lock.withLock {
            defer { paths.removeAll() }
            return paths
        }
        for path in current { unlink(path) }
    }

    /// A fresh name next to `destination`, hidden and marked with the process id:
    /// `dir/.name.<purpose>-<pid>-<random>.tmp`.
    package static func sibling(of destination: String, purpose: String) -> String {
        let url = URL(fileURLWithPath: destination)
        let directory = url.deletingLastPathComponent().path
        let random = String(UInt32.random(in: 0 ... .max), radix: 36)
        return directory + "/.\(url.lastPathComponent).\(purpose)-\(getpid())-\(random).tmp"
    }
}
