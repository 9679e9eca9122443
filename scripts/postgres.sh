#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for the tests and CI: its own data
# directory in a temp dir, run by a non-root user (the server refuses to run
# as root; CI runs as root, so we switch to Debian's `postgres` user, or to
# the invoking user when that is not root), listening on 127.0.0.1 only with
# trust authentication (nothing else can reach a loopback port's cluster).
#
#   scripts/postgres.sh start   # initdb + start; prints the URL
#   scripts/postgres.sh url     # prints the URL of the running cluster
#   scripts/postgres.sh stop    # stops it and removes its data directory
#   scripts/postgres.sh halt    # stops the server, keeps its data (an outage)
#   scripts/postgres.sh resume  # starts a halted cluster on its data again
#
# State lives in $AXIOM_PG_STATE (default /tmp/axiom-pg-$UID): data/, the
# port and the log. PGPORT picks the port (default 54329). AXIOM_PG_NETNS
# runs the server in that network namespace (made by the caller) and
# AXIOM_PG_LISTEN is then its address there (default 127.0.0.1): how
# scripts/cluster.sh puts its database one network hop away.
set -euo pipefail
state=${AXIOM_PG_STATE:-/tmp/axiom-pg-$(id -u)}
port=${PGPORT:-54329}
listen=${AXIOM_PG_LISTEN:-127.0.0.1}
netns=${AXIOM_PG_NETNS:-}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$bin/initdb" ] || { echo "postgres.sh: PostgreSQL server binaries not found (scripts/setup.sh --tests installs postgresql-15)" >&2; exit 1; }

as_owner() {
  if [ -n "$netns" ]; then
    ip netns exec "$netns" runuser -u postgres -- "$@"
  elif [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

url() { echo "postgres://axiom@$listen:$(cat "$state/port")/axiom"; }

# Loopback only; no Unix socket in a shared directory; durability as in
# production (fsync on), since the tests check acknowledged writes.
# Descriptors above 2 are closed first: the server daemon would keep them
# open for its whole life, and a caller that learns of this script's exit
# through one (Foundation's Process on Linux does, through a socket its
# child inherits) would wait for the cluster to stop instead.
serve() {
  (
    for fd in $(ls /proc/self/fd); do
      if [ "$fd" -gt 2 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    as_owner "$bin/pg_ctl" -D "$state/data" -l "$state/server.log" -w -t 30 \
      -o "-c listen_addresses=$listen -p $(cat "$state/port") -c unix_socket_directories='$state' -c max_connections=200" \
      start >/dev/null
  )
}

case "${1:-}" in
  start)
    if [ -f "$state/data/postmaster.pid" ]; then url; exit 0; fi
    rm -rf "$state"
    mkdir -p "$state"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$state"
    # --no-sync: the template files of a throwaway cluster need no fsync.
    as_owner "$bin/initdb" --no-sync -D "$state/data" -U axiom --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$state/initdb.log"
    # Any subnet the server is on: only its listen address is reached, and
    # in a network namespace of its own (AXIOM_PG_NETNS, maybe only after a
    # restart there) its other subnet is the caller's veth pair.
    echo "host all all samenet trust" >>"$state/data/pg_hba.conf"
    echo "$port" >"$state/port"
    serve
    as_owner "$bin/createdb" -h "$listen" -p "$port" -U axiom axiom
    url
    ;;
  url)
    [ -f "$state/data/postmaster.pid" ] || { echo "postgres.sh: no cluster running in $state" >&2; exit 1; }
    url
    ;;
  halt)
    [ -f "$state/data/postmaster.pid" ] || { echo "postgres.sh: no cluster running in $state" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$state/data" -m fast -w stop >/dev/null
    ;;
  resume)
    [ -d "$state/data" ] || { echo "postgres.sh: no cluster data in $state" >&2; exit 1; }
    [ -f "$state/data/postmaster.pid" ] || serve
    url
    ;;
  stop)
    if [ -f "$state/data/postmaster.pid" ]; then
      as_owner "$bin/pg_ctl" -D "$state/data" -m fast -w stop >/dev/null
    fi
    rm -rf "$state"
    ;;
  *)
    echo "usage: $0 start|stop|url|halt|resume" >&2
    exit 2
    ;;
esac
