/// Quoting of SQL identifiers.
///
/// Every name that comes from input (JSON keys, CSV headers, file names, `--upsert`
/// columns) reaches SQL only through these functions: the name is wrapped in double
/// quotes and any `"` inside it is doubled, so `a"; DROP TABLE x; --` becomes the
/// identifier `"a""; DROP TABLE x; --"` and nothing else.
package enum SQLIdentifier {
    /// `items` → `"items"`, `a"b` → `"a""b"`.
    package static func quote(_ name: String) -> String {
        var quoted = "\""
        quoted.reserveCapacity(name.utf8.count + 2)
        for character in name.unicodeScalars {
            if character == "\"" { quoted += "\"\"" } else { quoted.unicodeScalars.append(character) }
        }
        quoted += "\""
        return quoted
    }

    /// `["a", "b"]` → `"a", "b"`.
    package static func quoteList(_ names: [String]) -> String {
        names.map(quote).joined(separator: ", ")
    }

    /// A string literal for SQL: `it's` → `'it''s'`.
    package static func literal(_ text: String) -> String {
        var quoted = "'"
        for character in text.unicodeScalars {
            if character == "'" { quoted += "''" } else { quoted.unicodeScalars.append(character) }
        }
        return quoted + "'"
    }
}

extension StringProtocol {
    /// The name as SQLite compares identifiers: ASCII letters lowercased, every other
    /// character kept (`sqlite3StrICmp`). `É` and `é` are two columns to SQLite, where
    /// `lowercased()` would make them one.
    package var sqliteFolded: NameKey {
        var folded = String()
        folded.unicodeScalars.reserveCapacity(unicodeScalars.count)
        for scalar in unicodeScalars {
            folded.unicodeScalars.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value | 0x20)! : scalar)
        }
        return NameKey(folded)
    }
}

/// A name as a key: compared and hashed by its bytes. `sqliteFolded` makes the key by
/// which SQLite compares identifiers; `NameKey(name)` keeps the name exactly. Why not a
/// `String`: Swift compares strings by canonical equivalence, so `café` composed and
/// decomposed, or `K` and the Kelvin sign (U+212A), would be one key, and two fields or
/// columns that SQLite keeps apart would become one, one value silently lost.
package struct NameKey: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The name (folded, when made by `sqliteFolded`).
    package let text: String

    package init(_ text: String) { self.text = text }
    package init(stringLiteral text: String) { self.init(text) }

    package var description: String { text }

    package static func == (lhs: NameKey, rhs: NameKey) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    package func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(text.utf8.count)
    }
}
