#!/usr/bin/env bash
# Checkout's server CPU per request without webhooks (webhook_events off,
# as before the webhooks) and with two endpoints subscribed to every event,
# side by side, run by hand: one seeded database (scripts/bench-server.sh),
# the server restarted between rounds with the setting flipped, ROUNDS
# rounds of each interleaved (off, on, off, on, ...), each wrk run on its
# own slice of the buyers. With webhooks on, a round's CPU is counted until
# the receiver (nginx, scripts/webhook-nginx.sh) has every delivery of the
# round's orders, so the deliveries' cost is in the figure.
#
# usage: scripts/bench-checkout-webhooks.sh [ROUNDS [SECONDS]]   (default 3 rounds of 6 s)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh
. scripts/webhook-nginx.sh
ROUNDS=${1:-3} DURATION=${2:-6}
export AXIOM_ADMIN_EMAIL=bench-admin@example.com AXIOM_ADMIN_PASSWORD='bench admin password'
export AXIOM_UNPAID_ORDERS_PER_CUSTOMER=0 AXIOM_UNPAID_UNITS_PER_CUSTOMER=0 AXIOM_WEBHOOKS_ALLOW_PRIVATE=1
. scripts/bench-server.sh
bench_server_start
hooks=$WORK/hooks; mkdir -p "$hooks"
receiver_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
webhook_nginx_start "$hooks" "$receiver_port"
trap 'kill "$WEBHOOK_NGINX" 2>/dev/null || true; bench_cleanup' EXIT
export AXIOM_WEBHOOKS_CA_FILE=$hooks/ca.pem

restart() {  # $1: on|off
  bench_stop_process
  AXIOM_WEBHOOK_EVENTS=$1 bench_start_process
}
admin() {
  curl -sf -X POST "$BENCH_URL/sessions" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$AXIOM_ADMIN_EMAIL\",\"password\":\"$AXIOM_ADMIN_PASSWORD\"}" \
    | python3 -c 'import sys,json; print(json.load(sys.stdin)["token"])'
}
restart on
token=$(admin)
for name in warehouse accounting; do
  curl -sf -X POST "$BENCH_URL/admin/webhooks" -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
    -d "{\"url\":\"https://localhost:$receiver_port/hooks/$name\"}" >/dev/null
done

slices=$((ROUNDS * 2))
lines=$(wc -l < "$AXIOM_BUYER_TOKENS")
split -d -l $((lines / slices)) "$AXIOM_BUYER_TOKENS" "$WORK/buyers."
hz=$(getconf CLK_TCK)
printf '%-8s %8s %9s %12s\n' webhooks orders req/s "CPU/req"
round=0
for i in $(seq 1 "$ROUNDS"); do
  for mode in off on; do
    restart "$mode"
    before_log=$(wc -l < "$hooks/hooks.log" 2>/dev/null || echo 0)
    cpu_before=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
    out=$(AXIOM_BUYER_TOKENS=$(printf '%s/buyers.%02d' "$WORK" $round) WRK_THREADS=2 \
      wrk -t2 -c64 -d"${DURATION}s" --timeout 30s -s bench/checkout.lua "$BENCH_URL")
    requests=$(echo "$out" | awk '/requests in/ {print $1}')
    refused=$(echo "$out" | awk '/Non-2xx/ {print $5}')
    orders=$((requests - ${refused:-0}))
    if [ "$mode" = on ]; then
      # Each order's order.created to both endpoints.
      for _ in $(seq 1 600); do
        [ $(( $(wc -l < "$hooks/hooks.log") - before_log )) -ge $((orders * 2)) ] && break
        sleep 0.1
      done
    fi
    cpu_after=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    printf '%-8s %8d %9s %9.0f us\n' "$mode" "$orders" "$rps" \
      "$(awk -v t=$((cpu_after - cpu_before)) -v n="$orders" -v hz="$hz" 'BEGIN { print t / hz / n * 1e6 }')"
    round=$((round + 1))
  done
done
echo "deliveries logged: $(wc -l < "$hooks/hooks.log")"
