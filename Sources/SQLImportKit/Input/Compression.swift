/// How an input's bytes are compressed, detected from its first bytes (magic numbers),
/// never from its name alone.
public enum Compression: String, Sendable, Codable {
    case none
    case zstd
    case gzip

    /// zstd frames start with 28 B5 2F FD, zstd's skippable frames (which `pzstd` and
    /// seekable-format writers put first) with 5? 2A 4D 18, gzip members with 1F 8B.
    public static func detect(_ magic: some Collection<UInt8>) -> Compression {
        let bytes = Array(magic.prefix(4))
        if bytes.count >= 4, bytes[0] == 0x28, bytes[1] == 0xB5, bytes[2] == 0x2F, bytes[3] == 0xFD { return .zstd }
        if bytes.count >= 4, bytes[0] & 0xF0 == 0x50, bytes[1] == 0x2A, bytes[2] == 0x4D, bytes[3] == 0x18 { return .zstd }
        if bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B { return .gzip }
        return .none
    }

    var checkCommand: String {
        switch self {
        case .zstd: return "zstd -t"
        case .gzip: return "gzip -t"
        case .none: return "cat"
        }
    }
}

/// An opened input: its name, its compression and the decompressed byte stream.
public final class InputSource {
    public let name: String
    public let compression: Compression
    package private(set) var source: ByteSource
    /// The on-disk size, when the input is a regular file.
    public let fileSize: Int64?
    /// The file the bytes come from, for `fileBytesConsumed`.
    private let file: FileDescriptorSource?

    /// Bytes read from the file so far (compressed bytes for a compressed input).
    package var fileBytesConsumed: Int64 { file?.rawBytesConsumed ?? 0 }

    /// Opens `path` (or `-` for standard input) and wraps it in the decompressor its
    /// magic bytes call for.
    /// - Parameters:
    ///   - path: The file, or `-` for standard input.
    ///   - acceptsAnyFile: false refuses files that are no input to import (a SQLite
    ///     database, a ZIP archive, ...; `InputError.notAnInput`); `restore` reads a
    ///     database.
    public convenience init(path: String, acceptsAnyFile: Bool = false) throws(InputError) {
        let file = try FileDescriptorSource(path: path)
        try self.init(name: path, raw: file, fileSize: path == "-" ? nil : Self.regularFileSize(path), acceptsAnyFile: acceptsAnyFile)
    }

    /// Wraps an opened byte stream (a file, or bytes in memory in the fuzz harness) in the
    /// decompressor its magic bytes call for.
    init(name: String, raw file: ByteSource, fileSize: Int64?, acceptsAnyFile: Bool = false) throws(InputError) {
        var magic: [UInt8] = []
        let probe = UnsafeMutableRawBufferPointer.allocate(byteCount: 16, alignment: 1)
        defer { probe.deallocate() }
        while magic.count < 16 {
            let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: probe[magic.count...]))
            if count == 0 { break }
            magic.append(contentsOf: probe[magic.count ..< magic.count + count])
        }
        if !acceptsAnyFile, let kind = ForeignFile.detect(magic) { throw .notAnInput(path: name, kind: kind) }
        let raw = PrefixedSource(prefix: magic, base: file)
        self.file = file as? FileDescriptorSource
        self.name = name
        compression = Compression.detect(magic)
        switch compression {
        case .none: source = raw
        case .zstd: source = try ZstdDecompressingSource(base: raw, name: name)
        case .gzip: source = try GzipDecompressingSource(base: raw, name: name)
        }
        self.fileSize = fileSize
    }

    /// Transcodes the (decompressed) stream from `encoding` to UTF-8.
    func decode(_ encoding: TextEncoding) {
        guard encoding != .utf8 else { return }
        source = TranscodingSource(base: source, name: name, encoding: encoding)
    }

    static func regularFileSize(_ path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
