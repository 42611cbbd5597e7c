/// `--commit-every` and `--resume` on PostgreSQL: the same progress table as on SQLite
/// (`RunLog`), `_sqlimport_runs`, in the target table's schema, written in the same
/// transaction as the rows it describes, so a commit holds both or neither.
///
/// ```sql
/// CREATE TABLE _sqlimport_runs (target text NOT NULL, path text NOT NULL, size bigint,
///   head_crc32 bigint, committed_offset bigint NOT NULL, committed_rows bigint NOT NULL,
///   finished boolean NOT NULL, updated_at timestamptz NOT NULL, mtime_ns bigint,
///   inode bigint, committed_rejects bigint, rejects_bytes bigint, run_id text, committed_ignored bigint,
///   PRIMARY KEY (target, path))
/// ```
struct PostgresRunLog {
    let table: String
    /// The schema it is in, quoted.
    let schema: String

    /// The log table next to `schema`'s table (its schema, quoted).
    init(schema: String) {
        self.schema = SQLIdentifier.quote(schema)
        table = self.schema + "." + SQLIdentifier.quote(RunLog.table)
    }

    /// The table that keeps a checkpointed `--delete-missing` run's candidates for
    /// `target` (`PostgresRun.prepareMirror`), next to the log: `_sqlimport_candidates_`
    /// and the target's FNV-1a hash, so that any name fits PostgreSQL's 63 bytes.
    func candidatesTable(target: String) -> String {
        var hash: UInt32 = 2_166_136_261
        for byte in target.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        let name = "_sqlimport_candidates_" + String(hash, radix: 16)
        return schema + "." + SQLIdentifier.quote(name)
    }

    func ensureTable(_ connection: PostgresConnection) throws {
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS \(table) (target text NOT NULL, path text NOT NULL, size bigint, head_crc32 bigint,
              committed_offset bigint NOT NULL, committed_rows bigint NOT NULL, finished boolean NOT NULL,
              updated_at timestamptz NOT NULL, mtime_ns bigint, inode bigint, PRIMARY KEY (target, path))
            """)
        // Only when missing: ALTER TABLE takes an ACCESS EXCLUSIVE lock, even with IF NOT
        // EXISTS, and holds it to the first checkpoint, so that another checkpointed run
        // into the schema would wait for it.
        let present = try connection.query(
            "SELECT count(*) FROM pg_attribute WHERE attrelid = $1::regclass AND attname IN ('committed_rejects', 'rejects_bytes', 'run_id', 'committed_ignored') AND NOT attisdropped",
            [table])
        if present.first?[0] != "4" {
            try connection.execute(
                "ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS committed_rejects bigint, ADD COLUMN IF NOT EXISTS rejects_bytes bigint, ADD COLUMN IF NOT EXISTS run_id text, "
                    + "ADD COLUMN IF NOT EXISTS committed_ignored bigint")
        }
    }

    func entries(_ connection: PostgresConnection, target: String) throws -> [String: RunLog.Entry] {
        var result: [String: RunLog.Entry] = [:]
        let rows = try connection.query(
            "SELECT path, size, head_crc32, mtime_ns, inode, committed_offset, committed_rows, finished, committed_rejects, rejects_bytes, run_id, committed_ignored FROM \(table) WHERE target = $1",
            [target])
        for row in rows {
            func number(_ index: Int) -> Int64 { row[index].flatMap { Int64($0) } ?? -1 }
            guard let path = row[0] else { continue }
            result[path] = RunLog.Entry(
                fingerprint: RunLog.Fingerprint(size: number(1), checksum: number(2), modifiedNanoseconds: number(3), inode: number(4)),
                committedOffset: number(5), committedRows: Int(number(6)), finished: row[7] == "t", committedRejects: Int(max(number(8), 0)),
                rejectsBytes: max(number(9), 0), runID: row[10], committedIgnored: Int(max(number(11), 0)))
        }
        return result
    }

    func save(_ connection: PostgresConnection, target: String, path: String, entry: RunLog.Entry) throws {
        _ = try connection.query(
            """
            INSERT INTO \(table) (target, path, size, head_crc32, committed_offset, committed_rows, finished, updated_at, mtime_ns, inode,
              committed_rejects, rejects_bytes, run_id, committed_ignored)
            VALUES ($1, $2, $3, $4, $5, $6, $7, now(), $8, $9, $10, $11, $12, $13)
            ON CONFLICT (target, path) DO UPDATE SET size = excluded.size, head_crc32 = excluded.head_crc32,
              committed_offset = excluded.committed_offset, committed_rows = excluded.committed_rows, finished = excluded.finished,
              updated_at = excluded.updated_at, mtime_ns = excluded.mtime_ns, inode = excluded.inode,
              committed_rejects = excluded.committed_rejects, rejects_bytes = excluded.rejects_bytes, run_id = excluded.run_id,
              committed_ignored = excluded.committed_ignored
            """,
            [
                target, path, String(entry.fingerprint.size), String(entry.fingerprint.checksum), String(entry.committedOffset),
                String(entry.committedRows), entry.finished ? "true" : "false", String(entry.fingerprint.modifiedNanoseconds),
                String(entry.fingerprint.inode), String(entry.committedRejects), String(entry.rejectsBytes), entry.runID,
                String(entry.committedIgnored),
            ])
    }
}
