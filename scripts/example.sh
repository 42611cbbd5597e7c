#!/usr/bin/env bash
# Builds sqlimport and runs the main job on the bundled example: the seeds' schema
# (a partial unique index on libraryID, remoteID), imported twice to show that a
# re-run changes nothing, then a delta.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
swift build -c release
bin=.build/release/sqlimport
rm -f example.db
python3 -c "import sqlite3,sys; sqlite3.connect('example.db').executescript(open('fixtures/items.schema.sql').read())"
$bin fixtures/items.jsonl --db example.db --upsert libraryID,remoteID
$bin fixtures/items.jsonl --db example.db --upsert libraryID,remoteID
$bin fixtures/items-delta.jsonl --db example.db --table items --upsert libraryID,remoteID --merge newer:updatedAt --report -
