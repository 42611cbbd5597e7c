/// Key-ordered writes on PostgreSQL (`KeyOrder`): the reading thread sorts each run by the
/// conflict target, so that the upserts probe its B-tree in order and a first load's COPY
/// inserts into it in order. With random keys this spares the server a cache miss per
/// record in each index it touches (bench/README.md, "PostgreSQL").
///
/// The same rules keep the result what input order gives: the sort is stable, a run in
/// which two records share the primary key but not the target stays in input order, and
/// keys are sorted only where two values PostgreSQL finds equal have the same bytes.
extension PostgresRun {
    /// Sets the reader's sort once the first batch has named the input's fields, or
    /// reports why records keep their input order.
    func startKeyOrder() throws {
        defer { keyOrder?.decide() }
        guard let keyOrder, keyOrder.spec == nil, !keyOrderDecided, let target else { return }
        keyOrderDecided = true
        if options.alter {
            summary.keyOrder = "input order: --alter types a new column from the records of the batch it first appears in"
            return
        }
        if let reason = try orderOfWritesShows() {
            summary.keyOrder = "input order: \(reason)"
            return
        }
        guard let sortColumns = try keyOrderColumns(of: target), let guardColumns = try fallbackKey.map(keyOrderColumns) ?? [] else {
            summary.keyOrder =
                "input order: a key column is not text, varchar or an integer type with a deterministic collation, or the input fills it twice"
            return
        }
        keyOrder.spec = KeyOrder.Spec(sortColumns: sortColumns, guardColumns: guardColumns, description: target.columns.joined(separator: ", "))
    }

    /// Why the order of writes would show in the table, or nil; asked once. Where it
    /// shows, the reader does not sort, and a batch is applied in input order
    /// (`PostgresRun.write(rows:of:)`), not in rounds by key.
    func orderOfWritesShows() throws -> String? {
        if let decided = orderOfWrites { return decided.reason }
        let (reason, byColumns) = try askWhetherOrderOfWritesShows()
        orderOfWrites = (reason, byColumns ? try columnsOfOtherUniqueIndexes() : nil)
        return reason
    }

    /// Whether the order of records of these fields (a shape) shows, where the order of
    /// writes does (`orderOfWritesShows`): always, but where the reason is another unique
    /// index or exclusion constraint on plain columns without defaults, and the shape
    /// writes none of them (an update leaves them as they are, an insert makes them
    /// NULL): such records cannot take or free a value that another record meets.
    func ordersShape(_ fields: [Int]) throws -> Bool {
        guard try orderOfWritesShows() != nil else { return false }
        // (A tombstone's shape ends in -1: its delete frees the row's values.)
        guard let columns = orderOfWrites?.columns, !fields.contains(-1) else { return true }
        return fields.contains { field in field < columnOfField.count && columnOfField[field].map(columns.contains) == true }
    }

    /// The columns of the table's unique indexes and exclusion constraints but the
    /// target's and the primary key's, or nil (any record's order shows) where one is on
    /// an expression, partial, a partition's own, or has a column with a default or of a
    /// domain (which may have one: an insert without the field takes it).
    private func columnsOfOtherUniqueIndexes() throws -> Set<String>? {
        let found = try connection.query(
            """
            SELECT i.indexprs IS NOT NULL OR i.indpred IS NOT NULL OR EXISTS (
                     SELECT FROM pg_attrdef d WHERE d.adrelid = i.indrelid AND d.adnum = ANY (i.indkey::int2[]))
                   OR EXISTS (
                     SELECT FROM pg_attribute a JOIN pg_type ty ON ty.oid = a.atttypid
                     WHERE a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey::int2[]) AND ty.typtype = 'd'),
                   (SELECT string_agg(a.attname, E'\\x1f') FROM pg_attribute a WHERE a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey::int2[]))
            FROM pg_index i JOIN pg_class ci ON ci.oid = i.indexrelid
            WHERE i.indrelid = $1::regclass AND (i.indisunique OR i.indisexclusion) AND ci.relname::text NOT IN ($2::text, COALESCE($3::text, $2::text))
            """,
            [schema.qualifiedName, target?.name ?? "", fallbackKey?.name])
        // None here: the index is a partition's. (A partitioned table's partitions may
        // have their own: any record's order shows.)
        guard !found.isEmpty, !found.contains(where: { $0[0] == "t" }),
            try connection.query("SELECT EXISTS (SELECT FROM pg_inherits WHERE inhparent = $1::regclass)", [schema.qualifiedName]).first?[0] == "f"
        else { return nil }
        return Set(found.flatMap { ($0[1] ?? "").split(separator: "\u{1F}").map(String.init) })
    }

