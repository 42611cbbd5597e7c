#!/bin/bash
# Measures the write strategies and the multi-row cap: first load, re-run and delta,
# one row per statement (cached) against multirow at several rows per statement.
# Prints "scenario rows-per-statement wall-s user-s sys-s", three runs each.
#   bash bench/strategies.sh bench/work/data-n1000000-s42-uuid [path/to/sqlimport]   (or ...-sequential)
set -euo pipefail
D=$1
BIN=${2:-.build/release/sqlimport}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
E=$W/empty.db
python3 -c "import sqlite3,sys; sys.path.insert(0, 'bench'); import data; sqlite3.connect(sys.argv[1]).executescript(data.SCHEMA)" "$E"
cp $E $W/base.db; $BIN $D/base.jsonl --db $W/base.db --table items --upsert id -q
for scen in first first-identity rerun delta; do
  for cap in 1 50 100 250 500 1000 2000; do
    for i in 1 2 3; do
      key=id
      case $scen in first) cp $E $W/run.db; f=base.jsonl;; first-identity) cp $E $W/run.db; f=base.jsonl; key=libraryID,remoteID;; rerun) cp $W/base.db $W/run.db; f=base.jsonl;; delta) cp $W/base.db $W/run.db; f=delta.jsonl;; esac
      if [ $cap = 1 ]; then s="--strategy cached"; else s="--strategy multirow --rows-per-statement $cap"; fi
      /usr/bin/time -f "$scen $cap %e %U %S" $BIN $D/$f --db $W/run.db --table items --upsert $key -q $s 2>&1
    done
  done
done
