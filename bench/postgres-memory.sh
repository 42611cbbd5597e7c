#!/bin/bash
# Peak RSS of a PostgreSQL first load, 1M against 10M rows of the seeds' schema streamed
# from standard input (renamed copies of the 1M UUID file, as bench/memory.sh makes
# them): the memory must stay flat as the input grows. Needs a server: PGURL, or a
# throwaway cluster it starts.
#   bash bench/postgres-memory.sh [path/to/sqlimport]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/sqlimport}
D=bench/work/data-n1000000-s42-uuid
[ -f "$D/base.jsonl" ] || { echo "run bench/run.sh first (N=1000000) to generate $D" >&2; exit 1; }
if [ -z "${PGURL:-}" ]; then
  server=$(mktemp -d); chmod 755 "$server"
  trap 'bash scripts/postgres-test-server.sh stop "$server"; rm -rf "$server"' EXIT
  PGURL=$(bash scripts/postgres-test-server.sh start "$server")
fi
SCHEMA=$(sed -n "s/^SCHEMA='\(.*\)'$/\1/p" bench/postgres.sh | sed "s/'\"''\"'/''/g")
copies() { for i in $(seq 0 $(($1 - 1))); do sed "s/^{\"id\":\"[^\"]*/&-$i/; s/\"remoteID\":\"[^\"]*/&-$i/" "$D/base.jsonl"; done; }
for n in 1 10; do
  psql -q "$PGURL" -c "$SCHEMA" 2>/dev/null
  start=$(date +%s.%N)
  rss=$( { copies "$n" | /usr/bin/time -f '%M' "$BIN" - --db "$PGURL" --table items --upsert libraryID,remoteID -q >/dev/null; } 2>&1 | tail -1 )
  end=$(date +%s.%N)
  rows=$(psql -qAt "$PGURL" -c "SELECT count(*) FROM items")
  printf 'first load from stdin %3dM rows  %8.1f s  %9s rows in the table  peak RSS %6.1f MiB\n' "$n" "$(echo "$end - $start" | bc)" "$rows" "$(echo "$rss / 1024" | bc -l)"
done
