/// Small, careful scans of SQL text read from `sqlite_master`.
enum SQLText {
    /// The predicate of a partial index, verbatim: the text after the top-level `WHERE`
    /// of its `CREATE INDEX` statement. String literals, quoted identifiers and comments
    /// are skipped, so a column named `"where"` does not confuse it.
    static func whereClause(ofCreateIndex sql: String) -> String? {
        let bytes = Array(sql.utf8)
        var clause: String?
        walkCode(bytes, in: 0 ..< bytes.count) { index, depth in
            guard depth == 0, isWordStart(bytes, index), matchesKeyword(bytes, index, "WHERE") else { return true }
            clause = String(decoding: bytes[(index + 5)...], as: UTF8.self).trimmingSQLWhitespace()
            return false
        }
        return clause
    }

    /// `expression` with each qualifier that names `table` (`excluded.deleted`,
    /// `"Excluded".deleted`, any case, any quoting) naming `alias` instead, as a statement
    /// that gives the table an alias must: the table's own name no longer resolves there.
    /// String literals and comments are kept as they are; a qualifier after a schema
    /// (`main.excluded.deleted`) is kept too.
    static func requalifying(_ expression: String, table: String, as alias: String) -> String {
        let bytes = Array(expression.utf8)
        let folded = table.sqliteFolded
        var result: [UInt8] = []
        var copied = 0
        var index = 0
        var previousCode: UInt8?
        while index < bytes.count {
            let start = index
            var name: String?
            if let skipped = skipQuotedOrComment(bytes, at: index) {
                index = skipped.end
                let opening = bytes[start]
                guard skipped.isQuoted, opening != UInt8(ascii: "'"), index - start >= 2 else { continue }
                let closing = opening == UInt8(ascii: "[") ? UInt8(ascii: "]") : opening
                var unquoted: [UInt8] = []
                var at = start + 1
                while at < index - 1 {
                    unquoted.append(bytes[at])
                    at += bytes[at] == closing && closing != UInt8(ascii: "]") ? 2 : 1
                }
                name = String(decoding: unquoted, as: UTF8.self)
            } else if isIdentifierByte(bytes[index]) {
                while index < bytes.count, isIdentifierByte(bytes[index]) { index += 1 }
                name = String(decoding: bytes[start ..< index], as: UTF8.self)
            } else {
                if !(bytes[index] == 0x20 || (0x09 ... 0x0D).contains(bytes[index])) { previousCode = bytes[index] }
                index += 1
                continue
            }
            defer { previousCode = bytes[index - 1] }
            guard let name, name.sqliteFolded == folded, previousCode != UInt8(ascii: ".") else { continue }
            let next = skipSpace(bytes, from: index, to: bytes.count)
            guard next < bytes.count, bytes[next] == UInt8(ascii: ".") else { continue }
            result += bytes[copied ..< start]
            result += Array(alias.utf8)
            copied = index
        }
        result += bytes[copied...]
        return String(decoding: result, as: UTF8.self)
    }

