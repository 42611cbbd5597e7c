#!/usr/bin/env bash
# Installs the Debian packages sqlimport builds and tests with, when they are missing.
set -euo pipefail
missing=()
[ -f /usr/include/sqlite3.h ] || missing+=(libsqlite3-dev)
[ -f /usr/include/zstd.h ] || missing+=(libzstd-dev)
[ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
[ -f /usr/include/postgresql/libpq-fe.h ] || missing+=(libpq-dev)
# The PostgreSQL target's tests run against a real server (scripts/postgres-test-server.sh).
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v pkg-config >/dev/null || missing+=(pkg-config)
command -v zstd >/dev/null || missing+=(zstd)
command -v gzip >/dev/null || missing+=(gzip)
# The tests: the stock sqlite3 shell opens what fault injection left, and a C compiler
# builds the fault-injection shim (Tests/FaultShim).
command -v sqlite3 >/dev/null || missing+=(sqlite3)
command -v cc >/dev/null || missing+=(gcc)
# The documentation test runs the docs' examples, some of which read a report with jq.
command -v jq >/dev/null || missing+=(jq)
# The CLI tests watch the terminal progress line in a tmux pane, and zip a file.
command -v tmux >/dev/null || missing+=(tmux)
command -v python3 >/dev/null || missing+=(python3)
if [ "$(uname -s)" = Darwin ]; then
  # macOS: the same libraries from Homebrew (SQLite and zlib come with the system).
  command -v brew >/dev/null || { echo "install Homebrew (https://brew.sh), then re-run" >&2; exit 1; }
  for formula in zstd pkg-config jq tmux libpq postgresql@15; do
    brew list "$formula" >/dev/null 2>&1 || brew install "$formula"
  done
  exit 0
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
