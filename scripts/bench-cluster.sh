#!/usr/bin/env bash
# Scale-out figures for docs/scaling.md (issue 13): the same seeded shop
# (scripts/bench-server.sh: 10,000 products, shoppers with carts, buyers
# with one cart line each) driven by wrk through
#   sqlite      one server on the SQLite file
#   postgres    one server on PostgreSQL, directly
#   N replicas  scripts/cluster.sh: N replicas on that PostgreSQL behind
#               HAProxy (change_feed notify, replica_coherence strict), N = 1, 2, 3
#   3 off       three replicas with replica_coherence off, GET /products/{id}
#               only: the read barrier's cost per request (between two strict runs)
#   3 server-close  HAProxy opening a new connection to a replica per
#               request (cluster.sh keeps them open), product and cart_put
#   3 50 ms     cart_put with PostgreSQL's deadlock_timeout at 50 ms (1 s)
# over GET /products/{id} (bench/product.lua), PUT /cart/items/{id}
# (bench/cart_put.lua) and POST /checkout with an Idempotency-Key
# (bench/checkout_keyed.lua; each configuration gets its own slice of the
# buyers, so no buyer checks out twice). Each row: req/s, p99, and CPU per
# request from /proc (utime+stime over the run) of the server processes,
# of PostgreSQL (postmaster, its live backends and the ones it reaped) and
# of HAProxy and of the delay relay when CLUSTER_PG_DELAY is set, separately
# (on this machine they and wrk share 2 cores, so their sum is what bounds
# req/s), and the deadlocks PostgreSQL logged. Then the change-feed lag with 3 replicas:
# bench/change_lag_probe.py writes one user's cart on replica 1 and times the
# cart.updated on a /events stream on replica 2, idle and while wrk writes
# carts through the balancer, with change_feed notify and then poll.
#
# With --before-after, instead: two builds side by side, PostgreSQL on
# loopback and one network hop away (scripts/bench-cluster-before-after.sh
# says what it measures; ~9 min at the defaults):
#   AXIOM_BIN_BEFORE=/tmp/axiom-before AXIOM_BIN=.build/release/axiom-server \
#     scripts/bench-cluster.sh --before-after
#
# usage: scripts/bench-cluster.sh [--before-after] [-d SECONDS] [-c CONNECTIONS] [-r PROBE_ROUNDS]
# Environment: CLUSTER_PORT (default 19090), CLUSTER_PG_PORT (54359),
# AXIOM_CLUSTER_STATE (/tmp/axiom-cluster-bench-$UID): not the cluster
# test's, so both can run; BENCH_BUYERS (40,000; a configuration that runs
# out shows non-2xx checkouts); CLUSTER_PG_DELAY (scripts/cluster.sh;
# --before-after sets its own from BENCH_DELAYS, default "0 1ms"). The
# cluster is taken down at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
DURATION=8 CONNECTIONS=64 PROBE_ROUNDS=200 MODE=configurations
while [ $# -gt 0 ]; do
  case $1 in
    --before-after) MODE=before-after; shift ;;
    -d) DURATION=$2; shift 2 ;;
    -c) CONNECTIONS=$2; shift 2 ;;
    -r) PROBE_ROUNDS=$2; shift 2 ;;
    *) sed -n 2,44p "$0" >&2; exit 2 ;;
  esac
done
export CLUSTER_PORT=${CLUSTER_PORT:-19090}
export CLUSTER_PG_PORT=${CLUSTER_PG_PORT:-54359}
export AXIOM_CLUSTER_STATE=${AXIOM_CLUSTER_STATE:-/tmp/axiom-cluster-bench-$(id -u)}
export AXIOM_BIN=${AXIOM_BIN:-.build/release/axiom-server}
# Load-test settings: each buyer checks out again and again, unpaid.
export AXIOM_UNPAID_ORDERS_PER_CUSTOMER=0 AXIOM_UNPAID_UNITS_PER_CUSTOMER=0
state=$AXIOM_CLUSTER_STATE
TICK=$(getconf CLK_TCK)