    /// The conflict clauses of a `CREATE TABLE` statement's constraints, in order:
    /// `UNIQUE ON CONFLICT REPLACE`, `PRIMARY KEY (a, b) ON CONFLICT ROLLBACK`, `NOT NULL
    /// ON CONFLICT REPLACE`. String literals, quoted identifiers and comments are skipped.
    static func conflictClauses(ofCreateTable sql: String) -> [DeclaredConflictClause] {
        // Words (upper-cased) and parentheses, in order.
        var tokens: [String] = []
        let bytes = Array(sql.utf8)
        var index = 0
        while index < bytes.count {
            if let skipped = skipQuotedOrComment(bytes, at: index) {
                // A quoted name or string is one token, never a keyword.
                if skipped.isQuoted { tokens.append("\"") }
                index = skipped.end
                continue
            }
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: ")"):
                tokens.append(String(UnicodeScalar(byte)))
            default:
                if isIdentifierByte(byte) {
                    let start = index
                    while index < bytes.count, isIdentifierByte(bytes[index]) { index += 1 }
                    tokens.append(String(decoding: bytes[start ..< index], as: UTF8.self).uppercased())
                    continue
                }
            }
            index += 1
        }
        var clauses: [DeclaredConflictClause] = []
        for (at, token) in tokens.enumerated() where token == "ON" && at + 2 < tokens.count && tokens[at + 1] == "CONFLICT" {
            guard let resolution = DeclaredConflictClause.Resolution(rawValue: tokens[at + 2]) else { continue }
            // Back over `ASC`/`DESC` and a column list to the constraint's keyword.
            var back = at - 1
            if back >= 0, tokens[back] == "ASC" || tokens[back] == "DESC" { back -= 1 }
            if back >= 0, tokens[back] == ")" {
                var depth = 0
                while back >= 0 {
                    if tokens[back] == ")" { depth += 1 } else if tokens[back] == "(" { depth -= 1 }
                    back -= 1
                    if depth == 0 { break }
                }
            }
            guard back >= 0 else { continue }
            let constraint: DeclaredConflictClause.Constraint
            switch tokens[back] {
            case "UNIQUE": constraint = .unique
            case "KEY" where back > 0 && tokens[back - 1] == "PRIMARY": constraint = .primaryKey
            case "NULL" where back > 0 && tokens[back - 1] == "NOT": constraint = .notNull
            default: continue
            }
            clauses.append(DeclaredConflictClause(constraint: constraint, resolution: resolution))
        }
        return clauses
    }

    /// The expressions of a `CREATE TABLE` statement's generated columns, by column name
    /// (`live INT GENERATED ALWAYS AS (deleted = 0) VIRTUAL` gives `live: deleted = 0`).
    static func generatedColumns(ofCreateTable sql: String) -> [(name: String, expression: String)] {
        let bytes = Array(sql.utf8)
        var result: [(name: String, expression: String)] = []
        for definition in columnDefinitions(bytes) {
            guard let name = leadingName(bytes, in: definition), let expression = generatedExpression(bytes, in: definition) else { continue }
            result.append((name, expression))
        }
        return result
    }

    /// The columns declared `NOT NULL ON CONFLICT REPLACE`, for which SQLite stores the
    /// default when given a NULL (SQLiteData's `id`s).
    static func nullReplacingColumns(ofCreateTable sql: String) -> [String] {
        let bytes = Array(sql.utf8)
        return columnDefinitions(bytes).compactMap { definition in
            guard let name = leadingName(bytes, in: definition) else { return nil }
            let clauses = conflictClauses(ofCreateTable: String(decoding: bytes[definition], as: UTF8.self))
            return clauses.contains(DeclaredConflictClause(constraint: .notNull, resolution: .replace)) ? name : nil
        }
    }

    /// The column definitions (and table constraints) of a `CREATE TABLE` statement: the
    /// text between the top-level commas of the outer parentheses.
    private static func columnDefinitions(_ bytes: [UInt8]) -> [Range<Int>] {
        var definitions: [Range<Int>] = []
        var start = 0
        walkCode(bytes, in: 0 ..< bytes.count) { index, depth in
            switch bytes[index] {
            case UInt8(ascii: "(") where depth == 0: start = index + 1
            case UInt8(ascii: ")") where depth == 1: definitions.append(start ..< index)
            case UInt8(ascii: ",") where depth == 1:
                definitions.append(start ..< index)
                start = index + 1
            default: break
            }
            return true
        }
        return definitions
    }

    /// The name a column definition begins with, unquoted.
    private static func leadingName(_ bytes: [UInt8], in range: Range<Int>) -> String? {
        let index = skipSpace(bytes, from: range.lowerBound, to: range.upperBound)
        guard index < range.upperBound else { return nil }
        let opening = bytes[index]
        if opening == UInt8(ascii: "\"") || opening == UInt8(ascii: "`") || opening == UInt8(ascii: "[") {
            let end = skipQuoted(bytes, from: index, closing: opening == UInt8(ascii: "[") ? UInt8(ascii: "]") : opening)
            let inner = String(decoding: bytes[(index + 1) ..< max(index + 1, end - 1)], as: UTF8.self)
            return opening == UInt8(ascii: "[") ? inner : inner.replacingOccurrences(of: String(UnicodeScalar(opening)) + String(UnicodeScalar(opening)), with: String(UnicodeScalar(opening)))
        }
        var end = index
        while end < range.upperBound, isIdentifierByte(bytes[end]) { end += 1 }
        guard end > index else { return nil }
        let word = String(decoding: bytes[index ..< end], as: UTF8.self)
        // A table constraint, not a column.
        return ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"].contains(word.uppercased()) ? nil : word
    }

    /// The text inside the parentheses after a definition's top-level `AS`.
    private static func generatedExpression(_ bytes: [UInt8], in range: Range<Int>) -> String? {
        var open: Int?
        walkCode(bytes, in: range) { index, depth in
            guard depth == 0, isWordStart(bytes, index), matchesKeyword(bytes, index, "AS") else { return true }
            let next = skipSpace(bytes, from: index + 2, to: range.upperBound)
            if next < range.upperBound, bytes[next] == UInt8(ascii: "(") { open = next }
            return false
        }
        guard let open else { return nil }
        var expression: String?
        walkCode(bytes, in: open ..< range.upperBound) { index, depth in
            guard depth == 1, bytes[index] == UInt8(ascii: ")") else { return true }
            expression = String(decoding: bytes[(open + 1) ..< index], as: UTF8.self)
            return false
        }
        return expression
    }

    /// Where the white space and comments from `start` end.
    private static func skipSpace(_ bytes: [UInt8], from start: Int, to end: Int) -> Int {
        var index = start
        while index < end {
            if bytes[index] == 0x20 || (0x09 ... 0x0D).contains(bytes[index]) {
                index += 1
            } else if let comment = skipQuotedOrComment(bytes, at: index), !comment.isQuoted {
                index = comment.end
            } else {
                break
            }
        }
        return index
    }

    /// Calls `body` with each byte's index in `range` outside string literals, quoted
    /// identifiers and comments, and the depth of parentheses before it, until it returns
    /// false.
    private static func walkCode(_ bytes: [UInt8], in range: Range<Int>, _ body: (_ index: Int, _ depth: Int) -> Bool) {
        var index = range.lowerBound
        var depth = 0
        while index < range.upperBound {
            if let skipped = skipQuotedOrComment(bytes, at: index) {
                index = skipped.end
                continue
            }
            guard body(index, depth) else { return }
            if bytes[index] == UInt8(ascii: "(") { depth += 1 } else if bytes[index] == UInt8(ascii: ")") { depth -= 1 }
            index += 1
        }
    }

    /// Where a string literal, quoted identifier or comment that begins at `index` ends,
    /// and whether it was quoted; nil when none begins there.
    private static func skipQuotedOrComment(_ bytes: [UInt8], at index: Int) -> (end: Int, isQuoted: Bool)? {
        let byte = bytes[index]
        switch byte {
        case UInt8(ascii: "'"), UInt8(ascii: "\""), UInt8(ascii: "`"):
            return (skipQuoted(bytes, from: index, closing: byte), true)
        case UInt8(ascii: "["):
            return (skipQuoted(bytes, from: index, closing: UInt8(ascii: "]")), true)
        case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
            var end = index
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            return (end, false)
        case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
            var end = index + 2
            while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
            return (end + 2, false)
        default:
            return nil
        }
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
