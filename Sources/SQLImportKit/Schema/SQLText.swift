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
            if let skipped = skipQuotedOrComment(bytes, at: index) {
                index = skipped.end
                continue
            }
            let byte = bytes[index]
            switch byte {
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

/// One constraint's `ON CONFLICT` clause, as a table declares it.
package struct DeclaredConflictClause: Sendable, Equatable, Codable {
    package enum Constraint: String, Sendable, Codable {
        case primaryKey = "PRIMARY KEY"
        case unique = "UNIQUE"
        case notNull = "NOT NULL"
    }

    package enum Resolution: String, Sendable, Codable {
        case rollback = "ROLLBACK", abort = "ABORT", fail = "FAIL", ignore = "IGNORE", replace = "REPLACE"
    }

    package var constraint: Constraint
    package var resolution: Resolution

    /// A resolution sqlimport's statements override with `INSERT OR ABORT`: `REPLACE` on a
    /// key deletes the other row that holds the key, a row the input does not name, and
    /// `ROLLBACK` ends the run's transaction. (`REPLACE` on `NOT NULL` stores the column's
    /// default, as SQLiteData's ids rely on; `IGNORE` drops the record, counted.)
    package var isOverridden: Bool {
        resolution == .rollback || resolution == .replace && constraint != .notNull
    }
}
