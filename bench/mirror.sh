#!/bin/bash
# Sync-mirror cost (issue 20): the mission's upsert on 1M rows of the seeds' schema (UUID
# keys), re-run with and without --delete-missing, with nothing to delete and with 1% of
# the rows gone from the input; then peak RSS of a mirror at 10·N rows. Each run starts
# from a copy of the same loaded database. Prints one line per run: wall s, peak RSS.
#   bash bench/mirror.sh [path/to/sqlimport]     (SKIP_10X=1 leaves out the 10·N run)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/sqlimport}
N=${N:-1000000}
D=bench/work/data-n$N-s42-uuid
W=bench/work/mirror
mkdir -p "$W"
[ -f "$D/base.jsonl" ] || python3 bench/gen.py --n "$N" --out "$D" >/dev/null
schema() { python3 -c "import sqlite3,sys; sys.path.insert(0,'bench'); import data; sqlite3.connect(sys.argv[1]).executescript(data.SCHEMA)" "$1"; }
UPSERT=(--table items --upsert libraryID,remoteID -q)
run() {  # name input extra-flags...
  local name=$1 input=$2; shift 2
  rm -f "$W/run.db"*; cp "$W/loaded.db" "$W/run.db"
  sync; echo 1 > /proc/sys/vm/drop_caches 2>/dev/null || true
  /usr/bin/time -f "%e %M" -o "$W/time.txt" "$BIN" "$input" --db "$W/run.db" "${UPSERT[@]}" "$@" || true
  read -r wall kb < "$W/time.txt"
  local rows; rows=$(sqlite3 "$W/run.db" "SELECT count(*) FROM items")
  printf '%-52s %8.2f s  peak RSS %7.1f MiB  rows after %s\n' "$name" "$wall" "$(echo "$kb / 1024" | bc -l)" "$rows"
}
if [ ! -f "$W/loaded.db" ]; then
  # Loaded under another name and renamed: an interrupted load leaves no half database.
  rm -f "$W/loading.db"*; schema "$W/loading.db"
  "$BIN" "$D/base.jsonl" --db "$W/loading.db" "${UPSERT[@]}"
  mv "$W/loading.db" "$W/loaded.db"
fi
[ "$(sqlite3 "$W/loaded.db" 'SELECT count(*) FROM items')" = "$N" ] || { echo "$W/loaded.db does not hold $N rows; remove it" >&2; exit 1; }
# 1% of the records gone: every 100th line.
[ -f "$W/minus1.jsonl" ] || awk 'NR % 100 != 0' "$D/base.jsonl" > "$W/minus1.jsonl"
for round in 1 2 3; do
  run "[$round] re-run, no --delete-missing" "$D/base.jsonl"
  run "[$round] re-run, --delete-missing (0% gone)" "$D/base.jsonl" --delete-missing
  run "[$round] 1% gone, no --delete-missing" "$W/minus1.jsonl"
  run "[$round] 1% gone, --delete-missing" "$W/minus1.jsonl" --delete-missing
done
if [ "${SKIP_10X:-0}" != 1 ]; then
  # 10·N rows: renamed copies (ids and remote ids stay unique), as bench/memory.sh.
  copies() { for i in $(seq 0 $(($1 - 1))); do sed "s/^{\"id\":\"[^\"]*/&-$i/; s/\"remoteID\":\"[^\"]*/&-$i/" "$D/base.jsonl"; done; }
  [ -f "$W/x10.jsonl" ] || copies 10 > "$W/x10.jsonl"
  rm -f "$W/x10.db"*; schema "$W/x10.db"
  "$BIN" "$W/x10.jsonl" --db "$W/x10.db" "${UPSERT[@]}"
  /usr/bin/time -f "%e %M" -o "$W/time.txt" "$BIN" "$W/x10.jsonl" --db "$W/x10.db" "${UPSERT[@]}" --delete-missing
  read -r wall kb < "$W/time.txt"
  printf '%-52s %8.2f s  peak RSS %7.1f MiB\n' "10·N re-run, --delete-missing" "$wall" "$(echo "$kb / 1024" | bc -l)"
  rm -f "$W/x10.db"* "$W/x10.jsonl"
fi
