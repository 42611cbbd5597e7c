/// Whether what PostgreSQL runs for each record beside the row itself (a trigger, its
/// `WHEN` clause, a column default, a CHECK constraint) may write a row, read from the
/// catalog without running it.
///
/// PostgreSQL checks an immediate foreign key at the end of each statement, so a batch of
/// records in one statement may pass where one statement per record fails when a
/// trigger writes a row that another record's key needs (`PostgresSchema
/// .foreignKeysSeeStatements`). One statement per record is about a thousand records a
/// second; the usual trigger (`NEW.updated_at := now()`) writes nothing, and batches are
/// fifty times faster. No catalog column says whether a function writes (a `STABLE`
/// function may call one that does), and no library reads PL/pgSQL, so this is by hand,
/// and it only ever errs toward "may write": every name a text calls must be a built-in
/// function that runs no SQL of its own, a function whose own text writes nothing by the
/// same reading, a function in C of an extension other than `dblink` and
/// `postgres_fdw`, or a word of the language; anything else (an unknown name, a view, a
/// user-defined operator or cast, another language, dynamic SQL, a text it cannot read)
/// counts as a write.
enum PostgresTriggerBody {
    /// What the scan of one text found.
    struct Reading {
        /// A statement that writes or runs other SQL, or a text it cannot read.
        var mayWrite = false
        /// Names called as functions (`name(`): unquoted ones in ASCII lower case, quoted
        /// ones as written.
        var calls = Set<String>()
        /// Every other name, for the views a text may read.
        var names = Set<String>()
        /// The text outside strings and comments, for user-defined operators.
        var code: [UInt8] = []
    }

