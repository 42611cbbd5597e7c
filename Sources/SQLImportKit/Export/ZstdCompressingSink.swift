import CZstd

/// Compresses a stream with `ZSTD_compressStream2` into another sink: one zstd frame,
/// with a content checksum, readable by the stock `zstd -d`.
package final class ZstdCompressingSink: ByteSink {
    /// The levels libzstd accepts (negative levels are its fastest modes).
    package static var levels: ClosedRange<Int> { Int(ZSTD_minCLevel()) ... Int(ZSTD_maxCLevel()) }
    /// The level of `--zstd` without a value, and of `sqlimport snapshot`.
    package static let defaultLevel = 3

    private let base: ByteSink
    private let context: OpaquePointer
    private let output: UnsafeMutableRawBufferPointer

    /// - Parameters:
    ///   - level: a level in `levels`.
    ///   - workers: libzstd's worker threads (`ZSTD_c_nbWorkers`); 0 compresses on the
    ///     calling thread.
    ///   - pledgedSize: the exact number of bytes that will be written, when known: it is
    ///     recorded in the frame header (`zstd -l` shows it).
    package init(base: ByteSink, level: Int = defaultLevel, workers: Int = 0, pledgedSize: UInt64? = nil) throws(OutputError) {
        guard let context = ZSTD_createCCtx() else { throw .compressionFailed(compression: .zstd, reason: "out of memory") }
        self.base = base
        self.context = context
        output = .allocate(byteCount: ZSTD_CStreamOutSize(), alignment: 16)
        try check(ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, Int32(level)), "level \(level)")
        try check(ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1), "checksum")
        if workers > 0 {
            try check(ZSTD_CCtx_setParameter(context, ZSTD_c_nbWorkers, Int32(workers)), "\(workers) worker threads (is libzstd built with multithreading?)")
        }
        if let pledgedSize { try check(ZSTD_CCtx_setPledgedSrcSize(context, pledgedSize), "pledged size") }
    }

    deinit {
        ZSTD_freeCCtx(context)
        output.deallocate()
    }

    package var bytesWritten: Int64 { base.bytesWritten }

    package func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        guard bytes.count > 0 else { return }
        var input = ZSTD_inBuffer(src: bytes.baseAddress, size: bytes.count, pos: 0)
        while input.pos < input.size {
            _ = try compress(&input, ZSTD_e_continue)
        }
    }

    package func finish() throws(OutputError) {
        var input = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        while try compress(&input, ZSTD_e_end) != 0 {}
        try base.finish()
    }

    /// One call of `ZSTD_compressStream2`, its output handed on; returns its hint (0 when
    /// a `ZSTD_e_end` frame is complete).
    private func compress(_ input: inout ZSTD_inBuffer, _ directive: ZSTD_EndDirective) throws(OutputError) -> Int {
        var out = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
        let remaining = ZSTD_compressStream2(context, &out, &input, directive)
        try check(remaining, "compressing")
        if out.pos > 0 { try base.write(UnsafeRawBufferPointer(rebasing: output[..<out.pos])) }
        return remaining
    }

    private func check(_ code: Int, _ what: String) throws(OutputError) {
        if ZSTD_isError(code) != 0 {
            throw .compressionFailed(compression: .zstd, reason: "\(what): \(String(cString: ZSTD_getErrorName(code)))")
        }
    }
}
