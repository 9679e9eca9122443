#!/usr/bin/env bash
# Where PostgreSQL's time goes in a checkout (issue 27's loopback bar is
# PostgreSQL CPU on these 2 cores): a throwaway PostgreSQL with
# pg_stat_statements loaded, the release server on it, then
# bench/checkout_statements.py (cart write + checkout rounds from several
# shoppers at once) and its table: calls, execution µs and rows per
# checkout for each statement that took 1 % of the time or more (--share P).
# usage: scripts/profile-checkout.sh [--writers N] [--shoppers N] [--rounds N]
# --writers N: the server's postgres_writers (default 0, its own choice by
# round trip, which a loaded machine can tip from 1 to 3).
# Environment: PROFILE_PG_PORT (default 54493), AXIOM_BINARY (default the
# release build, built when missing). Run by hand; everything it starts is
# stopped at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
export AXIOM_PG_STATE=${TMPDIR:-/tmp}/axiom-pg-profile-$$ PGPORT=${PROFILE_PG_PORT:-54493}
BINARY=${AXIOM_BINARY:-.build/release/axiom-server}
WRITERS=0
if [ "${1:-}" = --writers ]; then WRITERS=$2; shift 2; fi
[ -x "$BINARY" ] || swift build -c release --product axiom-server >/dev/null
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  scripts/postgres.sh stop || true
}
trap cleanup EXIT
scripts/postgres.sh start >/dev/null
scripts/postgres.sh halt
echo "shared_preload_libraries = 'pg_stat_statements'" >>"$AXIOM_PG_STATE/data/postgresql.conf"
URL=$(scripts/postgres.sh resume)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ADMIN_EMAIL=profile-admin@example.com ADMIN_PASSWORD="profile admin password"
AXIOM_ADMIN_EMAIL=$ADMIN_EMAIL AXIOM_ADMIN_PASSWORD=$ADMIN_PASSWORD \
  "$BINARY" --host 127.0.0.1 --port "$PORT" --database-url "$URL" --log-level warning --rate-limit false --postgres-writers "$WRITERS" \
  >"$AXIOM_PG_STATE/server.out" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null && break; sleep 0.1; done
python3 bench/checkout_statements.py --port "$PORT" --database-url "$URL" \
  --admin-email "$ADMIN_EMAIL" --admin-password "$ADMIN_PASSWORD" \
  --postmaster-pid "$(head -1 "$AXIOM_PG_STATE/data/postmaster.pid")" --server-pid "$SERVER" "$@"
