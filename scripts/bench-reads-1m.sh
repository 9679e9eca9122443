#!/usr/bin/env bash
# GET /products/{id} at 1,000,000 products, side by side with the Hummingbird
# 2 peer's GET /users/{id} over a users table of 1,000,000 rows (issue 25).
# Run by hand, never by tests. Builds the release server and the peer (as
# ../shared/bench/compare.sh does), starts ours on a COPY of a seeded
# database with the default bounds and the peer on a pre-seeded users file,
# then runs interleaved wrk rounds (ours, [before], peer, ours, ...) for
#   uniform: ids drawn uniformly (bench/product.lua);
#   zipf:    popularity rank r drawn with p ~ 1/r (bench/product_popular.lua),
#            the same rank -> line mapping for both servers (the peer's id is
#            the line number, AXIOM_PATH_PREFIX=/users/).
# Prints per run req/s, p99, server CPU per request (utime+stime from
# /proc/PID/stat over the run) and the load average; then the median
# ratios ours/peer and each server's RssAnon/RssFile after the runs.
#
# usage: scripts/bench-reads-1m.sh [-n ROUNDS] [-d SECONDS] [-c CONNS] [--seeded DIR]
#                                  [--before BINARY] [--only uniform|zipf]
#   --seeded DIR  DIR/axiom.db and DIR/product_ids.txt as scripts/seed-scale.sh
#                 leaves them (default /tmp/search-1m; seeded there when missing).
#                 The file is copied, never used in place.
#   --before BIN  another build of axiom-server, run beside ours in every round
#                 (e.g. main's HEAD built into a scratch path of its own).
# AXIOM_BINARY=path measures that binary instead of building the release one.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
ROOT=$(pwd)
SHARED=$ROOT/../shared/bench
[ -d "$SHARED/peer-hummingbird" ] || SHARED=/work/shared/bench

ROUNDS=3 DUR=10 CONNS=64 SEEDED=/tmp/search-1m BEFORE= ONLY=
while [ $# -gt 0 ]; do
  case $1 in
    -n) ROUNDS=$2; shift 2 ;;
    -d) DUR=$2; shift 2 ;;
    -c) CONNS=$2; shift 2 ;;
    --seeded) SEEDED=$2; shift 2 ;;
    --before) BEFORE=$(realpath "$2"); shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    *) sed -n 2,25p "$0" >&2; exit 2 ;;
  esac
done
command -v wrk >/dev/null || scripts/setup.sh --tests

if [ -z "${AXIOM_BINARY:-}" ]; then
  echo "building axiom-server (release)..." >&2
  swift build -c release --product axiom-server >/dev/null
  AXIOM_BINARY=$ROOT/.build/release/axiom-server
fi
PEER_SCRATCH=${TMPDIR:-/tmp}/axiom-peer-build
echo "building the peer (release)..." >&2
swift build -c release --package-path "$SHARED/peer-hummingbird" --scratch-path "$PEER_SCRATCH" >"$PEER_SCRATCH.log" 2>&1 \
  || { echo "peer build failed, see $PEER_SCRATCH.log" >&2; exit 1; }
PEER_BIN=$(swift build -c release --package-path "$SHARED/peer-hummingbird" --scratch-path "$PEER_SCRATCH" --show-bin-path)/PeerHummingbird

if [ ! -f "$SEEDED/axiom.db" ] || [ ! -f "$SEEDED/product_ids.txt" ]; then
  echo "seeding 1,000,000 products into $SEEDED (takes minutes)..." >&2
  mkdir -p "$SEEDED"
  AXIOM_BINARY=$AXIOM_BINARY scripts/seed-scale.sh "$SEEDED/axiom.db" --products 1000000 --users 16 --out "$SEEDED"
fi
PRODUCTS=$(wc -l <"$SEEDED/product_ids.txt")

WORK=$(mktemp -d "${TMPDIR:-/tmp}/bench-reads-1m.XXXXXX")
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() {
  for _ in $(seq 1 300); do curl -sf -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "bench-reads-1m: $1 did not answer" >&2; return 1
}

# The peer seeds 10,000 users only into an empty table: give it 1,000,000
# first, in its own schema (../shared/bench/sqlite-store).
mkdir -p "$WORK/peer"
python3 - "$WORK/peer/users.db" "$PRODUCTS" "$WORK/user_ids.txt" <<'EOF'
import sqlite3, sys
path, count, ids = sys.argv[1], int(sys.argv[2]), sys.argv[3]
db = sqlite3.connect(path)
db.execute("PRAGMA journal_mode=WAL")
db.execute("""CREATE TABLE users(
    id    INTEGER PRIMARY KEY AUTOINCREMENT,
    name  TEXT NOT NULL,
    email TEXT NOT NULL)""")
db.executemany("INSERT INTO users(id, name, email) VALUES(?, ?, ?)",
               ((i, f"User {i}", f"user{i}@example.com") for i in range(1, count + 1)))
db.commit()
db.close()
with open(ids, "w") as f:
    f.write("".join(f"{i}\n" for i in range(1, count + 1)))
EOF

