#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where output bytes go: a file, standard output, or a compressor in front of either.
/// The mirror of `ByteSource`.
package protocol ByteSink: AnyObject {
    /// Writes all of `bytes` (a sink never writes part of a chunk and returns).
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError)
    /// Ends the stream: a compressor writes its last block and trailer. The file itself
    /// is left open; its owner closes it.
    func finish() throws(OutputError)
    /// Bytes handed to the file descriptor so far (compressed bytes, for a compressor).
    var bytesWritten: Int64 { get }
}

extension ByteSink {
    /// Copies `source` to the end into this sink, in chunks of `chunkSize`; returns the
    /// number of bytes copied. Memory stays at one chunk.
    @discardableResult
    package func write(contentsOf source: ByteSource, chunkSize: Int = 1 << 20, progress: ((Int64) -> Void)? = nil) throws -> Int64 {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        var total: Int64 = 0
        while true {
            let count = try source.read(into: chunk)
            if count == 0 { return total }
            try write(UnsafeRawBufferPointer(rebasing: chunk[..<count]))
            total += Int64(count)
            progress?(total)
        }
    }
}

/// Writes to a file descriptor with `write(2)`, retrying short writes and `EINTR`.
/// `EPIPE` (a closed pipe; SIGPIPE is ignored by the CLI) is `OutputError.brokenPipe`.
package final class FileDescriptorSink: ByteSink {
    let descriptor: Int32
    let name: String
    package private(set) var bytesWritten: Int64 = 0

    /// A sink on an open descriptor that the caller keeps owning (`STDOUT_FILENO`, or an
    /// `AtomicOutputFile`'s).
    package init(descriptor: Int32, name: String) {
        self.descriptor = descriptor
        self.name = name
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        var offset = 0
        while offset < bytes.count {
            let count = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count >= 0 {
                offset += count
                bytesWritten += Int64(count)
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EPIPE { throw .brokenPipe }
            throw .writeFailed(path: name, reason: String(cString: strerror(code)))
        }
    }

    package func finish() throws(OutputError) {}
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif

/// Bytes gathered in memory and handed to a sink in chunks of about `flushThreshold`
/// (1 MiB): rows are encoded into one reusable buffer, so memory stays constant whatever
/// the number of rows.
struct ChunkedWriter {
    static let flushThreshold = 1 << 20
    var bytes: [UInt8] = []
    let sink: ByteSink
    /// Bytes handed to the sink so far (before compression).
    private(set) var bytesFlushed: Int64 = 0

    init(sink: ByteSink) {
        self.sink = sink
        bytes.reserveCapacity(Self.flushThreshold + (64 << 10))
    }

    /// Flushes when the buffer has reached the threshold.
    @inline(__always)
    mutating func flushIfFull() throws(OutputError) {
        if bytes.count >= Self.flushThreshold { try flush() }
    }

    mutating func flush() throws(OutputError) {
        guard !bytes.isEmpty else { return }
        let sink = sink
        // Array's closures rethrow untyped errors: carry the typed one out by hand.
        let failure: OutputError? = bytes.withUnsafeBytes { chunk in
            do throws(OutputError) { try sink.write(chunk) } catch { return error }
            return nil
        }
        if let failure { throw failure }
        bytesFlushed += Int64(bytes.count)
        bytes.removeAll(keepingCapacity: true)
        // One huge row may have grown the buffer: give the memory back.
        if bytes.capacity > 4 * Self.flushThreshold { bytes = []; bytes.reserveCapacity(Self.flushThreshold + (64 << 10)) }
    }
}
