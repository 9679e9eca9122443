#!/usr/bin/env bash
# A cluster on this machine: PostgreSQL 15 (its own data directory in a temp
# dir, a non-root user), three replicas of the release build on loopback
# ports, and HAProxy in front of them, health-checking each replica's
# /ready. For trying the scale-out deployment by hand and for the cluster
# tests; compose.yaml is the same shape for a container engine.
#
#   scripts/cluster.sh up          # start everything; prints the balancer's URL
#   scripts/cluster.sh status      # each part, and whether it answers
#   scripts/cluster.sh down        # stop everything and remove the state
#
# What the cluster tests need besides (each waits, bounded, until done):
#   scripts/cluster.sh kill N      # kill -9 replica N (1-based)
#   scripts/cluster.sh stop N      # SIGTERM replica N, wait until it has drained and exited
#   scripts/cluster.sh freeze N    # SIGSTOP replica N (a long GC pause, CPU throttling, VM steal)
#   scripts/cluster.sh thaw N      # SIGCONT it
#   scripts/cluster.sh start N     # start replica N again, wait until /ready
#   scripts/cluster.sh pg-stop     # stop PostgreSQL (fast), keeping its data
#   scripts/cluster.sh pg-kill     # kill -9 PostgreSQL's postmaster and its backends
#   scripts/cluster.sh pg-start    # start it again
#   scripts/cluster.sh url [N]     # the balancer's URL, or replica N's
#   scripts/cluster.sh database-url
#
# Environment: AXIOM_CLUSTER_STATE (default /tmp/axiom-cluster-$UID),
# CLUSTER_PORT (balancer, default 8090; replica N listens on CLUSTER_PORT+N),
# CLUSTER_PG_PORT (default 54339), CLUSTER_REPLICAS (default 3), AXIOM_BIN
# (default .build/release/axiom-server, built when missing). Any other
# AXIOM_* variable reaches every replica as configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
state=${AXIOM_CLUSTER_STATE:-/tmp/axiom-cluster-$(id -u)}
balancer_port=${CLUSTER_PORT:-8090}
pg_port=${CLUSTER_PG_PORT:-54339}
replicas=${CLUSTER_REPLICAS:-3}
binary=${AXIOM_BIN:-.build/release/axiom-server}
pg_state=$state/pg
# The webhook secret the replicas share (a provider signs for the shop, not
# for one replica); scripts/pay.py reads it from here.
webhook_secret_file=$state/webhook-secret

replica_port() { echo $((balancer_port + $1)); }
database_url() { AXIOM_PG_STATE=$pg_state PGPORT=$pg_port scripts/postgres.sh url; }
pg_bin() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1; }
as_pg_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# Bounded wait for an HTTP 200 from $1: 300 tries, 0.1 s apart.
wait_ready() {
  local url=$1 tries=0
  until [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "$url" || true)" = 200 ]; do
    tries=$((tries + 1))
    if [ "$tries" -ge 300 ]; then echo "cluster.sh: $url not ready after 30 s" >&2; return 1; fi
    sleep 0.1
  done
}

start_replica() {
  local n=$1 port
  port=$(replica_port "$n")
  if alive "$state/replica-$n.pid"; then return 0; fi
  # Each replica: the shared database, its own port, the balancer trusted
  # for X-Forwarded-For (so rate limits and sign-in throttling see clients,
  # not HAProxy), woken by NOTIFY for other replicas' changes and reading
  # only after catching up with the outbox head (replica_coherence: strict,
  # docs/change-feed.md), so a write acknowledged by one is seen by all.
  AXIOM_DATABASE_URL=$(database_url) \
  AXIOM_CHANGE_FEED=${AXIOM_CHANGE_FEED:-notify} \
  AXIOM_REPLICA_COHERENCE=${AXIOM_REPLICA_COHERENCE:-strict} \
  AXIOM_HOST=127.0.0.1 \
  AXIOM_PORT=$port \
  AXIOM_TRUSTED_PROXIES=127.0.0.1 \
  AXIOM_PAYMENT_WEBHOOK_SECRET=$(cat "$webhook_secret_file") \
    nohup "$binary" >>"$state/replica-$n.log" 2>&1 &
  echo $! >"$state/replica-$n.pid"
  wait_ready "http://127.0.0.1:$port/ready"
}

write_haproxy_config() {
  local n
  {
    cat <<EOF
global
    maxconn 4000
    pidfile $state/haproxy.pid
    stats socket $state/haproxy.sock mode 600 level admin

defaults
    mode http
    timeout connect 2s
    timeout client 60s
    timeout server 60s
    # /events streams stay open; heartbeats keep them under this.
    timeout tunnel 1h
    option forwardfor
    # Connections to the replicas stay open and are reused: a new one per
    # request cost each request 120-145 µs of replica CPU and HAProxy twice
    # its own (docs/scaling.md).
    option http-keep-alive

frontend shop
    bind 127.0.0.1:$balancer_port
    default_backend replicas

backend replicas
    balance roundrobin
    # A replica whose storage is unavailable answers /ready 503 and leaves
    # the rotation after two checks; it rejoins after one good one.
    option httpchk GET /ready
    http-check expect status 200
EOF
    for n in $(seq 1 "$replicas"); do
      echo "    server replica$n 127.0.0.1:$(replica_port "$n") check inter 500ms fall 2 rise 1"
    done
  } >"$state/haproxy.cfg"
}