. scripts/bench-server.sh
if [ "$MODE" = before-after ]; then
  export AXIOM_BIN_BEFORE=${AXIOM_BIN_BEFORE:-$AXIOM_BIN}
  BENCH_BINARY=$AXIOM_BIN
fi
# A cluster left by an interrupted run (its hop included) would hold the ports.
scripts/cluster.sh down >/dev/null 2>&1 || true
bench_server_start
trap 'bench_cleanup; scripts/cluster.sh down >/dev/null 2>&1 || true' EXIT
export WRK_THREADS=2


ticks() { # pids... -> their utime+stime
  local total=0 pid
  for pid in "$@"; do
    [ -r "/proc/$pid/stat" ] && total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat")))
  done
  echo "$total"
}
postgres_ticks() { # the postmaster with what it reaped (cutime+cstime), and its live backends
  local file=$state/pg/data/postmaster.pid postmaster
  [ -f "$file" ] || { echo 0; return; }
  postmaster=$(head -n 1 "$file")
  echo $(($(awk '{print $14 + $15 + $16 + $17}' "/proc/$postmaster/stat") + $(ticks $(pgrep -P "$postmaster" || true))))
}
haproxy_ticks() { if [ -f "$state/haproxy.pid" ]; then ticks "$(cat "$state/haproxy.pid")"; else echo 0; fi; }
# The delay relay of scripts/cluster.sh's hop: what a network would cost no host.
relay_ticks() { if [ -f "$state/relay.pid" ]; then ticks "$(cat "$state/relay.pid")"; else echo 0; fi; }
# Deadlocks PostgreSQL reported so far (its log): two replicas' group-commit
# batches can each hold a row lock the other's next statement needs.
deadlocks() { if [ -f "$state/pg/server.log" ]; then grep -c "deadlock detected" "$state/pg/server.log" || true; else echo 0; fi; }
per_request() { # ticks requests -> "x.y us"
  awk -v t="$1" -v n="$2" -v hz="$TICK" 'BEGIN { if (n > 0 && t > 0) printf "%.0f", t / hz / n * 1e6; else printf "-" }'
}

# One wrk run and one table row; MEASURED_REQUESTS, MEASURED_RPS and
# MEASURED_OUTPUT (wrk's) are left for the caller.
measure() { # configuration scenario url server-pids...
  local label=$1 scenario=$2 url=$3; shift 3
  local s0 p0 r0 h0 d0 s1 p1 r1 h1 out requests rps p99 bad
  s0=$(ticks "$@"); p0=$(postgres_ticks); r0=$(relay_ticks); h0=$(haproxy_ticks); d0=$(deadlocks)
  out=$(wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --timeout 30s --latency -s "bench/$scenario.lua" "$url")
  s1=$(ticks "$@"); p1=$(postgres_ticks); r1=$(relay_ticks); h1=$(haproxy_ticks)
  requests=$(echo "$out" | awk '/requests in/ {print $1}')
  rps=$(echo "$out" | awk '/Requests\/sec/ {printf "%.0f", $2}')
  p99=$(echo "$out" | awk '$1=="99%" {print $2}')
  # Non-2xx responses plus socket errors (connect, read, write, timeout).
  bad=$(echo "$out" | awk '/Non-2xx/ {n += $NF} /Socket errors/ {gsub(/[^0-9 ]/, ""); for (i = 1; i <= NF; i++) n += $i} END {print n + 0}')
  printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$scenario" "$rps" "$p99" \
    "$(per_request $((s1 - s0)) "$requests")" "$(per_request $((p1 - p0)) "$requests")" \
    "$(per_request $((r1 - r0)) "$requests")" "$(per_request $((h1 - h0)) "$requests")" \
    "$bad" $(($(deadlocks) - d0)) "$(cut -d' ' -f1 /proc/loadavg)"
  MEASURED_REQUESTS=$requests MEASURED_RPS=$rps MEASURED_OUTPUT=$out
}
table_header() {
  echo "| configuration | route | req/s | p99 | server µs/req | PostgreSQL µs/req | relay µs/req | HAProxy µs/req | non-2xx | deadlocks | load (1 min) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
}
routes() { # configuration url buyers-file server-pids...
  local label=$1 url=$2 buyers=$3; shift 3
  measure "$label" product "$url" "$@"
  measure "$label" cart_put "$url" "$@"
  AXIOM_BUYER_TOKENS=$buyers measure "$label" checkout_keyed "$url" "$@"
}

