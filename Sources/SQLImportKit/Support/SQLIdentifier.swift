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
    package var sqliteFolded: String {
        var folded = String()
        folded.unicodeScalars.reserveCapacity(unicodeScalars.count)
        for scalar in unicodeScalars {
            folded.unicodeScalars.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value | 0x20)! : scalar)
        }
        return folded
    }
}
