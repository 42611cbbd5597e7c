#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written under a temporary name next to its destination and renamed into place
/// only when complete, so that no reader ever sees half a file and a failure leaves the
/// destination as it was. The temporary file is registered with `TemporaryFiles` for
/// removal on a signal, and removed on failure or when the value is dropped uncommitted.
package final class AtomicOutputFile {
    /// The final path.
    package let destination: String
    /// The path being written.
    package let temporaryPath: String
    /// The open descriptor of the temporary file.
    package private(set) var descriptor: Int32 = -1
    private var finished = false

    /// Creates the temporary file (exclusively, mode 0666 less the umask).
    package init(destination: String, purpose: String = "partial") throws(OutputError) {
        self.destination = destination
        temporaryPath = TemporaryFiles.sibling(of: destination, purpose: purpose)
        TemporaryFiles.shared.register(temporaryPath)
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            TemporaryFiles.shared.unregister(temporaryPath)
            throw .cannotCreate(path: destination, reason: reason)
        }
        descriptor = fd
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
        if fsync(fd) != 0 {
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
        do throws(OutputError) {
            try close()
            if replacing {
                guard rename(temporaryPath, destination) == 0 else {
                    throw OutputError.writeFailed(path: destination, reason: String(cString: strerror(errno)))
                }
            } else if link(temporaryPath, destination) == 0 {
                unlink(temporaryPath)
            } else {
                let code = errno
                if code == EEXIST { throw OutputError.alreadyExists(path: destination, what: what) }
                // A file system without hard links: check, then rename.
                if access(destination, F_OK) == 0 { throw OutputError.alreadyExists(path: destination, what: what) }
                guard rename(temporaryPath, destination) == 0 else {
                    throw OutputError.writeFailed(path: destination, reason: String(cString: strerror(errno)))
                }
            }
        } catch {
            discard()
            throw error
        }
        finished = true
        TemporaryFiles.shared.unregister(temporaryPath)
        Self.syncDirectory(of: destination)
    }

    /// Closes and removes the temporary file; the destination is untouched.
    package func discard() {
        if descriptor >= 0 { _ = systemClose(descriptor) }
        descriptor = -1
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
