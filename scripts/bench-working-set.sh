#!/usr/bin/env bash
# Product working set under a read pattern: starts the release build on a
# file seeded by scripts/seed-scale.sh (DIR/axiom.db, DIR/product_ids.txt),
# runs wrk (2 threads, 64 connections) with each script for 3 s to fill the
# set and then 8 s measured, and reports req/s, the server's CPU per request,
# the products set's hit share over the measured 8 s (from /metrics'
# axiom_working_set_lookups_total) and the RSS after. Each script gets a
# fresh server, so one does not warm the next.
# usage: scripts/bench-working-set.sh DIR [SCRIPT...]   (default: product.lua product_popular.lua)
# AXIOM_BINARY=path measures that binary instead of building the release one.
# Compare two builds by alternating them (A B B A): the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings

[ $# -ge 1 ] && [ -f "$1/axiom.db" ] && [ -f "$1/product_ids.txt" ] ||
  { echo "usage: $0 DIR [SCRIPT...]  (DIR as scripts/seed-scale.sh --out left it)" >&2; exit 2; }
DIR=$1; shift
SCRIPTS=("$@"); [ ${#SCRIPTS[@]} -gt 0 ] || SCRIPTS=(product.lua product_popular.lua)
command -v wrk >/dev/null || scripts/setup.sh --tests
if [ -z "${AXIOM_BINARY:-}" ]; then
  swift build -c release --product axiom-server >/dev/null
  AXIOM_BINARY=.build/release/axiom-server
fi
IDS=$DIR/product_ids.txt
TICK=$(getconf CLK_TCK)

# hits misses of the products set, from /metrics
lookups() {
  curl -sf "$1/metrics" | awk '/^axiom_working_set_lookups_total\{/ && /set="products"/ {
      if ($0 ~ /result="hit"/) h = $NF; else m = $NF } END { print h + 0, m + 0 }'
}

for script in "${SCRIPTS[@]}"; do
  PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  URL=http://127.0.0.1:$PORT
  # Only the server's settings in its environment (it warns about others).
  env -u AXIOM_BINARY "$AXIOM_BINARY" --host 127.0.0.1 --port "$PORT" --database "$DIR/axiom.db" --log-level warning &
  PID=$!
  trap 'kill $PID 2>/dev/null' EXIT
  for _ in $(seq 1 600); do curl -sf -o /dev/null "$URL/ready" && break; sleep 0.05; done
  curl -sf -o /dev/null "$URL/ready" || { echo "bench-working-set: the server did not become ready" >&2; exit 1; }
  AXIOM_PRODUCT_IDS=$IDS wrk -t2 -c64 -d3s -s "bench/$script" "$URL" >/dev/null
  read -r h0 m0 < <(lookups "$URL")
  c0=$(awk '{ print $14 + $15 }' "/proc/$PID/stat")
  result=$(AXIOM_PRODUCT_IDS=$IDS wrk -t2 -c64 -d8s -s "bench/$script" "$URL")
  c1=$(awk '{ print $14 + $15 }' "/proc/$PID/stat")
  read -r h1 m1 < <(lookups "$URL")
  rss=$(awk '/VmRSS/ { print int($2 / 1024) }' "/proc/$PID/status")
  kill "$PID"; wait "$PID" 2>/dev/null || true
  trap - EXIT
  requests=$(awk '/requests in/ { print $1 }' <<<"$result")
  rate=$(awk '/Requests\/sec/ { print $2 }' <<<"$result")
  awk -v s="$script" -v rate="$rate" -v n="$requests" -v cpu=$((c1 - c0)) -v tick="$TICK" \
      -v h=$((h1 - h0)) -v m=$((m1 - m0)) -v rss="$rss" 'BEGIN {
    printf "%-22s %8.0f req/s  cpu %5.1f us/request  products hit %.1f %% (%d of %d lookups)  RSS %d MiB\n",
           s, rate, cpu / tick * 1e6 / n, (h + m) ? 100 * h / (h + m) : 0, h, h + m, rss }'
done
