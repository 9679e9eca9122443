#!/usr/bin/env bash
# What a warm PUT /cart/items/{id} and a warm POST /checkout cost above
# HTTPServer, counted by callgrind in the real server (a debug build, where
# the code of each target stays in its own functions): calls into the
# targets above HTTPServer, the targets and contexts they reach, Mutex
# locks, pthread/Dispatch locks and atomic read-modify-writes done by code
# of those targets, and actor hops (swift_task_switch) and job enqueues
# anywhere in the process. docs/request-trace.md says how each is counted
# and keeps the figures.
#
# Seeds a fresh SQLite file through the API (an admin's product, one
# shopper signed in), restarts the server under callgrind with its
# instrumentation off, warms it up (WARM checkouts and cart changes), turns
# the instrumentation on and dumps three phases: N cart changes, N
# (cart change + checkout), and an idle stretch as long as the longer of
# them (the timers' cost, taken off the other two in proportion to their
# time). Per request: the PUT phase / N, the checkout phase / N minus a PUT.
#
# usage: scripts/trace-request.sh [-n N] [-w WARM] [--keep DIR]
#   N requests a phase (default 100), WARM rounds before (default 30);
#   --keep DIR keeps the dumps (callgrind_annotate DIR/callgrind.out.*).
# BINARY=path traces that build (a debug build of any commit: e.g.
# `git worktree add /tmp/old COMMIT && (cd /tmp/old && swift build --product
# axiom-server)` and BINARY=/tmp/old/.build/debug/axiom-server); default
# .build/debug/axiom-server, built first. Needs valgrind (callgrind) and swift
# (swift demangle); takes a few minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings (no rate limit in the way)
COUNT=100 WARM=30 KEEP=
while [ $# -gt 0 ]; do
  case $1 in
    -n) COUNT=$2; shift 2 ;;
    -w) WARM=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    *) sed -n 2,27p "$0" >&2; exit 2 ;;
  esac
done
command -v valgrind >/dev/null || { echo "valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
BINARY=${BINARY:-}
if [ -z "$BINARY" ]; then
  swift build --product axiom-server >/dev/null
  BINARY=.build/debug/axiom-server
fi
# SQLite's change feed reads the outbox every 0.1 s for other processes'
# changes, work of no request that at valgrind's pace lands many times in
# each: once a minute instead.
export AXIOM_CHANGE_FEED_POLL_INTERVAL=60
# One shopper checks out N + WARM + 3 times and leaves every order unpaid.
export AXIOM_UNPAID_ORDERS_PER_CUSTOMER=10000 AXIOM_UNPAID_UNITS_PER_CUSTOMER=1000000
export AXIOM_ADMIN_EMAIL=trace-admin@example.com AXIOM_ADMIN_PASSWORD="trace admin password"
WORK=$(mktemp -d)
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  if [ -n "$KEEP" ]; then mkdir -p "$KEEP" && cp "$WORK"/callgrind.out* "$WORK"/phases.json "$KEEP"/ 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT

serve() {
  "$@" --host 127.0.0.1 --port "$PORT" --database "$WORK/axiom.db" --log-level warning >>"$WORK/server.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 1200); do
    curl -sf "$URL/health" >/dev/null && return
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.25
  done
  echo "the server did not answer /health; its log:" >&2; tail -20 "$WORK/server.log" >&2; exit 1
}
field() { python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }
session() {
  curl -sf -X POST "$URL/sessions" -H 'Content-Type: application/json' -d "{\"email\":\"$1\",\"password\":\"$2\"}" | field token
}

serve "$BINARY"
ADMIN=$(session "$AXIOM_ADMIN_EMAIL" "$AXIOM_ADMIN_PASSWORD")
PRODUCT=$(curl -sf -X POST "$URL/products" -H "Authorization: Bearer $ADMIN" -H 'Content-Type: application/json' \
  -d '{"sku":"TRACE-1","name":"Traced","price":{"amount":1250,"currency":"USD"},"stock":1000000}' | field id)
curl -sf -X POST "$URL/users" -H 'Content-Type: application/json' \
  -d '{"name":"Traced Shopper","email":"trace-shopper@example.com","password":"trace shopper password"}' >/dev/null
TOKEN=$(session trace-shopper@example.com "trace shopper password")
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=

echo "starting $BINARY under callgrind ..." >&2
# Valgrind 3.19 gives up on the toolchain's DWARF ("possibly corrupted
# debuginfo"); the symbol table, all the counts need, survives strip -g.
strip -g -o "$WORK/axiom-server" "$BINARY"
# It also writes into the signal mask sigsuspend is given, and libdispatch's
# dispatch_main passes a constant one (a fault inside valgrind): a copy.
printf '%s\n' '#define _GNU_SOURCE' '#include <signal.h>' '#include <sys/syscall.h>' '#include <unistd.h>' \
  'int sigsuspend(const sigset_t *mask) { sigset_t copy = *mask; return (int)syscall(SYS_rt_sigsuspend, &copy, _NSIG / 8); }' \
  >"$WORK/sigsuspend.c"
cc -shared -fPIC -O2 -o "$WORK/sigsuspend.so" "$WORK/sigsuspend.c"
# The log output's 50 ms flush timer walks its 64 per-loop shards whether
# or not a line is waiting, many times a request at valgrind's pace:
# LockShards' functions are told apart by their callers (fn'caller), so the
# tally leaves out what runs under drainAll and counts a lock taken through
# LockShards (a target of its own since issue 36) for the target that
# asked for it.
LD_PRELOAD="$WORK/sigsuspend.so" serve valgrind --tool=callgrind --instr-atstart=no --collect-bus=yes \
  --separate-callers2='*LockShards*' --callgrind-out-file="$WORK/callgrind.out" \
  "$WORK/axiom-server"
python3 scripts/trace_request.py drive "$PORT" "$SERVER" "$TOKEN" "$PRODUCT" "$COUNT" "$WARM" "$WORK"
kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=
echo "$BINARY, $COUNT requests a phase after $WARM warm rounds:"
python3 scripts/trace_request.py tally "$WORK"
