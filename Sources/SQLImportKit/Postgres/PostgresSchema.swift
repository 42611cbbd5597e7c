/// A PostgreSQL table as the import needs it: its columns and the unique keys `--upsert`
/// can name, read from the catalog (`pg_attribute`, `pg_index`).
package struct PostgresSchema: Sendable {
    package struct Column: Sendable {
        package var name: String
        /// `format_type`: `bigint`, `text`, `numeric(10,2)`, `jsonb`, ...
        package var type: String
        /// The type under a domain, through domains over domains (`type` for any other),
        /// and an array's of the type under its element's domain (`numeric(5,2)[]` for
        /// `money2[]`): what a value becomes, and so what `PostgresValueCheck` judges it by.
        package var baseType = ""
        package var notNull: Bool
        package var hasDefault: Bool
        /// False for a column PostgreSQL fills itself and refuses a value for: an identity
        /// `GENERATED ALWAYS`, or a generated column.
        package var isWritable = true
        /// Its collation is non-deterministic (an ICU one with `deterministic = false`):
        /// `=` holds between values of other bytes (`alice` and `ALICE`).
        package var collationIgnoresBytes = false
    }

    package struct UniqueKey: Sendable {
        package var name: String
        package var columns: [String]
        package var isPrimaryKey: Bool
        /// A partial index's predicate, as `pg_get_expr` prints it.
        package var predicate: String?
        /// `UNIQUE NULLS NOT DISTINCT` (PostgreSQL 15): a NULL key column matches a NULL,
        /// so a record with one has a key like any other.
        package var nullsNotDistinct = false
        /// For each column, the collation the index compares it under (a qualified,
        /// quoted name) where that is not the column's own (`CREATE UNIQUE INDEX ON t (k
        /// COLLATE ci)`), else nil.
        package var collations: [String?] = []

        /// SQL that `left`'s value of the key's `column`th column equals `right`'s as this
        /// index compares them: under the index's collation (a row the index took for the
        /// record's, 'A' for 'a' under a case-insensitive one, was not found, and
        /// `--delete-missing` deleted it), NULL matching NULL under `nullsNotDistinct`.
        package func matches(_ left: String, _ right: String, column: Int) -> String {
            let right = column < collations.count ? collations[column].map { "\(right) COLLATE \($0)" } ?? right : right
            return nullsNotDistinct ? "\(left) IS NOT DISTINCT FROM \(right)" : "\(left) = \(right)"
        }
    }

    /// The table's name as the catalog spells it, and its schema.
    package var table: String
    package var schema: String
    package var columns: [Column]
    package var uniqueKeys: [UniqueKey]
    /// Whether an enabled `BEFORE ... FOR EACH ROW` trigger on INSERT or UPDATE may return
    /// NULL, and so leave a record out: such a record is counted `ignored`, as SQLite
    /// counts a trigger's `RAISE(IGNORE)`.
    package var hasBeforeRowTriggers = false
    /// Whether a foreign key's check at the end of a statement could pass records that
    /// fail one by one: the table is the parent of an immediate `NO ACTION` or `SET
    /// DEFAULT` key (a parent key moved from one row to another), refers to itself (a
    /// child before its parent), or has a trigger while the database has a foreign key.
    /// Such a table gets one record per statement, as on SQLite.
    package var foreignKeysSeeStatements = false
    /// The table's unique indexes, every kind (partial, on expressions), and whether it has
    /// an exclusion constraint: the records of a batch applied together meet such an index
    /// in another order than one by one (`PostgresRun.writeIsolatingRefusals`).
    package var uniqueIndexCount = 0
    package var hasExclusionConstraint = false

    /// Whether the table is partitioned (`PARTITION BY`): its rows are its partitions'.
    package var isPartitioned = false

    package var qualifiedName: String { SQLIdentifier.quote(schema) + "." + SQLIdentifier.quote(table) }
    /// The table's own rows, to read, update or delete: `ONLY` leaves out the rows of
    /// tables that inherit from it, which its unique indexes never see (an upsert never
    /// lands on them, so `--delete-missing` deleted them, and a tombstone too). A
    /// partitioned table's rows are its partitions': `ONLY` would leave none.
    package var ownRows: String { isPartitioned ? qualifiedName : "ONLY " + qualifiedName }
    package var primaryKey: UniqueKey? { uniqueKeys.first(where: \.isPrimaryKey) }

    /// The column `name` designates, ignoring case as SQLite does (a PostgreSQL table made
    /// with unquoted names has them in lower case).
    /// The columns `name` matches only ignoring case, when it spells none of them exactly
    /// and matches two or more (`Lib` for `"LIB"` and `lib`); nil otherwise.
    package func columnsDifferingOnlyInCase(from name: String) -> [String]? {
        guard !columns.contains(where: { NameKey($0.name) == NameKey(name) }) else { return nil }
        let folded = columns.filter { $0.name.sqliteFolded == name.sqliteFolded }.map(\.name)
        return folded.count > 1 ? folded : nil
    }

    package func column(named name: String) -> Column? {
        columns.first { NameKey($0.name) == NameKey(name) } ?? columns.first { $0.name.sqliteFolded == name.sqliteFolded }
    }

    /// The SQL of `column`'s default, as `pg_get_expr` prints it, or nil when it has none.
    /// (Asked per column, when needed: reading every column's default locks the table.)
    /// A generated column's expression (`GENERATED ALWAYS AS (expr) STORED`), nil for any
    /// other column.
    package func generationExpression(of column: String, _ connection: PostgresConnection) throws(PostgresError) -> String? {
        let found = try connection.query(
            """
            SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
            WHERE a.attrelid = $1::regclass AND a.attname = $2 AND coalesce(row_to_json(a)->>'attgenerated', '') = 's'
            """,
            [qualifiedName, column])
        return found.first?[0] ?? nil
    }

    package func defaultExpression(of column: String, _ connection: PostgresConnection) throws(PostgresError) -> String? {
        let found = try connection.query(
            "SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attribute a JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum WHERE a.attrelid = $1::regclass AND a.attname = $2",
            [qualifiedName, column])
        return found.first?[0] ?? nil
    }

    /// Reads the table `name` designates (case-insensitive): for `schema.table` whose
    /// prefix names a schema of the database that has the table, that table; else the
    /// first schema of the search path that has a table of that very name. nil when there
    /// is none. (The schema's table goes first: earlier versions made a table called
    /// "schema.table" in the search path's schema for `--table schema.table`, which must
    /// not take the records meant for the schema's own.)
    /// - Parameter parsesSchema: false for a name made from a file name, whose dots are
    ///   part of the name.
    package static func read(_ connection: PostgresConnection, table name: String, parsesSchema: Bool = true) throws(PostgresError) -> PostgresSchema? {
        if parsesSchema, let (schema, table) = try qualified(connection, name), let found = try read(connection, table: table, in: schema) {
            return found
        }
        return try read(connection, table: name, in: nil)
    }

    /// For `schema.table` whose prefix names a schema of the database (ignoring case,
    /// as an unquoted name): that schema as the catalog spells it, and the table's name.
    /// nil for a name without a dot or whose prefix names no schema.
    package static func qualified(_ connection: PostgresConnection, _ name: String) throws(PostgresError) -> (schema: String, table: String)? {
        guard let dot = name.firstIndex(of: "."), dot != name.startIndex, name.index(after: dot) != name.endIndex else { return nil }
        let found = try connection.query(
            // As spelled, else folded as PostgreSQL folds an unquoted name, else ignoring case.
            "SELECT nspname FROM pg_namespace WHERE nspname = $1 OR lower(nspname) = lower($1) ORDER BY nspname = $1 DESC, nspname = lower($1) DESC, nspname LIMIT 1",
            [String(name[..<dot])])
        guard let schema = found.first?[0] ?? nil else { return nil }
        return (schema, String(name[name.index(after: dot)...]))
    }

    /// What other relation (a view, a sequence, ...) has the name a table the run creates
    /// would take, in the schema it would go to (`current_schema()` for a name without
    /// one), or nil: creating the table would fail with "relation already exists".
    package static func otherRelation(_ connection: PostgresConnection, named name: String, parsesSchema: Bool = true) throws(PostgresError) -> String? {
        let (schema, table) = parsesSchema ? try qualified(connection, name) ?? (nil, name) : (nil, name)
        let found = try connection.query(
            """
            SELECT c.relkind::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind NOT IN ('r', 'p') AND n.nspname = COALESCE($2::text, current_schema()) AND c.relname = $1
            """, [table, schema])
        guard let kind = found.first?[0] ?? nil else { return nil }
        let kinds = ["v": "view", "m": "materialized view", "f": "foreign table", "S": "sequence", "i": "index", "I": "index", "c": "composite type"]
        return kinds[kind] ?? "relation"
    }

    /// Reads the table `name` (case-insensitive) of `schema`, or of the first schema of
    /// the search path that has one when `schema` is nil.
    package static func read(_ connection: PostgresConnection, table name: String, in schema: String?) throws(PostgresError) -> PostgresSchema? {
        let found = try connection.query(
            """
            SELECT c.oid::text, c.relname, n.nspname, (c.relkind = 'p')::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p') AND (CASE WHEN $2::text IS NULL THEN n.nspname = ANY (current_schemas(false)) ELSE n.nspname = $2 END)
              AND (c.relname = $1 OR lower(c.relname) = lower($1))
            ORDER BY array_position(current_schemas(false), n.nspname), c.relname = $1 DESC, c.relname = lower($1) DESC, c.relname LIMIT 1
            """, [name, schema])
        guard let row = found.first, let oid = row[0], let table = row[1], let schema = row[2] else { return nil }
        let columns = try connection.query(
            """
            SELECT attname, format_type(atttypid, atttypmod), attnotnull::text, atthasdef::text,
              (attidentity = 'a' OR coalesce(row_to_json(a)->>'attgenerated', '') NOT IN ('', ' '))::text, base.type,
              coalesce((SELECT NOT collisdeterministic FROM pg_collation WHERE oid = a.attcollation), false)::text
            FROM pg_attribute a
            LEFT JOIN LATERAL (
              WITH RECURSIVE b (typ, mod) AS (
                SELECT a.atttypid, a.atttypmod
                UNION ALL SELECT t.typbasetype, t.typtypmod FROM b JOIN pg_type t ON t.oid = b.typ WHERE t.typtype = 'd')
              SELECT b.typ, b.mod, format_type(b.typ, b.mod) AS type FROM b JOIN pg_type t ON t.oid = b.typ WHERE t.typtype <> 'd') AS base0 ON true
            LEFT JOIN LATERAL (
              WITH RECURSIVE e (typ, mod) AS (
                SELECT t.typelem, base0.mod FROM pg_type t JOIN pg_type d ON d.oid = t.typelem
                WHERE t.oid = base0.typ AND t.typcategory = 'A' AND d.typtype = 'd'
                UNION ALL SELECT t.typbasetype, t.typtypmod FROM e JOIN pg_type t ON t.oid = e.typ WHERE t.typtype = 'd')
              SELECT coalesce((SELECT format_type(e.typ, e.mod) || '[]' FROM e JOIN pg_type t ON t.oid = e.typ WHERE t.typtype <> 'd'),
                              base0.type) AS type) AS base ON true
            WHERE attrelid = $1::oid AND attnum > 0 AND NOT attisdropped ORDER BY attnum
            """, [oid]
        ).map {
            Column(
                name: $0[0] ?? "", type: $0[1] ?? "text", baseType: $0[5] ?? $0[1] ?? "text", notNull: $0[2] == "true", hasDefault: $0[3] == "true",
                isWritable: $0[4] != "true", collationIgnoresBytes: $0[6] == "true")
        }
        let keys = try connection.query(
            """
            SELECT ci.relname, i.indisprimary::text, pg_get_expr(i.indpred, i.indrelid),
                   (SELECT string_agg(a.attname, E'\\x1f' ORDER BY k.ord) FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum WHERE k.ord <= i.indnkeyatts),
                   coalesce(row_to_json(i)->>'indnullsnotdistinct', 'false'),
                   (SELECT string_agg(CASE WHEN k.coll <> 0 AND k.coll <> a.attcollation
                                      THEN quote_ident(n.nspname) || '.' || quote_ident(c.collname) ELSE '' END, E'\\x1f' ORDER BY k.ord)
                    FROM unnest(i.indkey::int2[], i.indcollation::oid[]) WITH ORDINALITY AS k(attnum, coll, ord)
                    JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                    LEFT JOIN pg_collation c ON c.oid = k.coll LEFT JOIN pg_namespace n ON n.oid = c.collnamespace
                    WHERE k.ord <= i.indnkeyatts)
            FROM pg_index i JOIN pg_class ci ON ci.oid = i.indexrelid
            WHERE i.indrelid = $1::oid AND i.indisunique AND i.indisvalid AND i.indexprs IS NULL
            ORDER BY NOT i.indisprimary, ci.relname
            """, [oid]
        ).map {
            UniqueKey(
                name: $0[0] ?? "", columns: ($0[3] ?? "").split(separator: "\u{1F}").map(String.init), isPrimaryKey: $0[1] == "true",
                predicate: $0[2], nullsNotDistinct: $0[4] == "true",
                collations: ($0[5] ?? "").split(separator: "\u{1F}", omittingEmptySubsequences: false).map { $0.isEmpty ? nil : String($0) })
        }
        // tgtype: ROW 1, BEFORE 2, INSERT 4, UPDATE 16 (pg_trigger.h).
        let triggers = try connection.query(
            "SELECT EXISTS (SELECT FROM pg_trigger WHERE tgrelid = $1::oid AND NOT tgisinternal AND tgenabled <> 'D' AND tgtype & 3 = 3 AND tgtype & 20 <> 0)::text",
            [oid])
        var read = PostgresSchema(table: table, schema: schema, columns: columns, uniqueKeys: keys)
        read.isPartitioned = row[3] == "true"
        read.hasBeforeRowTriggers = triggers.first?[0] == "true"
        let foreignKeys = try connection.query(
            """
            SELECT EXISTS (SELECT FROM pg_constraint WHERE contype = 'f' AND (
              confrelid = $1::oid AND NOT condeferred AND confupdtype IN ('a', 'd') OR conrelid = $1::oid AND confrelid = $1::oid))::text,
              EXISTS (SELECT FROM pg_constraint WHERE contype = 'f')::text
            """, [oid])
        read.foreignKeysSeeStatements = foreignKeys.first?[0] == "true"
        if !read.foreignKeysSeeStatements, foreignKeys.first?[1] == "true" {
            read.foreignKeysSeeStatements = try PostgresTriggerBody.mayWrite(connection, table: oid)
        }
        let others = try connection.query(
            """
            SELECT (SELECT count(*) FROM pg_index WHERE indrelid = $1::oid AND indisunique)::text,
              EXISTS (SELECT FROM pg_constraint WHERE conrelid = $1::oid AND contype = 'x')::text
            """, [oid])
        read.uniqueIndexCount = Int(others.first?[0] ?? "0") ?? 0
        read.hasExclusionConstraint = others.first?[1] == "true"
        return read
    }

    /// The unique key whose columns are `names` in any order: the columns `column(named:)`
    /// finds for them (the one spelled exactly so first: `"ID"` and `id` are two columns
    /// in PostgreSQL).
    package func uniqueKey(matching names: [String]) -> UniqueKey? {
        let wanted = Set(names.map { column(named: $0)?.name ?? $0 })
        return uniqueKeys.first { Set($0.columns) == wanted && $0.columns.count == names.count }
    }
}
