import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps two runs on one database from interleaving.
///
/// SQLite's write lock serializes transactions, not runs: with `--commit-every` a run
/// commits and begins again, and another run that waited for the lock wrote between its
/// checkpoints. Two overlapping cron mirrors each took the other's rows for rows
/// inserted since it began, and kept both files' rows (both exit 0); two upserts of one
/// key left some rows with one file's values and some with the other's.
///
/// So a run that writes holds, from before its first transaction to after its last,
/// `flock(2)` on a file beside the database (`app.db-sqlimport-lock`, as SQLite keeps
/// `app.db-journal` there), and removes it at the end. Not a lock on the database file
/// itself: SQLite's own locks there are POSIX locks, which closing any other descriptor
/// of the file in this process would drop. No package offers such a lock, and SQLite
/// has no lock that outlives a transaction.
///
/// The file is removed while held, so a run that waited on it may get it after it is
/// gone: it then checks that the path still names the file it holds, and else starts
/// again with the file now there.
final class RunLock {
    /// The lock file's path.
    let path: String
    private var descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { release() }

    /// The lock file of the database at `database`.
    static func path(forDatabase database: String) -> String { database + "-sqlimport-lock" }

    /// Takes the lock of the database at `database`, waiting for the run that holds it
    /// up to `timeoutMilliseconds` (in steps of 10 ms; a cancelled run stops waiting).
    ///
    /// - Throws: `ImportError.anotherRun` past the timeout, `ImportError.interrupted`
    ///   on a signal, `ImportError.runLockUnavailable` when the file cannot be made.
    static func acquire(database: String, timeoutMilliseconds: Int, cancellation: Cancellation?) throws -> RunLock {
        let path = Self.path(forDatabase: database)
        let deadline = Date().addingTimeInterval(TimeInterval(timeoutMilliseconds) / 1000)
        while true {
            guard let (descriptor, writable) = try openFile(path, database: database) else { continue }
            while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
                let failure = errno
                guard failure == EWOULDBLOCK || failure == EINTR else {
                    close(descriptor)
                    throw ImportError.runLockUnavailable(path: path, reason: String(cString: strerror(failure)), cannotWrite: false)
                }
                if let signal = cancellation?.signal {
                    close(descriptor)
                    throw ImportError.interrupted(signal: signal)
                }
                guard Date() < deadline else {
                    let holder = Self.holder(descriptor)
                    close(descriptor)
                    throw ImportError.anotherRun(lock: path, pid: holder)
                }
                usleep(10_000)
            }
            // The run that held it removed it: the lock is the file the path names now.
            var held = stat()
            var named = stat()
            if fstat(descriptor, &held) != 0 || lstat(path, &named) != 0 || held.st_ino != named.st_ino || held.st_dev != named.st_dev {
                close(descriptor)
                continue
            }
            // The holder's process id, for the message of a run that waits in vain.
            if writable {
                let pid = Array("\(getpid())\n".utf8)
                _ = ftruncate(descriptor, 0)
                _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            }
            return RunLock(path: path, descriptor: descriptor)
        }
    }

    /// Opens the lock file, made with the database file's permissions when it is new (as
    /// SQLite makes its journal), so that another user who may write the database may
    /// take it too; read-only where another user's file allows no more (`flock` needs
    /// no more). Nil when it vanished meanwhile (the run that held it removed it).
    private static func openFile(_ path: String, database: String) throws -> (descriptor: Int32, writable: Bool)? {
        var created = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if created >= 0 {
            var info = stat()
            if stat(database, &info) == 0 { _ = fchmod(created, info.st_mode & 0o666) }
            return (created, true)
        }
        if errno == EEXIST {
            created = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
            if created >= 0 { return (created, true) }
            if errno == EACCES || errno == EPERM {
                created = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
                if created >= 0 { return (created, false) }
            }
            if errno == ENOENT { return nil }
        }
        let failure = errno
        throw ImportError.runLockUnavailable(
            path: path, reason: String(cString: strerror(failure)), cannotWrite: [EACCES, EPERM, EROFS].contains(failure))
    }

    /// Removes the file and lets go. Idempotent.
    func release() {
        guard descriptor >= 0 else { return }
        unlink(path)
        close(descriptor)
        descriptor = -1
    }

    private static func holder(_ descriptor: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(String(decoding: bytes[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
