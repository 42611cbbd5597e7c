/// Where a record came from: the input's name, its 1-based line and the byte offset of
/// its first byte in the (decompressed) stream. Every reader and write error carries one.
public struct SourcePosition: Sendable, Hashable, CustomStringConvertible {
    public var input: String
    public var line: Int
    public var byteOffset: Int64

    public init(input: String, line: Int, byteOffset: Int64) {
        self.input = input
        self.line = line
        self.byteOffset = byteOffset
    }

    /// `items.jsonl:12 (byte 3456)`
    public var description: String { "\(input):\(line) (byte \(byteOffset))" }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
