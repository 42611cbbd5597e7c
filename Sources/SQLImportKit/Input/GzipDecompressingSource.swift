import CZlib

/// Streams a gzip input through zlib's `inflate`. Multi-member files (`cat a.gz b.gz`)
/// are read member after member, as `gzip -d` does.
final class GzipDecompressingSource: ByteSource {
    private let base: ByteSource
    private let name: String
    private let stream: UnsafeMutablePointer<z_stream>
    private let input: UnsafeMutableRawBufferPointer
    private var baseAtEnd = false
    private var memberOpen = true
    private var consumed: Int64 = 0

    init(base: ByteSource, name: String) throws(InputError) {
        self.base = base
        self.name = name
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        input = .allocate(byteCount: 1 << 18, alignment: 16)
        // 15 + 16: a 32 KiB window, and a gzip header and trailer.
        let status = inflateInit2_(stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            throw .corruptCompressedStream(input: name, compression: .gzip, byteOffset: 0, reason: "inflateInit failed (\(status))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        input.deallocate()
    }

    var rawBytesConsumed: Int64 { consumed - Int64(stream.pointee.avail_in) }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(InputError) -> Int {
        while true {
            if stream.pointee.avail_in == 0, !baseAtEnd {
                let count = try base.read(into: input)
                if count == 0 {
                    baseAtEnd = true
                } else {
                    consumed += Int64(count)
                    stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.pointee.avail_in = uInt(count)
                }
            }
            if stream.pointee.avail_in == 0, baseAtEnd {
                if memberOpen {
                    throw .truncatedCompressedStream(input: name, compression: .gzip, byteOffset: rawBytesConsumed)
                }
                return 0
            }
            if !memberOpen {
                // Another member follows the previous one's trailer.
                inflateReset(stream)
                memberOpen = true
            }
            stream.pointee.next_out = buffer.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(buffer.count)
            let status = inflate(stream, Z_NO_FLUSH)
            let produced = buffer.count - Int(stream.pointee.avail_out)
            switch status {
            case Z_STREAM_END:
                memberOpen = false
            case Z_OK, Z_BUF_ERROR:
                break
            default:
                let reason = stream.pointee.msg.map { String(cString: $0) } ?? "inflate error \(status)"
                throw .corruptCompressedStream(input: name, compression: .gzip, byteOffset: rawBytesConsumed, reason: reason)
            }
            if produced > 0 { return produced }
        }
    }
}
