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
#   scripts/cluster.sh pg-up       # PostgreSQL only (made, or started on its data); prints its URL
#   scripts/cluster.sh url [N]     # the balancer's URL, or replica N's
#   scripts/cluster.sh database-url
#   scripts/cluster.sh round-trip  # median SELECT 1 round trip to PostgreSQL, as psql times it
#
# Environment: AXIOM_CLUSTER_STATE (default /tmp/axiom-cluster-$UID),
# CLUSTER_PORT (balancer, default 8090; replica N listens on CLUSTER_PORT+N),
# CLUSTER_PG_PORT (default 54339), CLUSTER_REPLICAS (default 3), AXIOM_BIN
# (default .build/release/axiom-server, built when missing), CLUSTER_PG_DELAY
# (below), CLUSTER_PG_DATABASE (the database the replicas use, default axiom;
# made by the caller). Any other AXIOM_* variable reaches every replica as
# configuration.
#
# PostgreSQL one network hop away: CLUSTER_PG_DELAY=1ms (or 500us, 2.5ms;
# unset or 0: loopback, as without it) puts PostgreSQL in a network
# namespace of its own, axpg<CLUSTER_PG_PORT>, behind a veth pair on a /30
# of 10.231.0.0/16 derived from CLUSTER_PG_PORT (so clusters on other ports
# do not clash), listening on its end only. The delay is the ROUND TRIP
# added: half of it each way, so 1ms adds 1 ms to every request-response
# exchange with the database. It is added by scripts/delay_relay.c (built
# into the state directory) on the host's end of the veth, which the
# replicas connect to: tc's netem qdisc needs a kernel built with
# CONFIG_NET_SCH_NETEM, and this project's VMs have no qdisc that delays.
# pg-start, pg-up and up (re)make the hop for the CLUSTER_PG_DELAY they see,
# so stopping PostgreSQL and starting it with another delay moves the same
# data; down removes the namespace, the veth pair and the relay. Root only
# (ip netns); PostgreSQL itself still runs as the postgres user.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
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
pg_bin() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1; }
alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# The hop's names and addresses, from the PostgreSQL port: 16,384 /30s.
hop_block=$((pg_port % 16384))
hop_ns=axpg$pg_port
hop_host_if=axpg${pg_port}h hop_pg_if=axpg${pg_port}n
hop_host_addr=10.231.$((hop_block / 64)).$((hop_block % 64 * 4 + 1))
hop_pg_addr=10.231.$((hop_block / 64)).$((hop_block % 64 * 4 + 2))
# CLUSTER_PG_DELAY as microseconds of round trip: 1ms, 0.5ms, 500us, 0.
delay_us() {
  local value=${CLUSTER_PG_DELAY:-0}
  case $value in
    *ms) awk -v v="${value%ms}" 'BEGIN { printf "%d", v * 1000 }' ;;
    *us) awk -v v="${value%us}" 'BEGIN { printf "%d", v }' ;;
    0) echo 0 ;;
    *) echo "cluster.sh: CLUSTER_PG_DELAY=$value: give a unit, e.g. 1ms or 500us" >&2; exit 2 ;;
  esac
}
delay_round_trip_us=$(delay_us)
hopped() { [ "$delay_round_trip_us" -gt 0 ]; }
# Where the replicas reach PostgreSQL, and where PostgreSQL listens.
if hopped; then pg_host=$hop_host_addr pg_listen=$hop_pg_addr pg_netns=$hop_ns
else pg_host=127.0.0.1 pg_listen=127.0.0.1 pg_netns=; fi
database_url() { echo "postgres://axiom@$pg_host:$pg_port/${CLUSTER_PG_DATABASE:-axiom}"; }
postgres_sh() { AXIOM_PG_STATE=$pg_state PGPORT=$pg_port AXIOM_PG_LISTEN=$pg_listen AXIOM_PG_NETNS=$pg_netns scripts/postgres.sh "$@"; }
as_pg_owner() {
  if [ -n "$pg_netns" ]; then ip netns exec "$pg_netns" runuser -u postgres -- "$@"
  elif [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"
  else "$@"; fi
}
# Stopping signals the postmaster: the same wherever it listens.
pg_stop() { pg_netns= as_pg_owner "$(pg_bin)/pg_ctl" -D "$pg_state/data" -m fast -w stop >/dev/null; }

hop_down() {
  local tries=0
  stop_pid "$state/relay.pid"
  if ip netns list 2>/dev/null | grep -qw "$hop_ns"; then
    # A namespace still in use by a process (a PostgreSQL that outlived a
    # failure) is only unlinked; its veth end goes with the last of them.
    ip netns del "$hop_ns" 2>/dev/null || true
  fi
  # Deleting one end of a veth pair deletes both.
  while ip link show "$hop_host_if" >/dev/null 2>&1 && [ "$tries" -lt 50 ]; do
    ip link del "$hop_host_if" 2>/dev/null || true
    sleep 0.1; tries=$((tries + 1))
  done
}

# The namespace with its veth pair, and the relay that delays (both ways)
# whatever crosses it; idempotent, and remade when the delay changes.
hop_up() {
  local one_way_us relay=$state/delay-relay
  one_way_us=$((delay_round_trip_us / 2))
  if alive "$state/relay.pid" && [ "$(cat "$state/relay.delay" 2>/dev/null)" = "$one_way_us" ]; then return 0; fi
  stop_pid "$state/relay.pid"
  [ -x "$relay" ] && [ "$relay" -nt scripts/delay_relay.c ] || \
    "$(command -v cc || command -v clang)" -O2 -o "$relay" scripts/delay_relay.c
  if ! ip netns list | grep -qw "$hop_ns"; then
    ip link del "$hop_host_if" 2>/dev/null || true
    ip netns add "$hop_ns"
    ip link add "$hop_host_if" type veth peer name "$hop_pg_if"
    ip link set "$hop_pg_if" netns "$hop_ns"
    ip addr add "$hop_host_addr/30" dev "$hop_host_if"
    ip link set "$hop_host_if" up
    ip netns exec "$hop_ns" ip addr add "$hop_pg_addr/30" dev "$hop_pg_if"
    ip netns exec "$hop_ns" ip link set "$hop_pg_if" up
    ip netns exec "$hop_ns" ip link set lo up
  fi
  # Ahead of the busy processes around it, as a link would be: a relay
  # waiting for a core would add its wait to the delay.
  nohup nice -n -10 "$relay" "$hop_host_addr" "$pg_port" "$hop_pg_addr" "$pg_port" "$one_way_us" >>"$state/relay.log" 2>&1 &
  echo $! >"$state/relay.pid"
  echo "$one_way_us" >"$state/relay.delay"
}

pg_running() { [ -f "$pg_state/data/postmaster.pid" ] && kill -0 "$(head -n 1 "$pg_state/data/postmaster.pid")" 2>/dev/null; }

# PostgreSQL started on its data (kept by pg-stop, pg-kill), in the
# namespace when there is a delay; one already running is left alone.
pg_start() {
  if hopped; then hop_up; elif ! pg_running; then hop_down; fi
  pg_running && return 0
  as_pg_owner "$(pg_bin)/pg_ctl" -D "$pg_state/data" -l "$pg_state/server.log" -w -t 30 \
    -o "-c listen_addresses=$pg_listen -p $pg_port -c unix_socket_directories='$pg_state' -c max_connections=200" start >/dev/null
}

# PostgreSQL made (initdb) or started on its data; prints the replicas' URL.
pg_up() {
  mkdir -p "$state"
  if [ -d "$pg_state/data" ]; then
    pg_start
  else
    if hopped; then hop_up; else hop_down; fi
    postgres_sh start >/dev/null
  fi
  database_url
}

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
  command -v haproxy >/dev/null || { echo "cluster.sh: haproxy not installed (scripts/setup.sh --tests installs it)" >&2; exit 1; }
  [ -x "$binary" ] || swift build -c release --product axiom-server
  mkdir -p "$state"
  [ -f "$webhook_secret_file" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$webhook_secret_file"
  pg_up >/dev/null
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
  if [ -d "$state" ]; then
    stop_pid "$state/haproxy.pid"
    for file in "$state"/replica-*.pid; do [ -e "$file" ] && stop_pid "$file"; done
    pg_netns= postgres_sh stop
  fi
  # Whatever the delay says now: a hop left by an earlier run goes too.
  hop_down
  rm -rf "$state"
}

# The median of 100 `SELECT 1` exchanges as psql times them: the delay seen
# from the client's side, relay and scheduling included.
round_trip() {
  { echo '\timing on'; for _ in $(seq 100); do echo 'SELECT 1;'; done; } | psql "$1" -At 2>/dev/null |
    awk '/^Time:/ {print $2}' | sort -n | awk '{a[NR] = $1} END {if (NR) printf "%.2f ms", a[int((NR + 1) / 2)]; else printf "-"}'
}

status() {
  local n port code
  if pg_running; then echo "postgres  $(database_url)  running"; else echo "postgres  stopped"; fi
  if hopped; then
    echo "hop       $hop_ns: PostgreSQL on $hop_pg_addr, relay on $hop_host_addr ($delay_round_trip_us µs round trip added): $(alive "$state/relay.pid" && echo running || echo stopped)"
    pg_running && echo "          SELECT 1, p50 of 100: $(round_trip "$(database_url)") through the relay, $(round_trip "postgres://axiom@$hop_pg_addr:$pg_port/axiom") straight over the veth"
  fi
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
  pg-stop) pg_stop ;;
  pg-kill)
    # The postmaster first, then whatever of its backends has not yet
    # noticed: a restart refuses to start while any still holds the shared
    # memory. Its start then recovers from the WAL, as after a power cut.
    postmaster=$(head -n 1 "$pg_state/data/postmaster.pid")
    children=$(pgrep -P "$postmaster" || true)
    kill -KILL "$postmaster" $children 2>/dev/null || true
    tries=0; while kill -0 "$postmaster" 2>/dev/null && [ "$tries" -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
    ;;
  pg-start) pg_start ;;
  pg-up) pg_up ;;
  url) if [ -n "${2:-}" ]; then echo "http://127.0.0.1:$(replica_port "$2")"; else echo "http://127.0.0.1:$balancer_port"; fi ;;
  database-url) database_url ;;
  round-trip) round_trip "$(database_url)"; echo ;;
  *) echo "usage: $0 up|status|down|kill N|stop N|freeze N|thaw N|start N|pg-stop|pg-kill|pg-start|pg-up|url [N]|database-url|round-trip" >&2; exit 2 ;;
esac
