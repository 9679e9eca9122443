#!/usr/bin/env bash
# Heap allocations per request of the release server, counted by heaptrack
# (every malloc/calloc/realloc/posix_memalign call, its "calls to allocation
# functions"). Each path is measured twice in its own server process, after
# SHORT and after LONG sequential keep-alive requests on one connection; the
# difference over LONG - SHORT is the steady-state count per request, with
# start-up, the first request's warm-up and shutdown cancelled out.
#
# usage: scripts/alloc-count.sh [PATH ...]     (default: /health and one /products/{id})
# BINARY=path measures another build (default .build/release/axiom-server,
# built first); LOG_LEVEL=info counts the access log line too (default
# warning: the access log off); SHORT=1000 LONG=11000 by default;
# TRACES=dir keeps each run's heaptrack file there, to see the sites with
# `heaptrack_print -n 40 FILE` (most calls first).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v heaptrack >/dev/null || { echo "heaptrack is not installed (apt-get install heaptrack)" >&2; exit 1; }
BINARY=${BINARY:-}
LOG_LEVEL=${LOG_LEVEL:-warning}
SHORT=${SHORT:-1000}
LONG=${LONG:-11000}
if [ -z "$BINARY" ]; then
  swift build -c release --product axiom-server >/dev/null
  BINARY=.build/release/axiom-server
fi
WORK=$(mktemp -d)
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

wait_ready() {
  for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && return; sleep 0.1; done
  echo "the server did not answer /health; log: $WORK/server.log" >&2; cat "$WORK/server.log" >&2; exit 1
}

# One start without heaptrack creates the schema; then 10 products.
"$BINARY" --port "$PORT" --database "$WORK/axiom.db" --log-level warning >>"$WORK/server.log" 2>&1 &
SERVER=$!
wait_ready
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=
python3 bench/seed_products.py "$WORK/axiom.db" 10 "$WORK/ids.txt"
PRODUCT="/products/$(head -1 "$WORK/ids.txt")"
[ $# -gt 0 ] || set -- /health "$PRODUCT"

# Allocation calls of one server process that answered COUNT requests for PATH.
allocations() {
  local path=$1 count=$2
  heaptrack -o "$WORK/trace" "$BINARY" --port "$PORT" --database "$WORK/axiom.db" \
    --log-level "$LOG_LEVEL" >>"$WORK/server.log" 2>&1 &
  SERVER=$!
  wait_ready
  python3 - "$PORT" "$path" "$count" <<'EOF'
import http.client, sys
port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
connection = http.client.HTTPConnection("127.0.0.1", port)
for _ in range(count):
    connection.request("GET", path)
    response = connection.getresponse()
    response.read()
    if response.status != 200:
        sys.exit(f"{path}: status {response.status}")
connection.close()
EOF
  # heaptrack's wrapper runs the server as its child: stop that, and the wrapper writes the trace.
  kill "$(pgrep -P "$SERVER" -f "$BINARY" | head -1)"
  wait "$SERVER" 2>/dev/null || true; SERVER=
  heaptrack_print "$WORK"/trace.* 2>/dev/null | sed -n 's/^calls to allocation functions: \([0-9]*\).*/\1/p'
  if [ -n "${TRACES:-}" ]; then
    mkdir -p "$TRACES"; mv "$WORK"/trace.* "$TRACES/$(echo "$path" | tr -c 'a-z0-9\n' '_')-$count.zst"
  fi
  rm -f "$WORK"/trace.*
}

for path in "$@"; do
  short=$(allocations "$path" "$SHORT")
  long=$(allocations "$path" "$LONG")
  python3 -c "import sys; s, l, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]); print(f'{sys.argv[4]}: {(l - s) / n:.2f} allocations per request ({s} after {sys.argv[5]}, {l} after {sys.argv[6]})')" \
    "$short" "$long" "$((LONG - SHORT))" "$path" "$SHORT" "$LONG"
done
