import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written under a temporary name next to its destination and renamed into place
/// only when complete, so that no reader ever sees half a file and a failure leaves the
/// destination as it was. The temporary file is registered with `TemporaryFiles` for
/// removal on a signal, and removed on failure or when the value is dropped uncommitted.
///
/// A symbolic link is followed: the file it names is replaced, and the link stays. A FIFO
/// or a device (`-o /dev/stdout`, or a link to one) is written in place, as a shell
/// redirection writes it: renaming over it would replace the node itself (a run as root
/// replaced `/dev/stdout` with a regular file, and the pipe got nothing).
package final class AtomicOutputFile {
    /// The final path, as given.
    package let destination: String
    /// The path being written: the temporary file, or the FIFO or device itself.
    package let temporaryPath: String
    /// True when the destination is a FIFO or device, written in place.
    package let writesInPlace: Bool
    /// Where the temporary file goes once complete (the link's file for a link).
    package let finalPath: String
    /// The open descriptor of the temporary file.
    package private(set) var descriptor: Int32 = -1
    private var finished = false

    /// Creates the temporary file (exclusively, mode 0666 less the umask), or opens a
    /// FIFO or device in place.
    /// - Parameter inPlace: whether a FIFO or device may be the destination (not for a
    ///   database, which is checked under its temporary name before it is renamed).
    package init(destination: String, purpose: String = "partial", inPlace: Bool = true) throws(OutputError) {
        self.destination = destination
        finalPath = Self.resolvedLink(destination)
        if Self.isBlockDevice(finalPath) {
            throw .cannotCreate(path: destination, reason: "it is a block device (a disk), which sqlimport never writes; name a file")
        }
        writesInPlace = Self.writesInPlace(destination)
        if writesInPlace {
            guard inPlace else {
                throw .cannotCreate(path: destination, reason: "it is a FIFO, a device or a descriptor, not a file; name a file")
            }
            temporaryPath = finalPath
            // A descriptor (`/dev/stdout`, `/dev/fd/1`, `/proc/self/fd/1`) is duplicated:
            // reopening its path fails for a socket (systemd's journal), and a duplicate
            // shares the offset of the process's own writes.
            let fd = Self.descriptorNumber(finalPath).map { fcntl($0, F_DUPFD_CLOEXEC, 0) } ?? open(finalPath, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .cannotCreate(path: destination, reason: String(cString: strerror(errno))) }
            descriptor = fd
            return
        }
        temporaryPath = TemporaryFiles.sibling(of: finalPath, purpose: purpose)
        TemporaryFiles.shared.register(temporaryPath)
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            TemporaryFiles.shared.unregister(temporaryPath)
            throw .cannotCreate(path: destination, reason: reason)
        }
        descriptor = fd
    }

    /// Whether `destination` is written in place: a FIFO or a device, or a process's
    /// descriptor (`/dev/stdout`, `/proc/self/fd/1`, `/dev/fd/1`), through links.
    package static func writesInPlace(_ destination: String) -> Bool {
        let path = resolvedLink(destination)
        return isSpecialFile(path) || path.hasPrefix("/proc/") || path.hasPrefix("/dev/fd/")
    }

    /// The file a symbolic link names, through a chain of links (relative ones from the
    /// link's folder); a link to a missing file names where to write. Other paths as given,
    /// and a process's descriptor (`/proc/self/fd/1`) is not followed further: its link
    /// names a pipe or a file the process has open.
    package static func resolvedLink(_ path: String) -> String {
        var resolved = path
        for _ in 0 ..< 16 {
            if resolved.hasPrefix("/proc/") || resolved.hasPrefix("/dev/fd/") { break }
            var info = stat()
            guard lstat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK,
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: resolved)
            else { break }
            resolved = target.hasPrefix("/") ? target : URL(fileURLWithPath: resolved).deletingLastPathComponent().appendingPathComponent(target).path
        }
        return resolved
    }

    /// Whether `path` exists (through links) and is a FIFO, a character device or a
    /// socket: written in place. (A block device is refused: `isBlockDevice`.)
    package static func isSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let type = info.st_mode & S_IFMT
        return type == S_IFIFO || type == S_IFCHR || type == S_IFSOCK
    }

    static func isBlockDevice(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFBLK
    }

    /// The descriptor a `/dev/fd/N` or `/proc/self/fd/N` path names.
    static func descriptorNumber(_ path: String) -> Int32? {
        for prefix in ["/dev/fd/", "/proc/self/fd/"] where path.hasPrefix(prefix) {
            return Int32(path.dropFirst(prefix.count))
        }
        return nil
    }

    deinit {
        if !finished { discard() }
    }

    /// A sink writing to the temporary file; errors name the destination.
    package func makeSink() -> FileDescriptorSink {
        FileDescriptorSink(descriptor: descriptor, name: destination)
    }

    /// Flushes the data to disk (`fsync`) and closes the descriptor. The file keeps its
    /// temporary name, e.g. for a check before `commit`.
    package func close() throws(OutputError) {
        guard descriptor >= 0 else { return }
        let fd = descriptor
        descriptor = -1
        // (A pipe or terminal cannot be synced: EINVAL.)
        if fsync(fd) != 0 && !(writesInPlace && errno == EINVAL) {
            let reason = String(cString: strerror(errno))
            _ = systemClose(fd)
            throw .writeFailed(path: destination, reason: reason)
        }
        if systemClose(fd) != 0 { throw .writeFailed(path: destination, reason: String(cString: strerror(errno))) }
    }

    /// Closes the file and moves it to `destination`. With `replacing` false an existing
    /// destination is never overwritten (`link(2)`, which fails on an existing name),
    /// and is `OutputError.alreadyExists`.
    package func commit(replacing: Bool, what: String = "files") throws(OutputError) {
        if writesInPlace {
            defer { finished = true }
            try close()
            return
        }
        do throws(OutputError) {
            try close()
            if replacing {
                guard rename(temporaryPath, finalPath) == 0 else {
                    throw OutputError.writeFailed(path: destination, reason: String(cString: strerror(errno)))
                }
            } else if link(temporaryPath, finalPath) == 0 {
                unlink(temporaryPath)
            } else {
                let code = errno
                if code == EEXIST { throw OutputError.alreadyExists(path: destination, what: what) }
                // A file system without hard links: check, then rename.
                if access(finalPath, F_OK) == 0 { throw OutputError.alreadyExists(path: destination, what: what) }
                guard rename(temporaryPath, finalPath) == 0 else {
                    throw OutputError.writeFailed(path: destination, reason: String(cString: strerror(errno)))
                }
            }
        } catch {
            discard()
            throw error
        }
        finished = true
        TemporaryFiles.shared.unregister(temporaryPath)
        Self.syncDirectory(of: finalPath)
    }

    /// Closes and removes the temporary file; the destination is untouched. (A FIFO or
    /// device written in place is only closed: what it took cannot be taken back.)
    package func discard() {
        if descriptor >= 0 { _ = systemClose(descriptor) }
        descriptor = -1
        if writesInPlace {
            finished = true
            return
        }
        unlink(temporaryPath)
        TemporaryFiles.shared.unregister(temporaryPath)
        finished = true
    }

    /// `fsync` on the folder, so that the rename itself survives a crash.
    static func syncDirectory(of path: String) {
        var directory = path
        if let slash = directory.lastIndex(of: "/") {
            directory = slash == directory.startIndex ? "/" : String(directory[..<slash])
        } else {
            directory = "."
        }
        let fd = open(directory, O_RDONLY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            _ = systemClose(fd)
        }
    }
}

#if canImport(Glibc)
private let systemClose = Glibc.close
#elseif canImport(Darwin)
private let systemClose = Darwin.close
#endif