up() {
  command -v haproxy >/dev/null || { echo "cluster.sh: haproxy not installed (scripts/setup.sh installs it)" >&2; exit 1; }
  [ -x "$binary" ] || swift build -c release --product axiom-server
  mkdir -p "$state"
  [ -f "$webhook_secret_file" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$webhook_secret_file"
  AXIOM_PG_STATE=$pg_state PGPORT=$pg_port scripts/postgres.sh start >/dev/null
  # One replica first, so the migrations run once before the others start
  # (they would wait on the advisory lock anyway; this keeps the logs calm).
  for n in $(seq 1 "$replicas"); do start_replica "$n"; done
  write_haproxy_config
  if ! alive "$state/haproxy.pid"; then haproxy -D -f "$state/haproxy.cfg"; fi
  wait_ready "http://127.0.0.1:$balancer_port/ready"
  echo "http://127.0.0.1:$balancer_port"
}

stop_pid() {
  local file=$1 tries=0
  alive "$file" || { rm -f "$file"; return 0; }
  kill -TERM "$(cat "$file")" 2>/dev/null || true
  while alive "$file" && [ "$tries" -lt 150 ]; do sleep 0.1; tries=$((tries + 1)); done
  alive "$file" && kill -KILL "$(cat "$file")" 2>/dev/null || true
  rm -f "$file"
}

down() {
  [ -d "$state" ] || return 0
  stop_pid "$state/haproxy.pid"
  for file in "$state"/replica-*.pid; do [ -e "$file" ] && stop_pid "$file"; done
  AXIOM_PG_STATE=$pg_state PGPORT=$pg_port scripts/postgres.sh stop
  rm -rf "$state"
}

status() {
  local n port code
  if [ -f "$pg_state/data/postmaster.pid" ]; then echo "postgres  $(database_url)  running"; else echo "postgres  stopped"; fi
  for n in $(seq 1 "$replicas"); do
    port=$(replica_port "$n")
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port/ready" || true)
    if alive "$state/replica-$n.pid"; then echo "replica$n  http://127.0.0.1:$port  pid $(cat "$state/replica-$n.pid")  /ready $code"
    else echo "replica$n  http://127.0.0.1:$port  stopped"; fi
  done
  code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$balancer_port/ready" || true)
  if alive "$state/haproxy.pid"; then echo "balancer  http://127.0.0.1:$balancer_port  /ready $code"; else echo "balancer  stopped"; fi
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  kill)
    [ -n "${2:-}" ] || { echo "usage: $0 kill N" >&2; exit 2; }
    alive "$state/replica-$2.pid" && kill -KILL "$(cat "$state/replica-$2.pid")"
    # Reaped by init; wait until it is gone so a restart can take the port.
    tries=0; while alive "$state/replica-$2.pid" && [ "$tries" -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
    rm -f "$state/replica-$2.pid"
    ;;
  stop)
    [ -n "${2:-}" ] || { echo "usage: $0 stop N" >&2; exit 2; }
    stop_pid "$state/replica-$2.pid"
    rm -f "$state/replica-$2.pid"
    ;;
  freeze|thaw)
    [ -n "${2:-}" ] || { echo "usage: $0 $1 N" >&2; exit 2; }
    alive "$state/replica-$2.pid" && kill -"$([ "$1" = freeze ] && echo STOP || echo CONT)" "$(cat "$state/replica-$2.pid")"
    ;;
  start)
    [ -n "${2:-}" ] || { echo "usage: $0 start N" >&2; exit 2; }
    start_replica "$2"
    ;;
  pg-stop) as_pg_owner "$(pg_bin)/pg_ctl" -D "$pg_state/data" -m fast -w stop >/dev/null ;;
  pg-kill)
    # The postmaster first, then whatever of its backends has not yet
    # noticed: a restart refuses to start while any still holds the shared
    # memory. Its start then recovers from the WAL, as after a power cut.
    postmaster=$(head -n 1 "$pg_state/data/postmaster.pid")
    children=$(pgrep -P "$postmaster" || true)
    kill -KILL "$postmaster" $children 2>/dev/null || true
    tries=0; while kill -0 "$postmaster" 2>/dev/null && [ "$tries" -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
    ;;
  pg-start)
    as_pg_owner "$(pg_bin)/pg_ctl" -D "$pg_state/data" -l "$pg_state/server.log" -w -t 30 \
      -o "-c listen_addresses=127.0.0.1 -p $pg_port -c unix_socket_directories='$pg_state' -c max_connections=200" start >/dev/null
    ;;
  url) if [ -n "${2:-}" ]; then echo "http://127.0.0.1:$(replica_port "$2")"; else echo "http://127.0.0.1:$balancer_port"; fi ;;
  database-url) database_url ;;
  *) echo "usage: $0 up|status|down|kill N|stop N|freeze N|thaw N|start N|pg-stop|pg-kill|pg-start|url [N]|database-url" >&2; exit 2 ;;
esac
