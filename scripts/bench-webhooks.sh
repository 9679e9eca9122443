#!/usr/bin/env bash
# Webhook delivery's speed, run by hand: one release server delivering over
# TLS with keep-alive to a receiver that is not the bottleneck (nginx with a
# trustme certificate answering 204 to every POST and logging each
# request's time and webhook-id), and scripts/webhook_bench.py's two
# measurements:
#   throughput: EVENTS events made as fast as the API takes them, each to
#               ENDPOINTS endpoints; deliveries/s from the first to the last
#   latency:    RATE events/s for SECONDS s to two endpoints; each event's
#               commit to its first attempt, p50/p90/p99
# The server runs on SQLite; --pg runs it on a throwaway PostgreSQL
# (scripts/postgres.sh, PGPORT and AXIOM_PG_STATE as there), and
# BENCH_DATABASE_URL=postgres://… on one of yours. BENCH_RECEIVER=python
# delivers to scripts/webhook_receiver.py instead, verifying every
# signature. BENCH_MAKE=checkouts makes order.created events by checkouts
# instead of product.updated by price changes.
#
# usage: scripts/bench-webhooks.sh [--pg] [EVENTS [ENDPOINTS [RATE [SECONDS]]]]
#        (default 5000 events to 4 endpoints; 200 events/s for 20 s)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh
. scripts/webhook-nginx.sh
pg=false
if [ "${1:-}" = "--pg" ]; then pg=true; shift; fi
EVENTS=${1:-5000} ENDPOINTS=${2:-4} RATE=${3:-200} SECONDS_=${4:-20}
BINARY=${BENCH_BINARY:-}
if [ -z "$BINARY" ]; then
  swift build -c release --product axiom-server >/dev/null
  BINARY=$(swift build -c release --show-bin-path)/axiom-server
fi
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
work=$(mktemp -d /tmp/axiom-bench-webhooks.XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  exec 8>&- || true
  if $pg; then scripts/postgres.sh stop >/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

receiver_port=$(free_port)
if [ "${BENCH_RECEIVER:-nginx}" = python ]; then
  mkdir -p "$work/receiver"
  exec 8> >(exec python3 scripts/webhook_receiver.py --dir "$work/receiver" --port "$receiver_port" \
    --lifetime 3600 > "$work/receiver/ready.json")
  for _ in $(seq 1 100); do [ -s "$work/receiver/port" ] && break; sleep 0.1; done
  ca=$work/receiver/ca.pem
  receiver=(--receiver-dir "$work/receiver")
else
  webhook_nginx_start "$work" "$receiver_port"
  pids+=("$WEBHOOK_NGINX")
  ca=$work/ca.pem
  receiver=(--nginx-log "$work/hooks.log")
fi

storage=(--database "$work/axiom.db")
if $pg; then
  export PGPORT=${PGPORT:-55444}
  scripts/postgres.sh stop >/dev/null 2>&1 || true
  storage=(--database-url "$(scripts/postgres.sh start | tail -n 1)")
elif [ -n "${BENCH_DATABASE_URL:-}" ]; then
  storage=(--database-url "$BENCH_DATABASE_URL")
fi
port=$(free_port)
AXIOM_ADMIN_EMAIL=bench-admin@example.com AXIOM_ADMIN_PASSWORD='bench admin password' \
AXIOM_UNPAID_ORDERS_PER_CUSTOMER=0 AXIOM_UNPAID_UNITS_PER_CUSTOMER=0 \
AXIOM_WEBHOOKS_ALLOW_PRIVATE=1 AXIOM_WEBHOOKS_CA_FILE=$ca \
  "$BINARY" --port "$port" "${storage[@]}" --log-level warning >"$work/server.log" 2>&1 &
server=$!
pids+=($server)
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null && break; sleep 0.1; done
status=0
python3 scripts/webhook_bench.py --port "$port" --admin-email bench-admin@example.com \
  --admin-password 'bench admin password' --receiver-url "https://localhost:$receiver_port/hooks" "${receiver[@]}" \
  --make "${BENCH_MAKE:-products}" --events "$EVENTS" --endpoints "$ENDPOINTS" --rate "$RATE" \
  --duration "$SECONDS_" || status=$?
echo "server CPU: $(ps -o times= -p "$server") s in all; storage: ${storage[0]#--}"
[ $status -eq 0 ] || tail -n 20 "$work/server.log" >&2
exit $status
