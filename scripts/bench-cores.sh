#!/usr/bin/env bash
# GET /health on our server, the Hummingbird 2 peer and limit-c with the
# servers pinned (taskset) to 1, 2, 4, ... of the machine's N cores and wrk
# on the rest, then the oversubscribed cases, and prints one table row each:
#   - server on k cores (k = 1, 2, 4, ... < N), event_loops k; wrk on the other N - k
#   - server on half the cores (1 on a 2-core machine) with 4x and 8x as many loops
#   - unpinned, event_loops N and 4N (wrk shares the cores, as compare.sh runs)
#   - unpinned, event_loops 0, with a busy loop on every core (the hog case)
# Ours against the peer goes through $AXIOM_PEER_BENCH/compare.sh (it builds and
# starts the peer, interleaves the rounds and reads both servers' CPU per
# request from /proc); the peer inherits the cores compare.sh is pinned to and
# sizes its threads by them. limit-c gets one wrk run per round on the same
# cores with as many threads as we have loops.
#
# usage: scripts/bench-cores.sh [-n ROUNDS] [-d SECONDS] [-c CONNS]
#   BINARY=path   our release binary (default: .build/release/axiom-server, built if missing)
#   LOG_LEVEL=info  our log level (info, the default, writes an access line per request)
#   AXIOM_PEER_BENCH=dir  the peer kit (README, Benchmarks; default ../shared/bench, the team's copy beside the checkout)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
ROUNDS=3 DUR=7 CONNS=64
while getopts "n:d:c:" option; do
  case $option in n) ROUNDS=$OPTARG ;; d) DUR=$OPTARG ;; c) CONNS=$OPTARG ;; *) exit 2 ;; esac
done
PEER_BENCH=$(cd "${AXIOM_PEER_BENCH:-../shared/bench}" && pwd)
[ -x "$PEER_BENCH/compare.sh" ] || { echo "no $PEER_BENCH/compare.sh (set AXIOM_PEER_BENCH)" >&2; exit 2; }
BINARY=${BINARY:-.build/release/axiom-server}
[ -x "$BINARY" ] || swift build -c release --product axiom-server >&2
CORES=$(nproc)
WORK=$(mktemp -d)
SERVER='' LIMIT='' HOGS=()
cleanup() {
  for pid in $SERVER $LIMIT "${HOGS[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

gcc -O2 -pthread -o "$WORK/limit-c" "$PEER_BENCH/limit-c/server.c"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cpu_list() { [ "$1" -le "$2" ] && echo "$1-$2"; }  # cores $1..$2, or nothing when the range is empty
cpu_seconds() { awk -v t="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%.6f", ($12+$13)/t}' "/proc/$1/stat"; }

# wrk as compare.sh calls it, pinned to $WRK_CPUS with one thread a core
# there (compare.sh asks for -t2).
mkdir -p "$WORK/bin"
cat >"$WORK/bin/wrk" <<'EOF'
#!/usr/bin/env bash
args=()
for arg in "$@"; do case $arg in -t*) args+=("-t$WRK_THREADS") ;; *) args+=("$arg") ;; esac; done
if [ -n "$WRK_CPUS" ]; then exec taskset -c "$WRK_CPUS" "$REAL_WRK" "${args[@]}"; else exec "$REAL_WRK" "${args[@]}"; fi
EOF
chmod +x "$WORK/bin/wrk"
REAL_WRK=$(command -v wrk) || { echo "wrk is not installed (scripts/setup.sh --tests)" >&2; exit 2; }
export REAL_WRK

# The command to prefix to pin a process to the cores $1 (none when $1 is
# empty); taskset execs the command, so $! stays the server's pid.
pin() { [ -z "$1" ] || echo "taskset -c $1"; }

start_ours() {  # $1 server cores ("" = any), $2 event loops
  PORT=$(free_port)
  rm -rf "$WORK/db"
  mkdir -p "$WORK/db"
  AXIOM_MAX_CONNECTIONS_PER_ADDRESS=1000000 AXIOM_EVENT_LOOPS=$2 \
    $(pin "$1") "$BINARY" --port "$PORT" --database "$WORK/db/axiom.db" --log-level "${LOG_LEVEL:-info}" >"$WORK/ours.log" 2>&1 &
  SERVER=$!
  for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && return; sleep 0.1; done
  echo "our server did not answer; log:" >&2
  cat "$WORK/ours.log" >&2
  exit 1
}

stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# One wrk run per round on limit-c: "req/s cpu-us-per-request" medians.
limit_c() {  # $1 server cores, $2 threads
  local port results=()
  port=$(free_port)
  PORT=$port THREADS=$2 $(pin "$1") "$WORK/limit-c" >/dev/null 2>&1 &
  LIMIT=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
  for _ in $(seq 1 "$ROUNDS"); do
    local before after out
    before=$(cpu_seconds "$LIMIT")
    out=$("$WORK/bin/wrk" -t2 -c"$CONNS" -d"${DUR}s" "http://127.0.0.1:$port/")
    after=$(cpu_seconds "$LIMIT")
    results+=("$(echo "$out" | awk -v b="$before" -v a="$after" '/requests in/ {n=$1} /Requests\/sec/ {r=$2} END {printf "%.0f %.1f\n", r, (a-b)*1e6/(n>0?n:1)}')")
  done
  stop "$LIMIT"
  LIMIT=''
  printf '%s\n' "${results[@]}" | sort -n | awk -v n="$ROUNDS" '{v[NR]=$0} END {print v[int((n+1)/2)]}'
}

# Ours against the peer through compare.sh, compare.sh (and so the peer)
# pinned to the server's cores; prints the table row.
row() {  # $1 label, $2 server cores ("" = any), $3 wrk cores ("" = any), $4 our event loops, $5 limit-c threads
  local label=$1 cores=$2 loops=$4
  export WRK_CPUS=$3
  if [ -n "$3" ]; then WRK_THREADS=$(taskset -c "$3" nproc); else WRK_THREADS=2; fi
  export WRK_THREADS
  start_ours "$cores" "$loops"
  local out
  out=$(PATH="$WORK/bin:$PATH" OUR_PID=$SERVER $(pin "$cores") "$PEER_BENCH/compare.sh" -n "$ROUNDS" -d "$DUR" -c "$CONNS" \
          "http://127.0.0.1:$PORT/health" /health 2>"$WORK/compare.err") || { cat "$WORK/compare.err" >&2; exit 1; }
  local started
  started=$(grep -ao '"event_loops":[0-9]*' "$WORK/ours.log" | head -1 | cut -d: -f2)
  stop "$SERVER"
  SERVER=''
  echo "$out" >>"$WORK/rounds.log"
  local limit
  limit=$(limit_c "$cores" "$5")
  echo "$out" | python3 -c '
import re, statistics, sys
label, loops, limit = sys.argv[1], sys.argv[2], sys.argv[3].split()
pattern = (r"ours (\S+) req/s \(p99 (\S+), cpu (\S+) us/req\), "
           r"peer (\S+) req/s \(p99 (\S+), cpu (\S+) us/req\), ratio ([0-9.]+)")
rounds = [re.search(pattern, line).groups() for line in sys.stdin if line.startswith("round ")]
med = lambda i: statistics.median(float(r[i]) for r in rounds)
def ms(text):
    value = float(re.match(r"[0-9.]+", text).group())
    return value * {"us": 0.001, "ms": 1, "s": 1000}[re.search(r"[a-z]+$", text).group()]
def p99(i):
    low, high = min(ms(r[i]) for r in rounds), max(ms(r[i]) for r in rounds)
    return f"{low:.1f} ms" if low == high else f"{low:.1f}-{high:.1f} ms"
print(f"| {label}, {loops} loops | {med(0)/1000:.1f}k, {med(2):.1f} us, p99 {p99(1)} "
      f"| {med(3)/1000:.1f}k, {med(5):.1f} us, p99 {p99(4)} | {med(6):.2f}x | {float(limit[0])/1000:.1f}k, {float(limit[1]):.1f} us |")
' "$label" "$started" "$limit"
}

echo "GET /health, wrk -c$CONNS -d${DUR}s, medians of $ROUNDS interleaved rounds; $CORES cores; $(date -u '+%F %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| server cores (taskset), event loops | ours: req/s, CPU/request, p99 | peer (Hummingbird 2) | ours / peer | limit-c |"
echo "|---|---|---|---|---|"
k=1
while [ "$k" -lt "$CORES" ]; do
  row "$k of $CORES cores" "$(cpu_list 0 $((k - 1)))" "$(cpu_list "$k" $((CORES - 1)))" "$k" "$k"
  k=$((k * 2))
done
half=$((CORES / 2 > 0 ? CORES / 2 : 1))
for factor in 4 8; do
  row "$half of $CORES cores" "$(cpu_list 0 $((half - 1)))" "$(cpu_list "$half" $((CORES - 1)))" $((half * factor)) "$half"
done
row "all $CORES, shared with wrk" "" "" "$CORES" "$CORES"
row "all $CORES, shared with wrk" "" "" $((CORES * 4)) "$CORES"
for _ in $(seq 1 "$CORES"); do
  (while :; do :; done) &
  HOGS+=($!)
done
row "all $CORES + a busy loop on each" "" "" 0 "$CORES"