    /// The reason, and whether it is another unique index or exclusion constraint only.
    private func askWhetherOrderOfWritesShows() throws -> (String?, Bool) {
        // Over the partition tree: a partition's trigger or unique index sees the order
        // of writes as the table's own do (PostgreSQL 12 lists the tree).
        guard try connection.query("SELECT current_setting('server_version_num')::int >= 120000").first?[0] == "t" else {
            return ("PostgreSQL before 12", false)
        }
        let found = try connection.query(
            """
            WITH tree AS (SELECT $1::regclass::oid AS relid UNION SELECT relid FROM pg_partition_tree($1::regclass)),
              keys AS (SELECT i.indexrelid FROM pg_index i JOIN pg_class ci ON ci.oid = i.indexrelid
                       WHERE i.indrelid = $1::regclass AND ci.relname::text IN ($2::text, COALESCE($3::text, $2::text))),
              defaults AS MATERIALIZED (SELECT d.adbin, d.adrelid FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
                       WHERE d.adrelid IN (SELECT relid FROM tree) AND a.attnum > 0 AND NOT a.attisdropped)
            SELECT EXISTS (SELECT FROM pg_trigger WHERE tgrelid IN (SELECT relid FROM tree) AND NOT tgisinternal)::text,
              EXISTS (SELECT FROM pg_rewrite WHERE ev_class IN (SELECT relid FROM tree) AND ev_type <> '1')::text,
              EXISTS (SELECT FROM pg_constraint WHERE contype = 'f' AND conrelid IN (SELECT relid FROM tree) AND confrelid IN (SELECT relid FROM tree))::text,
              (EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid IN (SELECT relid FROM tree) AND a.attnum > 0 AND NOT a.attisdropped AND a.attidentity <> '')
                OR EXISTS (SELECT FROM defaults WHERE pg_get_expr(adbin, adrelid) LIKE '%nextval(%'))::text,
              (SELECT min(ci.relname) FROM pg_index i JOIN pg_class ci ON ci.oid = i.indexrelid
               WHERE i.indrelid IN (SELECT relid FROM tree) AND (i.indisunique OR i.indisexclusion)
                 AND i.indexrelid NOT IN (SELECT indexrelid FROM keys)
                 AND NOT EXISTS (SELECT FROM pg_partition_ancestors(i.indexrelid) a WHERE a.relid IN (SELECT indexrelid FROM keys)))
            """,
            [schema.qualifiedName, target?.name ?? "", fallbackKey?.name])
        guard let row = found.first else { return ("the table was not found", false) }
        if row[0] == "true" { return ("the table has triggers, which see each write", false) }
        if row[1] == "true" { return ("the table has rules, which see each write", false) }
        if row[2] == "true" { return ("a foreign key of the table refers to the table itself", false) }
        if row[3] == "true" { return ("new rows take identity or sequence values in the order they are written", false) }
        if let other = row[4] ?? nil {
            return (
                "unique index or exclusion constraint \(SQLIdentifier.quote(other)) is neither the conflict target nor the primary key: an update may free a value that a record sorted before it would take",
                true
            )
        }
        return (nil, false)
    }

    /// The key's columns as the sort compares them: integers numerically, text by its
    /// bytes (`keyColumnTypes`: two values PostgreSQL finds equal are the same bytes, so
    /// the stable sort keeps their order). nil for any other type, or for a column the
    /// input fills from two fields.
    private func keyOrderColumns(of key: PostgresSchema.UniqueKey) throws -> [KeyOrder.Column]? {
        guard let types = try keyColumnTypes(of: key) else { return nil }
        var columns: [KeyOrder.Column] = []
        for (name, isInteger) in types {
            let fields = columnOfField.indices.filter { columnOfField[$0].map { NameKey($0) } == NameKey(name) }
            guard fields.count == 1 else { return nil }
            columns.append(KeyOrder.Column(
                input: fields[0], comparison: isInteger ? .integer : .binary, hasDefault: schema.column(named: name)?.hasDefault ?? false))
        }
        return columns
    }
}
