#!/usr/bin/env bash
# Our server side by side with the Hummingbird 2 peer, through the peer's
# compare.sh (interleaved rounds, median ratio ours/peer), on the database
# scripts/bench.sh seeds (scripts/bench-server.sh):
#   product   GET /products/{id} (bench/product.lua, random of 10,000)
#             vs the peer's SQLite read GET /users/{id} (random_user.lua)
#   cart_put  PUT /cart/items/{id} (bench/cart_put.lua, 256 shoppers, durable)
#             vs the peer's durable insert POST /users (post_user.lua,
#             SQLITE_SYNC=FULL)
#   health    GET /health on both (the HTTP engine alone)
#   pipelined GET /health pipelined 16 deep on both (bench/pipeline16.lua)
# Each line also gives both servers' CPU per request (compare.sh).
#
# usage: scripts/bench-compare.sh [-n ROUNDS] [-d SECONDS] [-c CONNS] [product] [cart_put] [health] [pipelined]
#   The peer kit (README, Benchmarks) is found in $AXIOM_PEER_BENCH; it is not part of this
#   repository (the default, ../shared/bench, is where the team keeps it beside the checkout).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
REPO=$PWD
PEER_BENCH=${AXIOM_PEER_BENCH:-../shared/bench}
[ -x "$PEER_BENCH/compare.sh" ] || { echo "no $PEER_BENCH/compare.sh (set AXIOM_PEER_BENCH)" >&2; exit 2; }
COMPARE_OPTIONS=(-n 3)
while getopts "n:d:c:" option; do
  case $option in n|d|c) COMPARE_OPTIONS+=("-$option" "$OPTARG") ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
ROUTES=("$@")
[ ${#ROUTES[@]} -gt 0 ] || ROUTES=(product cart_put)

. scripts/bench-server.sh
bench_server_start
export WRK_THREADS=2

for route in "${ROUTES[@]}"; do
  echo "== $route, load $(cut -d' ' -f1-3 /proc/loadavg)"
  case $route in
    product)
      "$PEER_BENCH/compare.sh" "${COMPARE_OPTIONS[@]}" "$BENCH_URL/products/x" /users/1 \
        "$REPO/bench/product.lua" random_user.lua ;;
    cart_put)
      SQLITE_SYNC=FULL "$PEER_BENCH/compare.sh" "${COMPARE_OPTIONS[@]}" "$BENCH_URL/cart/items/x" /users \
        "$REPO/bench/cart_put.lua" post_user.lua ;;
    health)
      "$PEER_BENCH/compare.sh" "${COMPARE_OPTIONS[@]}" "$BENCH_URL/health" /health \
        "$REPO/bench/health.lua" "$REPO/bench/health.lua" ;;
    pipelined)
      "$PEER_BENCH/compare.sh" "${COMPARE_OPTIONS[@]}" "$BENCH_URL/health" /health \
        "$REPO/bench/pipeline16.lua" "$REPO/bench/pipeline16.lua" ;;
    *) echo "no route $route (product, cart_put, health, pipelined)" >&2; exit 2 ;;
  esac
  echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