replica_pids() { for n in $(seq 1 "$1"); do cat "$state/replica-$n.pid"; done; }
# Bounded wait until HAProxy counts $1 replicas UP (its checks run every 0.5 s).
wait_balanced() {
  local tries=0
  until [ "$(python3 - "$state/haproxy.sock" <<'EOF'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"show stat\n")
data = b""
while chunk := s.recv(65536):
    data += chunk
print(sum(1 for line in data.decode().splitlines() if line.startswith("replicas,replica") and ",UP," in line))
EOF
)" = "$1" ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || { echo "bench-cluster.sh: HAProxy does not see $1 replicas up" >&2; exit 1; }
    sleep 0.1
  done
}
# cluster.sh up starts the replicas that are missing and writes the
# balancer's configuration for CLUSTER_REPLICAS, but leaves a running
# HAProxy alone: stop it so the new configuration is read.
cluster_with() { # replicas
  local pid tries=0
  if [ -f "$state/haproxy.pid" ]; then
    pid=$(cat "$state/haproxy.pid")
    kill "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
    rm -f "$state/haproxy.pid"
  fi
  CLUSTER_REPLICAS=$1 scripts/cluster.sh up >/dev/null
  wait_balanced "$1"
}
restart_replicas() { # environment assignments for the replicas...
  local n
  for n in 1 2 3; do
    scripts/cluster.sh kill "$n"
    env "$@" scripts/cluster.sh start "$n"
  done
  sleep 1.5  # HAProxy's checks: fall 2 x 0.5 s; wait_balanced then waits for all three back
  wait_balanced 3
}
BALANCER=http://127.0.0.1:$CLUSTER_PORT

# Change-feed lag, replica 1 -> replica 2 (bench/change_lag_probe.py's line).
lag_probe() { python3 bench/change_lag_probe.py "$(scripts/cluster.sh url 1)" "$(scripts/cluster.sh url 2)" "$PROBE_TOKEN" "$PROBE_PRODUCT" "$PROBE_ROUNDS"; }
# The same while wrk writes carts through the balancer; LAG_WRK_RPS is left
# for the caller.
lag_loaded() {
  local load_seconds=$((PROBE_ROUNDS / 10 + 10)) wrk_out=$WORK/lag-wrk.txt load
  wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"${load_seconds}s" --latency -s bench/cart_put.lua "$BALANCER" >"$wrk_out" &
  load=$!
  sleep 2
  lag_probe
  wait "$load"
  LAG_WRK_RPS=$(awk '/Requests\/sec/ {printf "%.0f", $2}' "$wrk_out")
}
lag() { # label: idle and under wrk's cart writes
  printf '%-8s idle         ' "$1"
  lag_probe
  printf '%-8s under load   ' "$1"
  lag_loaded
  printf '         (wrk PUT /cart/items through the balancer meanwhile: %s req/s; load %s)\n' \
    "$LAG_WRK_RPS" "$(cut -d' ' -f1 /proc/loadavg)"
}
PROBE_PRODUCT=$(tail -n 1 "$AXIOM_PRODUCT_IDS")

if [ "$MODE" = before-after ]; then
  . scripts/bench-cluster-before-after.sh
  exit 0
fi

