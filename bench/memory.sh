#!/bin/bash
# Peak memory of sqlimport on large records and documents: a 1.1 GB JSON array and a 1 GB
# CSV of 1 MiB quoted fields. Prints one line per case: case, rows, wall s, peak RSS.
# N vs 10·N rows from stdin is the report's memory scenario (SCENARIOS=memory bash bench/run.sh).
#   bash bench/memory.sh [path/to/sqlimport]     (needs bench/work/data-n1000000-s42-uuid from bench/run.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/sqlimport}
D=bench/work/data-n1000000-s42-uuid
W=bench/work/memory
mkdir -p "$W"
[ -f "$D/base.jsonl" ] || { echo "run bench/run.sh first (N=1000000) to generate $D" >&2; exit 1; }
schema() { python3 -c "import sqlite3,sys; sys.path.insert(0,'bench'); import data; sqlite3.connect(sys.argv[1]).executescript(data.SCHEMA)" "$1"; }
measure() {  # name rows command...
  local name=$1 rows=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$W/time.txt" "$@" > /dev/null
  read -r wall kb < "$W/time.txt"
  printf '%-44s %10s rows  %8.1f s  peak RSS %7.1f MiB\n' "$name" "$rows" "$wall" "$(echo "$kb / 1024" | bc -l)"
}
# Renamed copies of the 1M file: "-<i>" appended to every id and remote id (as bench/runner.py's
# replicated_jsonl_feed), so ids and remote ids stay unique.
copies() { for i in $(seq 0 $(($1 - 1))); do sed "s/^{\"id\":\"[^\"]*/&-$i/; s/\"remoteID\":\"[^\"]*/&-$i/" "$D/base.jsonl"; done; }

# A 1.1 GB JSON array (three renamed copies of the 1M rows), streamed element by element.
if [ ! -f "$W/array.json" ]; then
  { echo '['; copies 3 | sed '$!s/$/,/'; echo ']'; } > "$W/array.json"
fi
rm -f "$W/array.db"*; schema "$W/array.db"
measure "JSON array $(du -h "$W/array.json" | cut -f1), --upsert id" 3000000 $BIN "$W/array.json" --db "$W/array.db" --table items --upsert id -q

# A 1 GiB CSV: 1024 records, each with a 1 MiB quoted field full of "" and newlines.
if [ ! -f "$W/long.csv" ]; then
  python3 - "$W/long.csv" <<'PY'
import sys
chunk = ('long ""quoted"" text, with commas\nand newlines ' * 20000)[:1 << 20]
with open(sys.argv[1], 'w') as f:
    f.write('id,body,tail\n')
    for i in range(1024):
        f.write(f'{i},"{chunk}",end\n')
PY
fi
rm -f "$W/long.db"*
measure "CSV $(du -h "$W/long.csv" | cut -f1) of 1 MiB quoted fields" 1024 $BIN "$W/long.csv" --db "$W/long.db" --table long -q
rm -f "$W"/*.db*
