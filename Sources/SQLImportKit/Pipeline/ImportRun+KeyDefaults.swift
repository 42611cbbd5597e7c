import Foundation
import GRDB

/// A record that omits a column of the conflict target which has a constant DEFAULT
/// (`remoteID TEXT DEFAULT ''`, `deleted INTEGER NOT NULL DEFAULT 0`): SQLite's own upsert
/// inserts the default there and matches the row on it, so that default is the record's
/// key. The write loop fills it in before anything looks at the key (the null-key rule,
/// repeated keys, a first load's plain inserts, the statement's columns), as if the
/// record had given it. (It was read as a NULL key: the record was refused or set aside,
/// or with key-ordered runs, written before an earlier record of the same key.)
///
/// A default that is not a literal (`CURRENT_TIMESTAMP`, an expression) is SQLite's to
/// compute on each insert: a record that omits such a column has no key sqlimport can
/// know, and stays a NULL key (`--null-key`).
extension ImportRun {
    /// The literal defaults of the target's columns, by table column: read once.
    func targetColumnDefaults() throws -> [Int: DatabaseValue] {
        if let known = keyDefaultsOfTarget { return known }
        var defaults: [Int: DatabaseValue] = [:]
        if let target, let schema {
            for name in target.columns {
                // (SQLite gives an omitted rowid alias a new rowid, never its DEFAULT.)
                guard let index = schema.columnIndex(named: name), schema.rowidAlias != schema.columns[index].name,
                    let sql = schema.columns[index].defaultSQL, Self.isLiteral(sql)
                else { continue }
                let value = try DatabaseValue.fetchOne(db, sql: "SELECT \(sql)") ?? .null
                if !value.isNull { defaults[index] = value }
            }
        }
        keyDefaultsOfTarget = defaults
        return defaults
    }

    /// Fills the target's columns that records of `batch` omit with their literal
    /// defaults.
    func fillKeyDefaults(_ batch: RecordBatch) throws {
        let defaults = try targetColumnDefaults()
        guard !defaults.isEmpty else { return }
        for (index, value) in defaults.sorted(by: { $0.key < $1.key }) {
            guard let input = tableColumnOfInput.firstIndex(where: { $0 == index }) else { continue }
            switch value.storage {
            case .int64(let integer): batch.fillAbsent(column: input, with: .integer(integer))
            case .double(let real): batch.fillAbsent(column: input, with: .real(real))
            case .string(let text): batch.fillAbsent(column: input, text: text, kind: .text)
            default: continue
            }
        }
    }

    /// Whether a column's DEFAULT is a literal: a number, a string, TRUE or FALSE
    /// (in parentheses or not). NULL and BLOB literals are left to SQLite.
    static func isLiteral(_ sql: String) -> Bool {
        var text = Substring(sql.trimmingCharacters(in: .whitespaces))
        while text.hasPrefix("("), text.hasSuffix(")") { text = text.dropFirst().dropLast().drop { $0 == " " } }
        text = Substring(text.trimmingCharacters(in: .whitespaces))
        let upper = text.uppercased()
        if upper == "TRUE" || upper == "FALSE" { return true }
        if text.hasPrefix("'"), text.hasSuffix("'"), text.count >= 2 {
            // Quotes inside come in pairs ('it''s').
            return text.dropFirst().dropLast().replacingOccurrences(of: "''", with: "").contains("'") == false
        }
        return text.wholeMatch(of: /[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]?0[xX][0-9a-fA-F]+/) != nil
    }
}
