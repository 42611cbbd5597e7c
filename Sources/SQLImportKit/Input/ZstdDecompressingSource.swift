import CZstd

/// Streams a zstd input through `ZSTD_decompressStream`, one compressed chunk at a time.
/// Concatenated frames are read one after the other, as the `zstd` tool does.
final class ZstdDecompressingSource: ByteSource {
    private let base: ByteSource
    private let name: String
    private let stream: OpaquePointer
    private let input: UnsafeMutableRawBufferPointer
    private var inputStart = 0
    private var inputEnd = 0
    private var baseAtEnd = false
    /// `ZSTD_decompressStream`'s last hint: 0 when the current frame is complete.
    private var frameHint = 1
    private var consumed: Int64 = 0

    init(base: ByteSource, name: String) throws(InputError) {
        self.base = base
        self.name = name
        guard let stream = ZSTD_createDStream() else {
            throw .corruptCompressedStream(input: name, compression: .zstd, byteOffset: 0, reason: "out of memory")
        }
        self.stream = stream
        ZSTD_initDStream(stream)
        input = .allocate(byteCount: ZSTD_DStreamInSize(), alignment: 16)
    }

    deinit {
        ZSTD_freeDStream(stream)
        input.deallocate()
    }

    var rawBytesConsumed: Int64 { consumed }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        while true {
            if inputStart == inputEnd, !baseAtEnd {
                inputStart = 0
                inputEnd = try base.read(into: input)
                if inputEnd == 0 { baseAtEnd = true }
            }
            if inputStart == inputEnd, baseAtEnd {
                if frameHint != 0 {
                    throw .truncatedCompressedStream(input: name, compression: .zstd, byteOffset: consumed)
                }
                return 0
            }
            var inBuffer = ZSTD_inBuffer(src: input.baseAddress! + inputStart, size: inputEnd - inputStart, pos: 0)
            var outBuffer = ZSTD_outBuffer(dst: buffer.baseAddress, size: buffer.count, pos: 0)
            let hint = ZSTD_decompressStream(stream, &outBuffer, &inBuffer)
            if ZSTD_isError(hint) != 0, ZSTD_getErrorCode(hint) == ZSTD_error_frameParameter_windowTooLarge {
                throw .zstdWindowTooLarge(input: name)
            }
            if ZSTD_isError(hint) != 0 {
                // libzstd leaves `pos` where the call began: the damage lies in the bytes
                // it was given, so name the end of those (a checksum error is then exact).
                throw .corruptCompressedStream(
                    input: name, compression: .zstd, byteOffset: consumed + Int64(inBuffer.size),
                    reason: String(cString: ZSTD_getErrorName(hint)))
            }
            frameHint = hint
            inputStart += inBuffer.pos
            consumed += Int64(inBuffer.pos)
            if outBuffer.pos > 0 { return outBuffer.pos }
        }
    }
}