    /// Reads `source` (`pg_proc.prosrc` of a PL/pgSQL or SQL function, or an expression):
    /// its statements that write or run other SQL (`INSERT`, `UPDATE`, `DELETE`, `MERGE`,
    /// `EXECUTE`, `CALL`, ...) outside strings, quoted names and comments, and the names it
    /// calls. A string in Unicode escapes (`U&"..."`) or one left open counts as a write.
    static func read(_ source: String) -> Reading {
        var reading = Reading()
        let bytes = Array(source.utf8)
        var index = 0
        var lastName: String?
        func writes() -> Reading {
            reading.mayWrite = true
            return reading
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"):
                // E'...' takes backslash escapes; '' is a quote in either; U&'...' escapes.
                let prefix = index > 0 ? bytes[index - 1] | 0x20 : 0
                if prefix == UInt8(ascii: "&") { return writes() }
                let escapes = prefix == UInt8(ascii: "e") && (index < 2 || !isNameByte(bytes[index - 2]))
                guard let end = closing(bytes, from: index + 1, quote: byte, backslashEscapes: escapes) else { return writes() }
                index = end
                lastName = nil
                reading.code.append(0x20)
                continue
            case UInt8(ascii: "\""):
                if index > 0, bytes[index - 1] == UInt8(ascii: "&") { return writes() }
                guard let end = closing(bytes, from: index + 1, quote: byte, backslashEscapes: false) else { return writes() }
                let name = String(decoding: bytes[(index + 1) ..< (end - 1)], as: UTF8.self).replacingOccurrences(of: "\"\"", with: "\"")
                reading.names.insert(name)
                lastName = name
                index = end
                reading.code.append(0x20)
                continue
            case UInt8(ascii: "$") where !(index > 0 && isNameByte(bytes[index - 1])):
                // $tag$ ... $tag$ (or $$ ... $$); $1 is a parameter.
                var tagEnd = index + 1
                while tagEnd < bytes.count, isNameByte(bytes[tagEnd]), bytes[tagEnd] != UInt8(ascii: "$") { tagEnd += 1 }
                guard tagEnd < bytes.count, bytes[tagEnd] == UInt8(ascii: "$"),
                    index + 1 == tagEnd || !(UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(bytes[index + 1])
                else { break }
                let tag = Array(bytes[index ... tagEnd])
                var end = tagEnd + 1
                while end + tag.count <= bytes.count, !bytes[end ..< end + tag.count].elementsEqual(tag) { end += 1 }
                guard end + tag.count <= bytes.count else { return writes() }
                index = end + tag.count
                lastName = nil
                reading.code.append(0x20)
                continue
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                // To the end of the line: a line feed or a carriage return, as PostgreSQL ends it.
                while index < bytes.count, bytes[index] != 0x0A, bytes[index] != 0x0D { index += 1 }
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
                guard depth == 0 else { return writes() }
                reading.code.append(0x20)
                continue
            case UInt8(ascii: "("):
                if let name = lastName { reading.calls.insert(name) }
                lastName = nil
            default:
                if isNameByte(byte) && !(UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte) && byte != UInt8(ascii: "$") {
                    let start = index
                    while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
                    // PostgreSQL folds an unquoted name's ASCII letters only.
                    let name = String(decoding: bytes[start ..< index].map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
                    if writingWords.contains(name) { return writes() }
                    reading.names.insert(name)
                    lastName = name
                    reading.code.append(contentsOf: bytes[start ..< index])
                    continue
                }
                if !(byte == 0x20 || (0x09 ... 0x0D).contains(byte)) { lastName = nil }
            }
            reading.code.append(byte)
            index += 1
        }
        return reading
    }

    /// Words that start a statement that writes, or runs SQL the text does not show.
    /// (`UPDATE` also in `SELECT ... FOR UPDATE`: counted as a write, which only costs
    /// speed.)
    static let writingWords: Set<String> = [
        "insert", "update", "delete", "merge", "truncate", "copy", "execute", "call", "do", "prepare", "refresh", "alter", "create", "drop",
        "import", "set", "reset", "discard",
    ]

    /// Words of PL/pgSQL and SQL that may come before `(` without calling a function.
    static let syntax: Set<String> = [
        "if", "elsif", "while", "and", "or", "not", "in", "exists", "any", "all", "some", "case", "when", "then", "else", "values", "row",
        "array", "coalesce", "nullif", "greatest", "least", "cast", "extract", "substring", "position", "overlay", "trim", "return", "select",
        "from", "where", "on", "using", "as", "filter", "over", "partition", "within", "group", "order", "by", "returning", "loop", "for",
        "foreach", "query", "perform", "into", "strict", "raise", "assert", "like", "ilike", "similar", "between", "is", "distinct",
        "collate", "interval", "character", "precision", "double", "varying", "zone", "with", "without", "exception", "others", "begin",
        "end", "declare", "union", "intersect", "except", "join", "lateral", "unnest", "xmlelement", "xmlforest", "xmlattributes",
        "normalize", "grouping", "rollup", "cube", "sets", "limit", "offset", "fetch", "of", "to", "at",
    ]

    /// Built-in functions that run SQL given as text or read a table whose view may
    /// write (`query_to_xml('DELETE ...')`, `ts_stat('SELECT ...')`), or change how the
    /// text's names resolve (`set_config('search_path', ...)`).
    static func runsSQL(_ name: String) -> Bool {
        ["ts_stat", "ts_rewrite", "set_config"].contains(name) || name.hasSuffix("_to_xml") || name.hasSuffix("_to_xmlschema")
            || name.hasSuffix("_to_xml_and_xmlschema")
    }

    /// Extensions whose functions in C compute values and write no row (an extension such
    /// as `dblink` or `pg_background` runs SQL: any other counts as one that writes).
    static let extensionsThatWriteNothing: Set<String> = [
        "uuid-ossp", "pgcrypto", "citext", "pg_trgm", "hstore", "unaccent", "fuzzystrmatch", "btree_gin", "btree_gist", "intarray", "ltree",
        "cube", "earthdistance", "isn", "postgis",
    ]

    /// Whether, for a record written to the table `oid`, PostgreSQL may write another row:
    /// an enabled trigger of the table or of one of its partitions, its `WHEN` clause, a
    /// column default or a CHECK constraint of the table may.
    static func mayWrite(_ connection: PostgresConnection, table oid: String) throws(PostgresError) -> Bool {
        // A function's own settings (search_path, standard_conforming_strings) may read its
        // text otherwise than here; so may the session's strings.
        guard try connection.query("SELECT current_setting('standard_conforming_strings')").first?[0] == "on" else { return true }
        let triggers = try connection.query(
            """
            WITH RECURSIVE tree (relid) AS (SELECT $1::oid UNION ALL SELECT i.inhrelid FROM pg_inherits i JOIN tree ON i.inhparent = tree.relid)
            SELECT l.lanname, p.prosrc, (p.proconfig IS NOT NULL)::text, CASE WHEN t.tgqual IS NULL THEN '' ELSE pg_get_triggerdef(t.oid) END,
              (p.pronamespace = 'pg_catalog'::regnamespace)::text
            FROM pg_trigger t JOIN tree ON t.tgrelid = tree.relid JOIN pg_proc p ON p.oid = t.tgfoid JOIN pg_language l ON l.oid = p.prolang
            WHERE NOT t.tgisinternal AND t.tgenabled <> 'D'
            """, [oid])
        var texts: [String] = []
        for trigger in triggers {
            // (A built-in trigger function, suppress_redundant_updates_trigger say, writes
            // no other row.)
            if trigger[4] == "true" {
            } else {
                guard trigger[0] == "plpgsql", trigger[2] == "false", let source = trigger[1], !source.isEmpty else { return true }
                texts.append(source)
            }
            // The WHEN clause: `... WHEN (expression) EXECUTE FUNCTION f()`.
            if let definition = trigger[3], !definition.isEmpty {
                guard let when = definition.range(of: " WHEN ("), let execute = definition.range(of: ") EXECUTE ", options: .backwards),
                    when.upperBound <= execute.lowerBound
                else { return true }
                texts.append(String(definition[when.upperBound ..< execute.lowerBound]))
            }
        }
        // So do column defaults, CHECK constraints (the table's, its partitions', and those
        // of the domains of its columns), index expressions and predicates, and row-level
        // security policies.
        let expressions = try connection.query(
            """
            WITH RECURSIVE tree (relid) AS (SELECT $1::oid UNION ALL SELECT i.inhrelid FROM pg_inherits i JOIN tree ON i.inhparent = tree.relid),
            types (typ) AS (
              SELECT a.atttypid FROM pg_attribute a JOIN tree ON a.attrelid = tree.relid WHERE a.attnum > 0 AND NOT a.attisdropped
              UNION SELECT CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.typelem END FROM types JOIN pg_type t ON t.oid = types.typ
              WHERE t.typtype = 'd' OR t.typcategory = 'A' AND t.typelem <> 0)
            SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d JOIN tree ON d.adrelid = tree.relid
            UNION ALL SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN tree ON c.conrelid = tree.relid WHERE c.contype = 'c'
            UNION ALL SELECT pg_get_constraintdef(c.oid) FROM pg_constraint c JOIN types ON c.contypid = types.typ WHERE c.contype = 'c'
            UNION ALL SELECT pg_get_expr(i.indexprs, i.indrelid) FROM pg_index i JOIN tree ON i.indrelid = tree.relid WHERE i.indexprs IS NOT NULL
            UNION ALL SELECT pg_get_expr(i.indpred, i.indrelid) FROM pg_index i JOIN tree ON i.indrelid = tree.relid WHERE i.indpred IS NOT NULL
            UNION ALL SELECT concat_ws(' ', pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid))
              FROM pg_policy p JOIN tree ON p.polrelid = tree.relid
            """, [oid])
        texts += expressions.compactMap { $0[0] }
        var readings = texts.map(read)
        if readings.contains(where: \.mayWrite) { return true }
        // Operators and casts a user defined (not an extension's) run their functions: an
        // operator of the search path's schemas where a text has its symbol (one of another
        // schema is written `OPERATOR(s.###)`, a call of an unknown name), and a cast where
        // a text names one of its types, where the table has a column of its target type
        // (an assignment cast runs unwritten), or always when both are built in.
        let userOperators = try connection.query(
            """
            SELECT o.oprname, p.proname FROM pg_operator o JOIN pg_proc p ON p.oid = o.oprcode JOIN pg_namespace n ON n.oid = o.oprnamespace
            WHERE n.nspname = ANY (current_schemas(false))
              AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_operator'::regclass AND d.objid = o.oid AND d.deptype = 'e')
            """)
        let userCasts = try connection.query(
            """
            SELECT p.proname, s.typname, t.typname,
              (s.typnamespace = 'pg_catalog'::regnamespace AND t.typnamespace = 'pg_catalog'::regnamespace
               OR EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped
                          AND a.atttypid = c.casttarget))::text
            FROM pg_cast c JOIN pg_proc p ON p.oid = c.castfunc JOIN pg_namespace n ON n.oid = p.pronamespace
              JOIN pg_type s ON s.oid = c.castsource JOIN pg_type t ON t.oid = c.casttarget
            WHERE n.nspname <> 'pg_catalog'
              AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_cast'::regclass AND d.objid = c.oid AND d.deptype = 'e')
            """, [oid])
        var calls = Set(userCasts.filter { $0[3] == "true" }.compactMap { $0[0] })
        var names = Set<String>()
        var read = Set<String>()
        for depth in 0 ... 8 {
            for reading in readings {
                calls.formUnion(reading.calls)
                names.formUnion(reading.names)
                for userOperator in userOperators {
                    guard let symbol = userOperator[0], let function = userOperator[1] else { continue }
                    if reading.code.firstRange(of: Array(symbol.utf8)) != nil { calls.insert(function) }
                }
                for cast in userCasts where reading.names.contains(cast[1] ?? "") || reading.names.contains(cast[2] ?? "") {
                    if let function = cast[0] { calls.insert(function) }
                }
            }
            readings = []
            let unread = calls.subtracting(read)
            // A name may call a function without `(` after it (`(NEW).audit`, functional
            // notation): names that are functions are read as calls, and need not be one.
            let unreadNames = names.subtracting(read).subtracting(calls)
            if unread.isEmpty && unreadNames.isEmpty { break }
            guard depth < 8 else { return true }
            read.formUnion(unread)
            read.formUnion(unreadNames)
            let found = try connection.query(
                """
                SELECT p.proname, l.lanname, p.prokind, n.nspname, p.prosrc, (p.proconfig IS NOT NULL)::text,
                  coalesce((SELECT e.extname FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
                            WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e' LIMIT 1), '')
                FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
                WHERE p.proname = ANY ($1::text[])
                """, [PostgresArrayText.literal(unread.union(unreadNames))])
            let known = Set(found.compactMap { $0[0] })
            if unread.contains(where: { !known.contains($0) && !syntax.contains($0) }) { return true }
            for function in found {
                let (name, language, kind, namespace) = (function[0] ?? "", function[1] ?? "", function[2] ?? "p", function[3] ?? "")
                if kind == "p" { return true }
                if namespace == "pg_catalog" {
                    if runsSQL(name) { return true }
                    continue
                }
                switch language {
                case "plpgsql", "sql":
                    guard function[5] == "false", let source = function[4], !source.isEmpty else { return true }
                    let reading = Self.read(source)
                    if reading.mayWrite { return true }
                    readings.append(reading)
                case "c", "internal":
                    guard let extensionName = function[6], Self.extensionsThatWriteNothing.contains(extensionName) else { return true }
                default:
                    return true
                }
            }
        }
        // A view a text reads may call a function that writes.
        let views = try connection.query(
            "SELECT EXISTS (SELECT FROM pg_class WHERE relkind IN ('v', 'm') AND relname = ANY ($1::text[]))::text", [PostgresArrayText.literal(names)])
        return views.first?[0] != "false"
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80 || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
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
