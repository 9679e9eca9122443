# Sourced by scripts/bench.sh and scripts/bench-compare.sh: builds the
# release binary, seeds a benchmark database in a temp dir and serves it on
# a free port of 127.0.0.1. After `bench_server_start`:
#   BENCH_URL               http://127.0.0.1:PORT
#   SERVER                  the server's pid (stopped, and the temp dir removed, on exit)
#   AXIOM_PRODUCT_IDS       10,000 product ids (bench/seed_products.py)
#   AXIOM_SHOPPER_TOKENS    bearer tokens of $BENCH_SHOPPERS shoppers, 3 cart lines each
#   AXIOM_SHOPPER_EMAILS    their emails (password $AXIOM_BENCH_PASSWORD)
#   AXIOM_BUYER_TOKENS      tokens of $BENCH_BUYERS buyers, 1 cart line each (one checkout each)
# BENCH_BINARY=path serves that binary instead of building .build/release/axiom-server.
# BENCH_DATABASE_URL=postgres://… serves the same seeded data from a fresh
# schema of that PostgreSQL server (bench/copy_to_postgres.py) instead of
# the SQLite file.
# Users are seeded in SQLite with a copy of one argon2id hash made by the
# server for a template user registered over HTTP (see bench/seed_users.py).
BENCH_SHOPPERS=${BENCH_SHOPPERS:-256}
BENCH_BUYERS=${BENCH_BUYERS:-40000}
export AXIOM_BENCH_PASSWORD="bench password 1"
BENCH_TEMPLATE_EMAIL=bench-template@example.com
# Another build to measure (e.g. a copy of an older one, for before/after): not rebuilt.
BENCH_BINARY=${BENCH_BINARY:-}
BENCH_DATABASE_URL=${BENCH_DATABASE_URL:-}

bench_start_process() {
  # wrk opens every connection from 127.0.0.1: lift the per-address cap
  # (256) so -c above it measures the server, not the cap. An environment
  # variable, not a flag, so an older binary (BENCH_BINARY) still starts.
  AXIOM_MAX_CONNECTIONS_PER_ADDRESS=${AXIOM_MAX_CONNECTIONS_PER_ADDRESS:-1000000} "${BENCH_BINARY:-.build/release/axiom-server}" --port "$PORT" "${BENCH_STORAGE[@]}" --log-level warning >>"$WORK/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do curl -sf "$BENCH_URL/health" >/dev/null && return; sleep 0.1; done
  echo "the server did not answer /health; log: $WORK/server.log" >&2
  cat "$WORK/server.log" >&2
  exit 1
}

bench_stop_process() {
  kill "$SERVER"
  wait "$SERVER" 2>/dev/null || true
}

bench_cleanup() {
  if [ -n "${SERVER:-}" ]; then kill "$SERVER" 2>/dev/null; wait "$SERVER" 2>/dev/null; fi
  rm -rf "$WORK"
}

bench_server_start() {
  command -v wrk >/dev/null || scripts/setup.sh --tests
  [ -n "$BENCH_BINARY" ] || swift build -c release --product axiom-server >/dev/null
  PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  BENCH_URL="http://127.0.0.1:$PORT"
  WORK=$(mktemp -d)
  SERVER=
  trap bench_cleanup EXIT
  export AXIOM_PRODUCT_IDS="$WORK/product_ids.txt"
  export AXIOM_SHOPPER_TOKENS="$WORK/shopper_tokens.txt"
  export AXIOM_SHOPPER_EMAILS="$WORK/shopper_emails.txt"
  export AXIOM_BUYER_TOKENS="$WORK/buyer_tokens.txt"
  local started=$SECONDS
  BENCH_STORAGE=(--database "$WORK/axiom.db")
  # First start creates the schema; the template user's password is hashed by the server.
  bench_start_process
  curl -sf -X POST "$BENCH_URL/users" -H 'Content-Type: application/json' \
    -d "{\"name\":\"Bench Template\",\"email\":\"$BENCH_TEMPLATE_EMAIL\",\"password\":\"$AXIOM_BENCH_PASSWORD\"}" >/dev/null
  bench_stop_process
  python3 bench/seed_products.py "$WORK/axiom.db" 10000 "$AXIOM_PRODUCT_IDS"
  python3 bench/seed_users.py "$WORK/axiom.db" "$BENCH_TEMPLATE_EMAIL" "$AXIOM_PRODUCT_IDS" "$WORK" \
    "$BENCH_SHOPPERS" "$BENCH_BUYERS"
  if [ -n "$BENCH_DATABASE_URL" ]; then
    local schema
    schema=bench_$(date +%s)_$$
    psql "$BENCH_DATABASE_URL" -v ON_ERROR_STOP=1 -qc "CREATE SCHEMA $schema"
    BENCH_STORAGE=(--database-url "$BENCH_DATABASE_URL?options=-csearch_path%3D$schema")
    # The server makes the tables (its migrations), then the rows follow.
    bench_start_process
    bench_stop_process
    python3 bench/copy_to_postgres.py "$WORK/axiom.db" "${BENCH_STORAGE[1]}"
  fi
  bench_start_process
  echo "seeded 10000 products, $BENCH_SHOPPERS shoppers and $BENCH_BUYERS buyers with sessions and carts;" \
       "served at $BENCH_URL ($((SECONDS - started)) s)" >&2
}
