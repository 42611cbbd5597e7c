/// The resolved `ON CONFLICT` target of an upsert: a unique key of the table, and for a
/// partial index, a second clause on the primary key for rows outside its predicate.
public struct ConflictTarget: Sendable, Codable {
    /// The unique key `--upsert` matched, with the table's own column spelling.
    public var key: UniqueKey
    /// When `key` is a partial index: the primary key, if the input supplies it, so that
    /// rows outside the predicate still find their existing row on re-runs.
    public var fallbackKey: [String]?

    public var columns: [String] { key.columns }
    public var predicate: String? { key.partialPredicate }

    /// Matches `requested` (in any order, ignoring case) against the table's keys.
    ///
    /// - Throws: `UpsertError.noMatchingKey` listing the keys that exist.
    public static func resolve(requested: [String], in schema: TableSchema) throws(UpsertError) -> UniqueKey {
        guard !requested.isEmpty else { throw .emptyKey }
        for column in requested {
            guard let index = schema.columnIndex(named: column) else { throw .unknownKeyColumn(table: schema.name, column: column) }
            if !schema.columns[index].isWritable { throw .generatedKeyColumn(table: schema.name, column: schema.columns[index].name) }
        }
        let wanted = Set(requested.map { $0.sqliteFolded })
        // Prefer a full key over a partial one when both match.
        let matches = schema.uniqueKeys.filter { Set($0.columns.map { $0.sqliteFolded }) == wanted && $0.columns.count == wanted.count }
        if let key = matches.first(where: { $0.partialPredicate == nil }) ?? matches.first {
            return key
        }
        throw .noMatchingKey(table: schema.name, requested: requested, available: schema.uniqueKeys)
    }
}