# Buyers: 40 % for SQLite (the fastest checkout), 14 % for each other
# configuration, the last one for the lag probe.
ALL_BUYERS=$AXIOM_BUYER_TOKENS
total_buyers=$(wc -l <"$ALL_BUYERS")
big=$((total_buyers * 40 / 100)) small=$((total_buyers * 14 / 100)) next_buyer=1
# Written here, not in a $(...) subshell, so the next slice starts after this one.
for name in sqlite postgres cluster1 cluster2 cluster3; do
  count=$small; [ "$name" = sqlite ] && count=$big
  sed -n "${next_buyer},$((next_buyer + count - 1))p" "$ALL_BUYERS" >"$WORK/buyers-$name.txt"
  next_buyer=$((next_buyer + count))
done
PROBE_TOKEN=$(tail -n 1 "$ALL_BUYERS")

table_header
# (a) SQLite, the server bench-server.sh started.
routes sqlite "$BENCH_URL" "$WORK/buyers-sqlite.txt" "$SERVER"
bench_stop_process

# (b) The same rows (minus what (a) bought and cleared) in the cluster's
# PostgreSQL, one server on it directly; its migrations make the tables first.
DATABASE_URL=$(scripts/cluster.sh pg-up)
BENCH_STORAGE=(--database-url "$DATABASE_URL")
bench_start_process
bench_stop_process
python3 bench/copy_to_postgres.py "$WORK/axiom.db" "$DATABASE_URL"
bench_start_process
routes postgres "$BENCH_URL" "$WORK/buyers-postgres.txt" "$SERVER"
bench_stop_process
SERVER=

# (c) 1, 2, 3 replicas behind HAProxy (strict, notify: the cluster's defaults).
for n in 1 2 3; do
  cluster_with "$n"
  routes "$n replica(s)" "$BALANCER" "$WORK/buyers-cluster$n.txt" $(replica_pids "$n")
done

# The read barrier's cost: three replicas with replica_coherence off, between strict runs.
restart_replicas AXIOM_REPLICA_COHERENCE=off
measure "3 replicas, coherence off" product "$BALANCER" $(replica_pids 3)
restart_replicas AXIOM_REPLICA_COHERENCE=strict
measure "3 replicas, strict" product "$BALANCER" $(replica_pids 3)

# The balancer's own share: cluster.sh's HAProxy keeps its connections to
# the replicas open (`option http-keep-alive`); the same three replicas
# with `option http-server-close` (a new connection to a replica for every
# request, what cluster.sh had when docs/scaling.md's first figures were
# taken), configuration edited in this run's state directory only, then
# put back.
keep_alive_balancer() { # on|off
  local pid tries=0
  pid=$(cat "$state/haproxy.pid")
  kill "$pid"
  while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
  if [ "$1" = on ]; then sed -i 's/option http-server-close/option http-keep-alive/' "$state/haproxy.cfg"
  else sed -i 's/option http-keep-alive/option http-server-close/' "$state/haproxy.cfg"; fi
  haproxy -D -f "$state/haproxy.cfg"
  wait_balanced 3
}
keep_alive_balancer off
measure "3 replicas, strict, HAProxy server-close" product "$BALANCER" $(replica_pids 3)
measure "3 replicas, strict, HAProxy server-close" cart_put "$BALANCER" $(replica_pids 3)
keep_alive_balancer on

# How much of the replicas' cart-write cost is waiting for deadlock
# detection: PostgreSQL looks for a deadlock only after deadlock_timeout
# (1 s by default) of waiting on a lock. The cluster's role is a superuser.
psql "$DATABASE_URL" -qc "ALTER SYSTEM SET deadlock_timeout = '50ms'" -c "SELECT pg_reload_conf()" >/dev/null
measure "3 replicas, strict, deadlock_timeout 50 ms" cart_put "$BALANCER" $(replica_pids 3)
psql "$DATABASE_URL" -qc "ALTER SYSTEM RESET deadlock_timeout" -c "SELECT pg_reload_conf()" >/dev/null

echo
echo "change-feed lag, acknowledgement on replica 1 -> cart.updated on a stream on replica 2:"
lag notify
restart_replicas AXIOM_CHANGE_FEED=poll
lag poll
echo "PostgreSQL connections held by the 3 replicas: $(psql "$DATABASE_URL" -Atc "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")"
