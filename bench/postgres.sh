#!/bin/bash
# The PostgreSQL target against the best hand-written route (issue 21): N rows of the
# seeds' schema (UUID keys) loaded, re-loaded and applied as a delta by sqlimport, and by
# psql's \copy into a staging table plus one INSERT ... ON CONFLICT (the JSONL turned into
# CSV beforehand, untimed). Needs a server: PGURL, or a throwaway cluster it starts.
#   N=200000 bash bench/postgres.sh [path/to/sqlimport]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/sqlimport}
N=${N:-200000}
D=bench/work/data-n1000000-s42-uuid
W=bench/work/postgres
mkdir -p "$W"
[ -f "$D/base.jsonl" ] || python3 bench/gen.py --n 1000000 --out "$D" >/dev/null
if [ -z "${PGURL:-}" ]; then
  server=$(mktemp -d); chmod 755 "$server"
  trap 'bash scripts/postgres-test-server.sh stop "$server"; rm -rf "$server"' EXIT
  PGURL=$(bash scripts/postgres-test-server.sh start "$server")
fi
head -n "$N" "$D/base.jsonl" > "$W/base.jsonl"
[ -f "$D/delta.jsonl" ] && head -n $((N / 5)) "$D/delta.jsonl" > "$W/delta.jsonl"
python3 - "$W" <<'PY'
import csv, json, sys
w = sys.argv[1]
cols = ["id", "name", "libraryID", "remoteID", "notes", "updatedAt", "price", "qty", "active", "tags", "meta"]
for name in ["base", "delta"]:
    try:
        src = open(f"{w}/{name}.jsonl")
    except FileNotFoundError:
        continue
    with src, open(f"{w}/{name}.csv", "w", newline="") as out:
        writer = csv.writer(out)
        for line in src:
            r = json.loads(line)
            row = []
            for c in cols:
                v = r.get(c)
                if v is None: row.append("")
                elif isinstance(v, bool): row.append("1" if v else "0")
                elif isinstance(v, (dict, list)): row.append(json.dumps(v, separators=(",", ":"), ensure_ascii=False))
                else: row.append(v)
            writer.writerow(row)
PY
SCHEMA='DROP TABLE IF EXISTS items; CREATE TABLE items (id TEXT PRIMARY KEY NOT NULL, name TEXT NOT NULL DEFAULT '"''"', "libraryID" INTEGER NOT NULL, "remoteID" TEXT, notes TEXT, "updatedAt" TEXT NOT NULL, price DOUBLE PRECISION, qty BIGINT, active INTEGER, tags JSONB, meta JSONB); CREATE UNIQUE INDEX idx_items_sync_identity ON items ("libraryID", "remoteID") WHERE "remoteID" IS NOT NULL;'
SET='name = EXCLUDED.name, notes = EXCLUDED.notes, "updatedAt" = EXCLUDED."updatedAt", price = EXCLUDED.price, qty = EXCLUDED.qty, active = EXCLUDED.active, tags = EXCLUDED.tags, meta = EXCLUDED.meta'
psql_route() {  # csv
  cat > "$W/route.sql" <<SQL
BEGIN;
CREATE TEMP TABLE s (LIKE items) ON COMMIT DROP;
\copy s FROM '$1' WITH (FORMAT csv)
INSERT INTO items SELECT * FROM s WHERE "remoteID" IS NOT NULL ON CONFLICT ("libraryID", "remoteID") WHERE "remoteID" IS NOT NULL DO UPDATE SET $SET;
INSERT INTO items SELECT * FROM s WHERE "remoteID" IS NULL ON CONFLICT (id) DO UPDATE SET $SET;
COMMIT;
SQL
  psql -q -v ON_ERROR_STOP=1 "$PGURL" -f "$W/route.sql" >/dev/null
}
timed() {  # label command...
  local start end; start=$(date +%s.%N); "${@:2}"; end=$(date +%s.%N)
  printf '%-44s %7.2f s  %9.0f rows/s\n' "$1" "$(echo "$end - $start" | bc)" "$(echo "$N / ($end - $start)" | bc -l)"
}
for round in 1 2 3; do
  psql -q "$PGURL" -c "$SCHEMA" 2>/dev/null
  timed "[$round] sqlimport first load" "$BIN" "$W/base.jsonl" --db "$PGURL" --table items --upsert libraryID,remoteID -q
  timed "[$round] sqlimport re-run" "$BIN" "$W/base.jsonl" --db "$PGURL" --table items --upsert libraryID,remoteID -q
  psql -q "$PGURL" -c "$SCHEMA" 2>/dev/null
  timed "[$round] psql \\copy + ON CONFLICT first load" psql_route "$W/base.csv"
  timed "[$round] psql \\copy + ON CONFLICT re-run" psql_route "$W/base.csv"
done
