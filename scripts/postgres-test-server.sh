#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests: initdb and pg_ctl in a folder of its own,
# listening on a Unix socket there and on a free loopback port, trust authentication,
# run as the postgres user when this script runs as root (PostgreSQL refuses root).
#
#   bash scripts/postgres-test-server.sh start DIR   # prints the database URL
#   bash scripts/postgres-test-server.sh stop DIR
#
# The tests read the URL from SQLIMPORT_TEST_POSTGRES_URL (.ci/run sets it).
set -euo pipefail
action=$1
dir=$(cd "$2" && pwd)
# The postgres user may not enter the caller's folder.
cd /
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin/initdb" ] || { echo "no PostgreSQL server binaries under /usr/lib/postgresql; install postgresql (apt)" >&2; exit 1; }
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
  else
    "$@"
  fi
}
case "$action" in
  start)
    [ "$(id -u)" -ne 0 ] || chown postgres "$dir"
    as_owner "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
      -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=on" start >/dev/null \
      || { cat "$dir/server.log" >&2; exit 1; }
    as_owner "$bin/createdb" -h "$dir" -p "$port" -U postgres sqlimport
    echo "postgresql://postgres@localhost:$port/sqlimport?host=$dir"
    ;;
  stop)
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
esac