# A seeded file's search index is in the segments its bulk import left;
# each server would merge it on start-up (CatalogClient.compactSearchIndex),
# about 25 s of CPU inside the first rounds, charged to whichever server
# runs first. Merge it once, on a copy, as a shop's long-running server has.
mkdir -p "$WORK/seed"
cp "$SEEDED/axiom.db" "$WORK/seed/axiom.db"
[ ! -f "$SEEDED/axiom.db-wal" ] || cp "$SEEDED/axiom.db-wal" "$WORK/seed/axiom.db-wal"
echo "merging the seeded file's search index into one segment..." >&2
python3 bench/merge_search_index.py "$WORK/seed/axiom.db"

NAMES=() URLS=() SERVER_PIDS=() PREFIXES=() IDS=()
start_ours() { # name binary
  mkdir -p "$WORK/$1"
  cp "$WORK/seed/axiom.db" "$WORK/$1/axiom.db"
  local port; port=$(free_port)
  "$2" --host 127.0.0.1 --port "$port" --database "$WORK/$1/axiom.db" --log-level warning >"$WORK/$1/log" 2>&1 &
  PIDS+=($!) SERVER_PIDS+=($!) NAMES+=("$1") URLS+=("http://127.0.0.1:$port") PREFIXES+=(/products/) IDS+=("$SEEDED/product_ids.txt")
  wait_ready "http://127.0.0.1:$port/ready"
}
start_ours ours "$AXIOM_BINARY"
[ -z "$BEFORE" ] || start_ours before "$BEFORE"
PEER_PORT=$(free_port)
(cd "$WORK/peer" && exec env PORT=$PEER_PORT DB_PATH=$WORK/peer/users.db "$PEER_BIN") >"$WORK/peer/log" 2>&1 &
PIDS+=($!) SERVER_PIDS+=($!) NAMES+=(peer) URLS+=("http://127.0.0.1:$PEER_PORT") PREFIXES+=(/users/) IDS+=("$WORK/user_ids.txt")
wait_ready "http://127.0.0.1:$PEER_PORT/health"
grep -q "seeded 0 rows" "$WORK/peer/log" || { echo "bench-reads-1m: the peer seeded its own rows" >&2; cat "$WORK/peer/log" >&2; exit 1; }

cpu() { awk -v t="$(getconf CLK_TCK)" '{sub(/.*\) /, ""); printf "%.6f", ($12+$13)/t}' "/proc/$1/stat"; }
run() { # index workload seconds -> "req/s p99 cpu_us_per_request" on stdout
  local i=$1 lua=bench/product.lua
  [ "$2" = zipf ] && lua=bench/product_popular.lua
  local c0 c1 out
  c0=$(cpu "${SERVER_PIDS[$i]}")
  out=$(AXIOM_PRODUCT_IDS=${IDS[$i]} AXIOM_PATH_PREFIX=${PREFIXES[$i]} \
        wrk -t2 -c"$CONNS" -d"${3}s" --latency -s "$lua" "${URLS[$i]}")
  c1=$(cpu "${SERVER_PIDS[$i]}")
  if echo "$out" | grep -q "Non-2xx\|Socket errors"; then
    echo "warning (${NAMES[$i]}): $(echo "$out" | grep "Non-2xx\|Socket errors" | tr -s ' ')" >&2
  fi
  local rps total p99
  rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
  total=$(echo "$out" | awk '/requests in/ {print $1}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  echo "$rps $p99 $(python3 -c "print(f'{($c1-$c0)*1e6/max($total,1):.1f}')")"
}

WORKLOADS=(uniform zipf)
[ -z "$ONLY" ] || WORKLOADS=("$ONLY")
echo "warming up (3 s uniform each)..." >&2
for i in "${!NAMES[@]}"; do run "$i" uniform 3 >/dev/null; done

RESULTS=$WORK/results.tsv
for workload in "${WORKLOADS[@]}"; do
  for r in $(seq 1 "$ROUNDS"); do
    for i in "${!NAMES[@]}"; do
      load=$(cut -d' ' -f1-3 /proc/loadavg)
      read -r rps p99 us < <(run "$i" "$workload" "$DUR")
      printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$workload" "$r" "${NAMES[$i]}" "$rps" "$us" "$p99" >>"$RESULTS"
      printf '%-7s round %s %-6s %9s req/s  p99 %-8s cpu %6s us/req  load %s\n' \
        "$workload" "$r" "${NAMES[$i]}" "$rps" "$p99" "$us" "$load"
    done
  done
done

python3 - "$RESULTS" <<'EOF'
import statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
for workload in dict.fromkeys(r[0] for r in rows):
    by = {}
    for w, rnd, name, rps, us, p99 in rows:
        if w == workload: by.setdefault(rnd, {})[name] = (float(rps), float(us))
    for name in sorted({n for d in by.values() for n in d} - {"peer"}):
        ratios = [d[name][0] / d["peer"][0] for d in by.values()]
        cpu = [d["peer"][1] / d[name][1] for d in by.values()]
        print(f"{workload}: {name}/peer median req/s ratio {statistics.median(ratios):.2f} "
              f"({', '.join(f'{x:.2f}' for x in ratios)}); median cpu efficiency (peer us / {name} us) "
              f"{statistics.median(cpu):.2f}; median {name} cpu {statistics.median(d[name][1] for d in by.values()):.1f} us/req, "
              f"peer {statistics.median(d['peer'][1] for d in by.values()):.1f}")
EOF
for i in "${!NAMES[@]}"; do
  echo "${NAMES[$i]} after the runs: $(grep -E '^(RssAnon|RssFile)' "/proc/${SERVER_PIDS[$i]}/status" | tr -s ' \t' ' ' | paste -sd, -)"
done
