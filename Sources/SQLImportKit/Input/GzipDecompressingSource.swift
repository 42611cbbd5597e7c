import CZlib

/// Streams a gzip input through zlib's `inflate`. Multi-member files (`cat a.gz b.gz`)
/// are read member after member, as `gzip -d` does, and zero bytes after the last member
/// (padding to a block size) are skipped, as `gzip -d` skips them. Other bytes after a
/// member that start no member are an error (`gzip -d` ignores them with a warning): a
/// damaged member would lose its records without a word.
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
            if stream.pointee.avail_in == 0, !baseAtEnd { try refill() }
            if stream.pointee.avail_in == 0, baseAtEnd {
                if memberOpen {
                    throw .truncatedCompressedStream(input: name, compression: .gzip, byteOffset: rawBytesConsumed)
                }
                return 0
            }
            if !memberOpen {
                guard try anotherMemberFollows() else { return 0 }
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

    /// Reads more input after the `avail_in` bytes not yet consumed, which move to the
    /// buffer's start.
    private func refill() throws(InputError) {
        let kept = Int(stream.pointee.avail_in)
        if kept > 0, let next = stream.pointee.next_in { input.baseAddress!.copyMemory(from: next, byteCount: kept) }
        let count = try base.read(into: UnsafeMutableRawBufferPointer(rebasing: input[kept...]))
        if count == 0 { baseAtEnd = true }
        consumed += Int64(count)
        stream.pointee.next_in = input.baseAddress!.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = uInt(kept + count)
    }

    /// After a member's trailer: true when another member starts, false at the end of the
    /// input (past zero bytes, padding); other bytes are `InputError.trailingGarbage`.
    private func anotherMemberFollows() throws(InputError) -> Bool {
        var padding = false
        while true {
            if stream.pointee.avail_in < 2, !baseAtEnd {
                try refill()
                continue
            }
            let available = Int(stream.pointee.avail_in)
            guard available > 0, let next = stream.pointee.next_in else { return false }
            if next[0] == 0 {
                var zeros = 0
                while zeros < available, next[zeros] == 0 { zeros += 1 }
                stream.pointee.next_in = next + zeros
                stream.pointee.avail_in = uInt(available - zeros)
                padding = true
                continue
            }
            if !padding, available >= 2, next[0] == 0x1F, next[1] == 0x8B { return true }
            throw .trailingGarbage(input: name, byteOffset: rawBytesConsumed)
        }
    }
}
