#!/usr/bin/env bash
# sqlimport throughput benchmark against real peers. See bench/README.md.
#
#   bash bench/run.sh                      # N=1000000, RUNS=3, all scenarios
#   N=100000 RUNS=1 bash bench/run.sh
#   SCENARIOS=first,delta bash bench/run.sh
#   SCENARIOS=export,snapshot,restore bash bench/run.sh
#   SCENARIOS=postgres bash bench/run.sh   # PostgreSQL: bench/postgres.sh + postgres-memory.sh
#   SKIP_BUILD=1 SQLIMPORT_BIN=.build/debug/sqlimport bash bench/run.sh
#
# Installs what it needs (gcc, libsqlite3-dev, sqlite3, zstd, GNU time, python3-venv)
# with apt-get when missing, builds sqlimport (swift build -c release) unless
# SKIP_BUILD=1, builds the C loader, puts sqlite-utils into bench/.venv, then
# runs bench/bench.py, which writes bench/results/<date>/report.md.
set -euo pipefail

BENCH_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$BENCH_DIR/.." && pwd)"
cd "$ROOT"

log() { printf '[bench] %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then SUDO="sudo"; fi
APT_UPDATED=0
apt_install() {
  if ! command -v apt-get >/dev/null 2>&1; then
    log "missing: $* and no apt-get; install them by hand"; exit 1
  fi
  if [ "$APT_UPDATED" = 0 ]; then
    log "apt-get update"
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

# ---- system tools ---------------------------------------------------------
pkgs=()
command -v gcc >/dev/null 2>&1 || pkgs+=(gcc)
[ -f /usr/include/sqlite3.h ] || pkgs+=(libsqlite3-dev)
command -v sqlite3 >/dev/null 2>&1 || pkgs+=(sqlite3)
command -v zstd >/dev/null 2>&1 || pkgs+=(zstd)
[ -x /usr/bin/time ] || pkgs+=(time)
command -v python3 >/dev/null 2>&1 || pkgs+=(python3)
if [ ${#pkgs[@]} -gt 0 ]; then apt_install "${pkgs[@]}"; fi
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import venv, ensurepip' >/dev/null 2>&1; then apt_install python3-venv; fi

# ---- sqlimport --------------------------------------------------------------
if [ "${SKIP_BUILD:-0}" != 1 ]; then
  log "swift build -c release --product sqlimport"
  swift build -c release --product sqlimport
fi
export SQLIMPORT_BIN="${SQLIMPORT_BIN:-$ROOT/.build/release/sqlimport}"
case "$SQLIMPORT_BIN" in /*) ;; *) SQLIMPORT_BIN="$ROOT/$SQLIMPORT_BIN" ;; esac
if [ ! -x "$SQLIMPORT_BIN" ]; then
  log "no sqlimport binary at $SQLIMPORT_BIN (unset SKIP_BUILD, or set SQLIMPORT_BIN)"; exit 1
fi

# ---- C loader -------------------------------------------------------------
mkdir -p "$BENCH_DIR/work"
export CLOADER_BIN="$BENCH_DIR/work/cloader"
if [ ! -x "$CLOADER_BIN" ] || [ "$BENCH_DIR/cloader.c" -nt "$CLOADER_BIN" ]; then
  log "gcc -O2 bench/cloader.c"
  gcc -O2 -Wall -o "$CLOADER_BIN" "$BENCH_DIR/cloader.c" -lsqlite3
fi

# ---- sqlite-utils in bench/.venv ---------------------------------------------
SQLITE_UTILS_SPEC="${SQLITE_UTILS_SPEC:-sqlite-utils==4.2.1}"
export SQLITE_UTILS_BIN="$BENCH_DIR/.venv/bin/sqlite-utils"
if [ ! -x "$SQLITE_UTILS_BIN" ]; then
  log "python3 -m venv bench/.venv && pip install $SQLITE_UTILS_SPEC"
  if ! { "$PY" -m venv "$BENCH_DIR/.venv" &&
         "$BENCH_DIR/.venv/bin/pip" install -q --disable-pip-version-check "$SQLITE_UTILS_SPEC"; }; then
    log "could not install sqlite-utils; it will be reported as SKIPPED"
  fi
fi

# ---- PostgreSQL (opt-in: SCENARIOS=postgres; needs the server packages) ----
# bench/postgres.sh (first load, re-run and delta against psql's \copy route and
# psycopg2 executemany) and bench/postgres-memory.sh (peak RSS, 1M against 10M rows),
# on a throwaway cluster each starts (or PGURL), into RESULTS_DIR.
case ",${SCENARIOS:-}," in
  *,postgres,*)
    PG_RESULTS="${RESULTS_DIR:-$BENCH_DIR/results/$(date +%Y-%m-%d)-postgres}"
    mkdir -p "$PG_RESULTS"
    log "PostgreSQL scenario into $PG_RESULTS"
    N="${N:-1000000}" ROUNDS="${RUNS:-3}" EXECUTEMANY_ROUNDS="${EXECUTEMANY_ROUNDS:-1}" \
      bash "$BENCH_DIR/postgres.sh" "$SQLIMPORT_BIN" | tee "$PG_RESULTS/run.log"
    bash "$BENCH_DIR/postgres-memory.sh" "$SQLIMPORT_BIN" | tee "$PG_RESULTS/memory.log"
    SCENARIOS=$(echo ",$SCENARIOS," | sed 's/,postgres,/,/; s/^,//; s/,$//')
    [ -n "$SCENARIOS" ] || exit 0
    export SCENARIOS
    ;;
esac

# ---- run ------------------------------------------------------------------
export PYTHON="$PY"
exec "$PY" "$BENCH_DIR/bench.py" "$@"
