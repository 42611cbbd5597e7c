#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A stream of bytes: a file, standard input, or a decompressor over either.
///
/// Sources are read in large chunks into a caller-owned buffer, so memory stays
/// bounded whatever the input size.
package protocol ByteSource: AnyObject {
    /// Reads up to `buffer.count` bytes; returns 0 only at the end of the stream.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int
    /// How many compressed (raw) bytes have been consumed so far, for error positions.
    var rawBytesConsumed: Int64 { get }
}

/// Reads a file descriptor with `read(2)`.
package final class FileDescriptorSource: ByteSource {
    let descriptor: Int32
    let name: String
    let ownsDescriptor: Bool
    package private(set) var rawBytesConsumed: Int64 = 0
    /// A regular file's size when it was opened: its end must come no sooner. (A file
    /// truncated while it was read ended early without a word, and `--delete-missing`
    /// deleted the rows of the records it no longer held.)
    let sizeAtOpen: Int64?

    /// Opens `path`, or standard input when `path` is `-`.
    package init(path: String) throws(InputError) {
        name = path
        if path == "-" {
            descriptor = STDIN_FILENO
            ownsDescriptor = false
            sizeAtOpen = nil
            return
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT { throw .notFound(path: path) }
            throw .unreadable(path: path, reason: String(cString: strerror(code)))
        }
        var info = stat()
        if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR {
            close(fd)
            throw .unreadable(path: path, reason: InputError.directoryReason)
        }
        descriptor = fd
        ownsDescriptor = true
        sizeAtOpen = (info.st_mode & S_IFMT) == S_IFREG ? Int64(info.st_size) : nil
    }

    deinit {
        if ownsDescriptor { close(descriptor) }
    }

    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 {
                rawBytesConsumed += Int64(count)
                if count == 0, buffer.count > 0, let sizeAtOpen, rawBytesConsumed < sizeAtOpen {
                    throw .shrankWhileRead(path: name, read: rawBytesConsumed, size: sizeAtOpen)
                }
                return count
            }
            if errno == EINTR { continue }
            throw .unreadable(path: name, reason: String(cString: strerror(errno)))
        }
    }
}

/// Replays bytes already read (the peeked magic bytes) before the rest of a source.
final class PrefixedSource: ByteSource {
    private var prefix: [UInt8]
    private var prefixIndex = 0
    private let base: ByteSource

    init(prefix: [UInt8], base: ByteSource) {
        self.prefix = prefix
        self.base = base
    }

    var rawBytesConsumed: Int64 { base.rawBytesConsumed - Int64(prefix.count - prefixIndex) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        if prefixIndex < prefix.count {
            let count = min(buffer.count, prefix.count - prefixIndex)
            prefix.withUnsafeBytes { bytes in
                buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + prefixIndex, byteCount: count)
            }
            prefixIndex += count
            // The rest of the buffer from the base, so that the first read is as large as
            // any other (a decompressor's error offsets name the end of a read).
            if count < buffer.count {
                return count + (try base.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...])))
            }
            return count
        }
        return try base.read(into: buffer)
    }
}
