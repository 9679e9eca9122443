#!/usr/bin/env bash
# Benchmark runner: builds the release binary, starts it on a free port,
# runs wrk (-t2 -c64 -d10s --latency by default) against each scenario and
# prints req/s, p50 and p99, then the server's resident memory.
#
# usage: scripts/bench.sh [-d SECONDS] [-c CONNECTIONS] [SCENARIO...]
#   scenarios: health, product (default: all). `product` seeds 10,000
#   products into the benchmark's own database first.
# Compare with the Hummingbird peer side by side, on a running server:
#   ../shared/bench/compare.sh -n 3 http://127.0.0.1:8080/health /health
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION=10 CONNECTIONS=64
while getopts "d:c:" option; do
  case $option in d) DURATION=$OPTARG ;; c) CONNECTIONS=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
SCENARIOS=("$@")
[ ${#SCENARIOS[@]} -gt 0 ] || SCENARIOS=(health product)

command -v wrk >/dev/null || scripts/setup.sh
swift build -c release --product axiom-server >/dev/null
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
WORK=$(mktemp -d)
export AXIOM_PRODUCT_IDS="$WORK/product_ids.txt"
start_server() {
  .build/release/axiom-server --port "$PORT" --database "$WORK/axiom.db" --log-level warning >>"$WORK/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
}
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
# First start creates the schema; seed the catalogue, then serve it.
start_server
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true
python3 bench/seed_products.py "$WORK/axiom.db" 10000 "$AXIOM_PRODUCT_IDS"
start_server

for scenario in "${SCENARIOS[@]}"; do
  script="bench/$scenario.lua"
  [ -f "$script" ] || { echo "no scenario $scenario ($script)" >&2; exit 2; }
  out=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$script" "http://127.0.0.1:$PORT")
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  p50=$(echo "$out" | awk '$1=="50%" {print $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  errors=$(echo "$out" | grep -E "Non-2xx|Socket errors" | tr -s ' ' || true)
  printf '%-12s %10s req/s   p50 %8s   p99 %8s   %s\n' "$scenario" "$rps" "$p50" "$p99" "$errors"
done
printf 'server resident memory after the run: %s KiB\n' "$(ps -o rss= -p $SERVER | tr -d ' ')"
