#!/usr/bin/env bash
# Context switches and CPU per request of one server run (issue 25's
# batched writes). Run by hand, never by tests. Starts the release server
# (or AXIOM_BINARY) alone, warms it with the same draw, then runs wrk and
# prints req/s, p99, the server's CPU per request and its voluntary and
# involuntary context switches per request (summed over its threads from
# /proc/PID/task/*/status). Compare builds by running it for each, in
# turns, several times: one run on a shared machine says little.
#
# usage: scripts/bench-switches.sh [-d SECONDS] [-w WARMUP] [-c CONNS] [--seeded DIR] health|uniform|zipf
#   health          GET /health on a fresh database
#   uniform, zipf   GET /products/{id} over a copy of DIR/axiom.db (default
#                   /tmp/search-1m, as scripts/seed-scale.sh leaves it, its
#                   search index merged first as scripts/bench-reads-1m.sh does)
# AXIOM_EVENT_LOOPS and the other AXIOM_* settings pass through to the server;
# LOG_LEVEL=info turns its access log on (default warning).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
DUR=10 WARM=20 CONNS=64 SEEDED=/tmp/search-1m WORKLOAD=
while [ $# -gt 0 ]; do
  case $1 in
    -d) DUR=$2; shift 2 ;;
    -w) WARM=$2; shift 2 ;;
    -c) CONNS=$2; shift 2 ;;
    --seeded) SEEDED=$2; shift 2 ;;
    health|uniform|zipf) WORKLOAD=$1; shift ;;
    *) sed -n 2,16p "$0" >&2; exit 2 ;;
  esac
done
[ -n "$WORKLOAD" ] || { sed -n 2,16p "$0" >&2; exit 2; }
command -v wrk >/dev/null || scripts/setup.sh --tests
if [ -z "${AXIOM_BINARY:-}" ]; then
  swift build -c release --product axiom-server >/dev/null
  AXIOM_BINARY=$(pwd)/.build/release/axiom-server
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-switches.XXXXXX")
PID=
cleanup() {
  if [ -n "$PID" ]; then kill "$PID" 2>/dev/null || true; wait "$PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

WRK_ARGS=(-t2 -c"$CONNS")
if [ "$WORKLOAD" != health ]; then
  [ -f "$SEEDED/axiom.db" ] || { echo "bench-switches: no $SEEDED/axiom.db (scripts/seed-scale.sh)" >&2; exit 1; }
  cp "$SEEDED/axiom.db" "$WORK/axiom.db"
  [ ! -f "$SEEDED/axiom.db-wal" ] || cp "$SEEDED/axiom.db-wal" "$WORK/axiom.db-wal"
  python3 bench/merge_search_index.py "$WORK/axiom.db"
  export AXIOM_PRODUCT_IDS=$SEEDED/product_ids.txt AXIOM_PATH_PREFIX=/products/
  if [ "$WORKLOAD" = zipf ]; then WRK_ARGS+=(-s bench/product_popular.lua); else WRK_ARGS+=(-s bench/product.lua); fi
fi
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$AXIOM_BINARY" --host 127.0.0.1 --port "$PORT" --database "$WORK/axiom.db" --log-level "${LOG_LEVEL:-warning}" >"$WORK/log" 2>&1 &
PID=$!
for _ in $(seq 1 300); do curl -sf -o /dev/null "http://127.0.0.1:$PORT/ready" && break; sleep 0.1; done
URL=http://127.0.0.1:$PORT
[ "$WORKLOAD" = health ] && URL=$URL/health

switches() { cat /proc/"$PID"/task/*/status 2>/dev/null | awk '/^voluntary/ {v+=$2} /^nonvoluntary/ {n+=$2} END {print v+0, n+0}'; }
cpu() { awk -v t="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%.6f", ($12+$13)/t}' "/proc/$PID/stat"; }

wrk "${WRK_ARGS[@]}" -d"${WARM}s" "$URL" >/dev/null
read -r v0 n0 < <(switches)
c0=$(cpu)
out=$(wrk "${WRK_ARGS[@]}" -d"${DUR}s" --latency "$URL")
c1=$(cpu)
read -r v1 n1 < <(switches)
total=$(echo "$out" | awk '/requests in/ {print $1}')
rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
p99=$(echo "$out" | awk '$1=="99%" {print $2}')
python3 - "$WORKLOAD" "$rps" "$p99" "$total" "$c0" "$c1" "$v0" "$v1" "$n0" "$n1" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'EOF'
import sys
workload, rps, p99 = sys.argv[1:4]
total, c0, c1, v0, v1, n0, n1 = map(float, sys.argv[4:11])
print(f"{workload}: {rps} req/s, p99 {p99}, cpu {(c1 - c0) * 1e6 / total:.1f} us/req, "
      f"switches per request {(v1 - v0) / total:.3f} voluntary, {(n1 - n0) / total:.3f} involuntary "
      f"(load {sys.argv[11]})")
EOF
