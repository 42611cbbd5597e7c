/// What a trigger function's source shows about its writes, read without running it.
///
/// PostgreSQL checks an immediate foreign key at the end of each statement, so a batch of
/// records in one statement may pass where one statement per record fails when a
/// trigger writes a row that another record's key needs (`PostgresSchema
/// .foreignKeysSeeStatements`). One statement per record is about a thousand records a
/// second; the usual trigger (`NEW.updated_at := now()`) writes nothing, and batches are
/// fifty times faster. No catalog column says whether a function writes (a trigger
/// function is `VOLATILE` whatever it does), and no library reads PL/pgSQL, so this scan
/// is by hand: it decides "writes nothing" only where the text leaves no doubt, and
/// anything it cannot read counts as a write.
enum PostgresTriggerBody {
    /// Whether `source` (`pg_proc.prosrc` of a `plpgsql` or `sql` function) may write:
    /// it names a statement that writes or runs other SQL (`INSERT`, `UPDATE`,
    /// `DELETE`, `MERGE`, `TRUNCATE`, `COPY`, `EXECUTE`, `CALL`, ...) outside strings and
    /// comments; or an unterminated string or comment leaves the rest unread.
    /// `calls` gets the names the text calls as functions (`name(`), which may write
    /// unless they are built in or not `VOLATILE` (PostgreSQL refuses a write in a
    /// `STABLE` or `IMMUTABLE` function): the caller looks them up.
    static func mayWrite(_ source: String, calls: inout Set<String>) -> Bool {
        let bytes = Array(source.utf8)
        var index = 0
        var lastWord: String?
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"):
                // E'...' takes backslash escapes; '' is a quote in either.
                let escapes = index > 0 && bytes[index - 1] | 0x20 == UInt8(ascii: "e") && lastWordEnds(at: index, bytes)
                guard let end = closing(bytes, from: index + 1, quote: UInt8(ascii: "'"), backslashEscapes: escapes) else { return true }
                index = end
                lastWord = nil
                continue
            case UInt8(ascii: "\""):
                // A quoted name is never a keyword; as a function's name it is called.
                guard let end = closing(bytes, from: index + 1, quote: UInt8(ascii: "\""), backslashEscapes: false) else { return true }
                lastWord = String(decoding: bytes[(index + 1) ..< (end - 1)], as: UTF8.self).replacingOccurrences(of: "\"\"", with: "\"")
                index = end
                continue
            case UInt8(ascii: "$") where !(index > 0 && isWordByte(bytes[index - 1])):
                // $tag$ ... $tag$ (or $$ ... $$); $1 is a parameter.
                var tagEnd = index + 1
                while tagEnd < bytes.count, isWordByte(bytes[tagEnd]), bytes[tagEnd] != UInt8(ascii: "$") { tagEnd += 1 }
                guard tagEnd < bytes.count, bytes[tagEnd] == UInt8(ascii: "$"),
                    index + 1 == tagEnd || !(UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[index + 1])
                else {
                    index += 1
                    continue
                }
                let tag = Array(bytes[index ... tagEnd])
                var end = tagEnd + 1
                while end + tag.count <= bytes.count, !bytes[end ..< end + tag.count].elementsEqual(tag) { end += 1 }
                guard end + tag.count <= bytes.count else { return true }
                index = end + tag.count
                lastWord = nil
                continue
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                continue
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                // Block comments nest in PostgreSQL.
                var depth = 0
                repeat {
                    if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "/"), bytes[index + 1] == UInt8(ascii: "*") {
                        depth += 1
                        index += 2
                    } else if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "*"), bytes[index + 1] == UInt8(ascii: "/") {
                        depth -= 1
                        index += 2
                    } else {
                        index += 1
                    }
                } while depth > 0 && index < bytes.count
                guard depth == 0 else { return true }
                continue
            case UInt8(ascii: "("):
                if let name = lastWord { calls.insert(name.lowercased()) }
                lastWord = nil
            default:
                if isWordByte(byte) {
                    let start = index
                    while index < bytes.count, isWordByte(bytes[index]) { index += 1 }
                    let word = String(decoding: bytes[start ..< index], as: UTF8.self)
                    if writingWords.contains(word.uppercased()) { return true }
                    lastWord = word
                    continue
                }
                if !(byte == 0x20 || (0x09 ... 0x0D).contains(byte)) { lastWord = nil }
            }
            index += 1
        }
        return false
    }

    /// Words that start a statement that writes, or runs SQL the text does not show.
    /// (`UPDATE` also in `SELECT ... FOR UPDATE`, and `EXECUTE` in `EXECUTE FUNCTION`:
    /// counted as writes, which only costs speed.)
    static let writingWords: Set<String> = [
        "INSERT", "UPDATE", "DELETE", "MERGE", "TRUNCATE", "COPY", "EXECUTE", "CALL", "DO", "PREPARE", "REFRESH", "ALTER", "CREATE", "DROP",
        "IMPORT",
    ]

    /// Built-in functions that run SQL given as text (`query_to_xml('DELETE ...')`).
    static let runsSQLText: Set<String> = ["query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml", "cursor_to_xmlschema"]

    private static func isWordByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80 || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    /// Whether the byte before `index` ends a word of one letter (`E'...'`).
    private static func lastWordEnds(at index: Int, _ bytes: [UInt8]) -> Bool {
        index < 2 || !isWordByte(bytes[index - 2])
    }

    /// The index after the closing quote of a string that starts at `start`, or nil.
    private static func closing(_ bytes: [UInt8], from start: Int, quote: UInt8, backslashEscapes: Bool) -> Int? {
        var index = start
        while index < bytes.count {
            if backslashEscapes, bytes[index] == UInt8(ascii: "\\") {
                index += 2
                continue
            }
            if bytes[index] == quote {
                if index + 1 < bytes.count, bytes[index + 1] == quote {
                    index += 2
                    continue
                }
                return index + 1
            }
            index += 1
        }
        return nil
    }
}
