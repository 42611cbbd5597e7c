#!/usr/bin/env bash
# The kill test at a large size (CI runs it small, inside `swift test`).
#
#   scripts/kill-test.sh [RECORDS] [KILLS] [SEED]
#
# Imports RECORDS records (default 1,000,000) with the seeds' schema and --upsert, and
# kills it with SIGKILL at KILLS random points (default 50) in each of four cases: one
# transaction and --commit-every with --resume, in rollback-journal and WAL mode. After
# each kill: PRAGMA integrity_check, and the database is unchanged or holds exactly the
# committed checkpoints; a final re-run must equal a clean import (text dump), with no
# file left but the database. See Tests/SQLImportKitTests/KillTests.swift.
set -euo pipefail
cd "$(dirname "$0")/.."
export SQLIMPORT_KILL_ROWS=${1:-1000000}
export SQLIMPORT_KILL_POINTS=${2:-50}
export SQLIMPORT_KILL_SEED=${3:-$RANDOM}
echo "kill test: $SQLIMPORT_KILL_ROWS records, $SQLIMPORT_KILL_POINTS kills per case, seed $SQLIMPORT_KILL_SEED"
exec swift test -c release -j 1 --filter KillTests
