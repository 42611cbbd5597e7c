import CZlib

/// Compresses a stream with zlib's `deflate` in a gzip wrapper (one member), readable by
/// the stock `gzip -d`.
package final class GzipCompressingSink: ByteSink {
    private let base: ByteSink
    private let stream: UnsafeMutablePointer<z_stream>
    private let output: UnsafeMutableRawBufferPointer

    /// - Parameter level: 1 (fastest) to 9 (smallest); zlib's default is 6.
    package init(base: ByteSink, level: Int = Int(Z_DEFAULT_COMPRESSION)) throws(OutputError) {
        self.base = base
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = .allocate(byteCount: 1 << 18, alignment: 16)
        // 15 + 16: a 32 KiB window, with a gzip header and trailer.
        let status = deflateInit2_(
            stream, Int32(level), Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            // deinit frees the buffers; deflateEnd ignores a stream that never started.
            throw .compressionFailed(compression: .gzip, reason: "deflateInit failed (\(status))")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        output.deallocate()
    }

    package var bytesWritten: Int64 { base.bytesWritten }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        guard bytes.count > 0 else { return }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(bytes.count)
        while stream.pointee.avail_in > 0 {
            _ = try deflateStep(Z_NO_FLUSH)
        }
    }

    package func finish() throws(OutputError) {
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        while try deflateStep(Z_FINISH) != Z_STREAM_END {}
        try base.finish()
    }

    private func deflateStep(_ flush: Int32) throws(OutputError) -> Int32 {
        stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = uInt(output.count)
        let status = deflate(stream, flush)
        guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
            throw .compressionFailed(compression: .gzip, reason: "deflate error \(status)")
        }
        let produced = output.count - Int(stream.pointee.avail_out)
        if produced > 0 { try base.write(UnsafeRawBufferPointer(rebasing: output[..<produced])) }
        return status
    }
}
