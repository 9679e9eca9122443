#!/usr/bin/env bash
# Benchmark runner: builds the release binary, seeds a database (10,000
# products; shoppers and buyers signed in, with carts; see
# scripts/bench-server.sh), starts the server on a free port, runs wrk
# (-t2 -c64 -d10s --latency by default) against each scenario and prints
# req/s, p50, p99, the server process's CPU per request, the machine's load,
# then the server's resident memory. BENCH_DATABASE_URL=postgres://… serves the
# same data from PostgreSQL (scripts/bench-server.sh).
#
# usage: scripts/bench.sh [-d SECONDS] [-c CONNECTIONS] [--keep] [SCENARIO...]
#   scenarios (default: all, in this order):
#     health     GET /health
#     product    GET /products/{id}, random of the 10,000
#     cart       GET /cart, random shopper (256, BENCH_SHOPPERS)
#     cart_put   PUT /cart/items/{id} {"quantity":N}, random shopper, random
#                product of the first 10 (AXIOM_CART_PRODUCTS), durable writes
#     sessions   POST /sessions (argon2id verification: slow on purpose)
#     register   POST /users (argon2id hash: slow on purpose)
#     checkout   POST /checkout, each buyer once (40,000, BENCH_BUYERS)
#   --keep: after the scenarios (none given: right after seeding), print the
#   URL and the environment the bench/*.lua scripts read, and keep serving
#   until interrupted — e.g. for ../shared/bench/compare.sh by hand.
# Side by side with the Hummingbird peer: scripts/bench-compare.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
DURATION=10 CONNECTIONS=64 KEEP=false
ALL=(health product cart cart_put sessions register checkout)
SCENARIOS=()
while [ $# -gt 0 ]; do
  case $1 in
    -d) DURATION=$2; shift 2 ;;
    -c) CONNECTIONS=$2; shift 2 ;;
    --keep) KEEP=true; shift ;;
    -*) sed -n 2,22p "$0" >&2; exit 2 ;;
    *) SCENARIOS+=("$1"); shift ;;
  esac
done
if [ ${#SCENARIOS[@]} -eq 0 ] && ! $KEEP; then SCENARIOS=("${ALL[@]}"); fi
for scenario in "${SCENARIOS[@]}"; do
  [ -f "bench/$scenario.lua" ] || { echo "no scenario $scenario (bench/$scenario.lua)" >&2; exit 2; }
done

. scripts/bench-server.sh
bench_server_start
export WRK_THREADS=2

for scenario in "${SCENARIOS[@]}"; do
  # The argon2id routes queue up to CONNECTIONS deep behind a pool of one
  # hash per core: their latency is seconds, not a timeout.
  cpu_before=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
  out=$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 30s --latency -s "bench/$scenario.lua" "$BENCH_URL")
  cpu_after=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
  requests=$(echo "$out" | awk '/requests in/ {print $1}')
  # The server process's user + system CPU (clock ticks) per request; on
  # PostgreSQL the database's own CPU is not in it.
  cpu=$(awk -v t=$((cpu_after - cpu_before)) -v n="$requests" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { if (n > 0) printf "%.1f us/req", t / hz / n * 1e6; else print "-" }')
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  errors=$(echo "$out" | grep -E "Non-2xx|Socket errors" | tr -s ' ' || true)
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  printf '%-10s %10s req/s   p50 %8s   p99 %8s   cpu %s   load %s   %s\n' "$scenario" "$rps" "$p50" "$p99" "$cpu" "$load" "$errors"
  case $scenario in
    sessions|register) echo "           (argon2id on the PasswordHasher pool: at most $(nproc) at once, one per core)" ;;
  esac
done
printf 'server resident memory: %s KiB\n' "$(ps -o rss= -p "$SERVER" | tr -d ' ')"

if $KEEP; then
  cat <<INFO
serving $BENCH_URL (pid $SERVER) until interrupted; for the bench/*.lua scripts:
  export AXIOM_PRODUCT_IDS=$AXIOM_PRODUCT_IDS AXIOM_SHOPPER_TOKENS=$AXIOM_SHOPPER_TOKENS
  export AXIOM_SHOPPER_EMAILS=$AXIOM_SHOPPER_EMAILS AXIOM_BUYER_TOKENS=$AXIOM_BUYER_TOKENS
  export AXIOM_BENCH_PASSWORD='$AXIOM_BENCH_PASSWORD'
e.g. ../shared/bench/compare.sh -n 3 $BENCH_URL/products/x $PWD/bench/product.lua random_user.lua
INFO
  wait "$SERVER" || true
fi
