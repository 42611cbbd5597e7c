/// Small, careful scans of SQL text read from `sqlite_master`.
enum SQLText {
    /// The predicate of a partial index, verbatim: the text after the top-level `WHERE`
    /// of its `CREATE INDEX` statement. String literals, quoted identifiers and comments
    /// are skipped, so a column named `"where"` does not confuse it.
    static func whereClause(ofCreateIndex sql: String) -> String? {
        let bytes = Array(sql.utf8)
        var index = 0
        var depth = 0
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
                index = skipQuoted(bytes, from: index, closing: byte)
                continue
            case UInt8(ascii: "["):
                index = skipQuoted(bytes, from: index, closing: UInt8(ascii: "]"))
                continue
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                continue
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < bytes.count, !(bytes[index] == UInt8(ascii: "*") && bytes[index + 1] == UInt8(ascii: "/")) { index += 1 }
                index += 2
                continue
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"): depth -= 1
            default:
                if depth == 0, isWordStart(bytes, index), matchesKeyword(bytes, index, "WHERE") {
                    let rest = String(decoding: bytes[(index + 5)...], as: UTF8.self)
                    return rest.trimmingSQLWhitespace()
                }
            }
            index += 1
        }
        return nil
    }

    private static func skipQuoted(_ bytes: [UInt8], from start: Int, closing: UInt8) -> Int {
        var index = start + 1
        while index < bytes.count {
            if bytes[index] == closing {
                // A doubled quote is an escaped quote.
                if index + 1 < bytes.count, bytes[index + 1] == closing, closing != UInt8(ascii: "]") {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return index
    }

    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte >= 0x80 || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "$")
    }

    private static func isWordStart(_ bytes: [UInt8], _ index: Int) -> Bool {
        index == 0 || !isIdentifierByte(bytes[index - 1])
    }

    private static func matchesKeyword(_ bytes: [UInt8], _ index: Int, _ keyword: String) -> Bool {
        let word = Array(keyword.utf8)
        guard index + word.count <= bytes.count else { return false }
        for (offset, letter) in word.enumerated() where bytes[index + offset] | 0x20 != letter | 0x20 {
            return false
        }
        return index + word.count == bytes.count || !isIdentifierByte(bytes[index + word.count])
    }
}

extension String {
    func trimmingSQLWhitespace() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace || first == ";" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last.isWhitespace || last == ";" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
