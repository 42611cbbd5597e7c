/// `export --param NAME=VALUE` for a PostgreSQL `--query`: each `:name` becomes a
/// numbered parameter (`$1`, ...) that the values are bound to as text, never spliced into
/// the SQL. PostgreSQL has no named parameters, so the query is scanned as its lexer
/// would: string literals (`'...'`, `E'...'`), quoted identifiers, dollar-quoted strings,
/// comments and `::` casts are passed over. Written by hand: psql's variable
/// interpolation does the same scan, but no library here offers it.
struct PostgresQueryParameters {
    /// The query with `$n` in place of each `:name`.
    var sql: String
    /// The value of `$1`, `$2`, ...
    var values: [String]

    /// `bindsNames` false: the query has no `--param`, and only a positional `$1` is
    /// looked for (`:name` is PostgreSQL's as written there, an array slice `a[lo:hi]`).
    init(query: String, parameters: [String: String], bindsNames: Bool = true) throws(ExportError) {
        let bytes = Array(query.utf8)
        var out: [UInt8] = []
        var order: [String] = []
        var used = Set<String>()
        func isIdentifier(_ byte: UInt8) -> Bool {
            byte == 0x5F || (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte >= 0x80 || byte == 0x24
        }
        func isIdentifierStart(_ byte: UInt8) -> Bool { byte == 0x5F || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte >= 0x80 }
        var index = 0
        /// Copies bytes up to and including the first `terminator` sequence from `index`.
        func copyThrough(_ terminator: [UInt8], from start: Int) -> Int {
            var at = start
            while at < bytes.count {
                if bytes[at] == terminator[0], at + terminator.count <= bytes.count, Array(bytes[at ..< at + terminator.count]) == terminator {
                    at += terminator.count
                    out.append(contentsOf: bytes[start ..< at])
                    return at
                }
                at += 1
            }
            out.append(contentsOf: bytes[start...])
            return bytes.count
        }
        while index < bytes.count {
            let byte = bytes[index]
            let previous = index > 0 ? bytes[index - 1] : 0
            let next = index + 1 < bytes.count ? bytes[index + 1] : 0
            switch byte {
            case 0x27, 0x22:  // '...' and "identifier" (doubled quotes inside; backslash escapes in E'...')
                let escapes = byte == 0x27 && (previous == 0x45 || previous == 0x65) && !(index >= 2 && isIdentifier(bytes[index - 2]))
                var at = index + 1
                while at < bytes.count {
                    if escapes && bytes[at] == 0x5C { at += 2; continue }
                    if bytes[at] == byte {
                        if at + 1 < bytes.count && bytes[at + 1] == byte { at += 2; continue }
                        break
                    }
                    at += 1
                }
                let end = min(at + 1, bytes.count)
                out.append(contentsOf: bytes[index ..< end])
                index = end
            case 0x2D where next == 0x2D:  // -- comment
                index = copyThrough([0x0A], from: index)
            case 0x2F where next == 0x2A:  // /* comment */, nested
                var depth = 0
                var at = index
                while at < bytes.count {
                    if bytes[at] == 0x2F && at + 1 < bytes.count && bytes[at + 1] == 0x2A { depth += 1; at += 2; continue }
                    if bytes[at] == 0x2A && at + 1 < bytes.count && bytes[at + 1] == 0x2F {
                        depth -= 1
                        at += 2
                        if depth == 0 { break }
                        continue
                    }
                    at += 1
                }
                out.append(contentsOf: bytes[index ..< at])
                index = at
            case 0x24 where !isIdentifier(previous):  // $1, or $tag$ ... $tag$
                if next >= 0x30 && next <= 0x39 {
                    var at = index + 1
                    while at < bytes.count, bytes[at] >= 0x30 && bytes[at] <= 0x39 { at += 1 }
                    throw .positionalPostgresParameter(String(decoding: bytes[index ..< at], as: UTF8.self))
                }
                var at = index + 1
                while at < bytes.count, isIdentifier(bytes[at]), bytes[at] != 0x24 { at += 1 }
                if at < bytes.count && bytes[at] == 0x24 && (at == index + 1 || isIdentifierStart(bytes[index + 1])) {
                    let tag = Array(bytes[index ... at])
                    out.append(contentsOf: tag)
                    index = copyThrough(tag, from: at + 1)
                } else {
                    out.append(byte)
                    index += 1
                }
            case 0x3A where next == 0x3A:  // :: cast
                out.append(contentsOf: [0x3A, 0x3A])
                index += 2
            case 0x3A where bindsNames && isIdentifierStart(next) && previous != 0x3A:
                var at = index + 1
                while at < bytes.count, isIdentifier(bytes[at]), bytes[at] != 0x24 { at += 1 }
                let name = String(decoding: bytes[index + 1 ..< at], as: UTF8.self)
                guard parameters[name] != nil else { throw .unboundPostgresParameter(name: name) }
                if !used.contains(name) {
                    used.insert(name)
                    order.append(name)
                }
                out.append(contentsOf: Array("$\(order.firstIndex(of: name)! + 1)".utf8))
                index = at
            default:
                out.append(byte)
                index += 1
            }
        }
        for name in parameters.keys.sorted() where !used.contains(name) {
            throw .unknownParameter(name: name, known: order)
        }
        sql = String(decoding: out, as: UTF8.self)
        values = order.map { parameters[$0]! }
    }
}
