#!/bin/bash
# The PostgreSQL target against the best hand-written route (issue 21): N rows of the
# seeds' schema (UUID keys) loaded, re-loaded and applied as a delta by sqlimport, and by
# psql's \copy into a staging table plus one INSERT ... ON CONFLICT (the JSONL turned into
# CSV beforehand, untimed), and by Python psycopg2 executemany. Needs a server: PGURL, or
# a throwaway cluster it starts. Peak RSS is GNU time's.
#   N=200000 ROUNDS=3 [EXECUTEMANY_ROUNDS=1] bash bench/postgres.sh [path/to/sqlimport]
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
for name in base delta; do  # the route's SQL for each CSV
  cat > "$W/route-$name.sql" <<SQL
BEGIN;
CREATE TEMP TABLE s (LIKE items) ON COMMIT DROP;
\copy s FROM '$W/$name.csv' WITH (FORMAT csv)
INSERT INTO items SELECT * FROM s WHERE "remoteID" IS NOT NULL ON CONFLICT ("libraryID", "remoteID") WHERE "remoteID" IS NOT NULL DO UPDATE SET $SET;
INSERT INTO items SELECT * FROM s WHERE "remoteID" IS NULL ON CONFLICT (id) DO UPDATE SET $SET;
COMMIT;
SQL
done
# Python psycopg2 executemany, as a script would write it: one INSERT ... ON CONFLICT per
# record, records with a remote id on the partial index, the others on the primary key,
# committed once at the end (Debian's python3-psycopg2, installed when missing).
if ! /usr/bin/python3 -c 'import psycopg2' 2>/dev/null; then
  apt-get install -y -qq python3-psycopg2 >/dev/null 2>&1 || sudo apt-get install -y -qq python3-psycopg2 >/dev/null 2>&1 || true
fi
cat > "$W/executemany.py" <<'PY'
import csv, sys, psycopg2
url, path = sys.argv[1], sys.argv[2]
cols = ["id", "name", "libraryID", "remoteID", "notes", "updatedAt", "price", "qty", "active", "tags", "meta"]
quoted = ", ".join('"%s"' % c for c in cols)
assign = ", ".join('"%s" = EXCLUDED."%s"' % (c, c) for c in cols[4:] + ["name"])
values = ", ".join(["%s"] * len(cols))
inside = 'INSERT INTO items (%s) VALUES (%s) ON CONFLICT ("libraryID", "remoteID") WHERE "remoteID" IS NOT NULL DO UPDATE SET %s' % (quoted, values, assign)
outside = 'INSERT INTO items (%s) VALUES (%s) ON CONFLICT (id) DO UPDATE SET %s' % (quoted, values, assign)
connection = psycopg2.connect(url)
cursor = connection.cursor()
chunk = {True: [], False: []}
def flush():
    cursor.executemany(inside, chunk[True]); cursor.executemany(outside, chunk[False])
    chunk[True].clear(); chunk[False].clear()
with open(path, newline="") as f:
    for row in csv.reader(f):
        row = [None if v == "" else v for v in row]
        chunk[row[3] is not None].append(row)
        if len(chunk[True]) + len(chunk[False]) >= 10000: flush()
flush()
connection.commit()
PY
have_psycopg=$(/usr/bin/python3 -c 'import psycopg2; print(1)' 2>/dev/null || echo 0)
DELTA_N=$(wc -l < "$W/delta.jsonl" 2>/dev/null || echo 0)
timed() {  # label rows command...
  local start end rss; start=$(date +%s.%N)
  rss=$( { /usr/bin/time -f '%M' "${@:3}" >/dev/null; } 2>&1 | tail -1 ); end=$(date +%s.%N)
  printf '%-48s %7.2f s  %9.0f rows/s  peak RSS %6.1f MiB\n' "$1" "$(echo "$end - $start" | bc)" "$(echo "$2 / ($end - $start)" | bc -l)" "$(echo "$rss / 1024" | bc -l)"
}
# Warm-up, untimed: a fresh cluster's first load also creates its WAL segments, which
# every later load recycles; without it the first contender (sqlimport) pays for them.
psql -q "$PGURL" -c "$SCHEMA" 2>/dev/null
psql -q -v ON_ERROR_STOP=1 "$PGURL" -f "$W/route-base.sql" >/dev/null
for round in $(seq 1 "${ROUNDS:-3}"); do
  psql -q "$PGURL" -c "$SCHEMA" 2>/dev/null
  timed "[$round] sqlimport first load" "$N" "$BIN" "$W/base.jsonl" --db "$PGURL" --table items --upsert libraryID,remoteID -q
  timed "[$round] sqlimport re-run" "$N" "$BIN" "$W/base.jsonl" --db "$PGURL" --table items --upsert libraryID,remoteID -q
  timed "[$round] sqlimport delta" "$DELTA_N" "$BIN" "$W/delta.jsonl" --db "$PGURL" --table items --upsert libraryID,remoteID -q
  psql -q "$PGURL" -c "$SCHEMA" 2>/dev/null
  timed "[$round] psql \\copy + ON CONFLICT first load" "$N" psql -q -v ON_ERROR_STOP=1 "$PGURL" -f "$W/route-base.sql"
  timed "[$round] psql \\copy + ON CONFLICT re-run" "$N" psql -q -v ON_ERROR_STOP=1 "$PGURL" -f "$W/route-base.sql"
  timed "[$round] psql \\copy + ON CONFLICT delta" "$DELTA_N" psql -q -v ON_ERROR_STOP=1 "$PGURL" -f "$W/route-delta.sql"
  if [ "$have_psycopg" = 1 ] && [ "$round" -le "${EXECUTEMANY_ROUNDS:-${ROUNDS:-3}}" ]; then
    psql -q "$PGURL" -c "$SCHEMA" 2>/dev/null
    timed "[$round] psycopg2 executemany first load" "$N" /usr/bin/python3 "$W/executemany.py" "$PGURL" "$W/base.csv"
    timed "[$round] psycopg2 executemany re-run" "$N" /usr/bin/python3 "$W/executemany.py" "$PGURL" "$W/base.csv"
    timed "[$round] psycopg2 executemany delta" "$DELTA_N" /usr/bin/python3 "$W/executemany.py" "$PGURL" "$W/delta.csv"
  fi
done
