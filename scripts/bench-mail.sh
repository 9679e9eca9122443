#!/usr/bin/env bash
# Mail's cost and speed, run by hand: the release server with mail on,
# sending through a real SMTP server (scripts/smtp_sink.py, STARTTLS on a CA
# it makes), checkouts at a steady rate (scripts/mail_latency.py), and the
# time from each order's commit to its "placed" mail accepted (p50, p90,
# p99). BENCH_DATABASE_URL=postgres://… runs the server on PostgreSQL.
#
# usage: scripts/bench-mail.sh [RATE [SECONDS]]    (default 100 orders/s for 20 s)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh
RATE=${1:-100} SECONDS_=${2:-20}
BINARY=${BENCH_BINARY:-}
if [ -z "$BINARY" ]; then
  swift build -c release --product axiom-server >/dev/null
  BINARY=$(swift build -c release --show-bin-path)/axiom-server
fi
work=$(mktemp -d /tmp/axiom-bench-mail.XXXXXX)
mkdir -p "$work/mail"
exec 9> >(exec python3 scripts/smtp_sink.py --dir "$work/mail" --tls starttls --cert-host localhost \
  --lifetime 3600 > "$work/sink.json")
for _ in $(seq 1 100); do [ -s "$work/sink.json" ] && break; sleep 0.1; done
smtp_port=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["port"])' "$work/sink.json")
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
storage=(--database "$work/axiom.db")
[ -n "${BENCH_DATABASE_URL:-}" ] && storage=(--database-url "$BENCH_DATABASE_URL")
AXIOM_ADMIN_EMAIL=bench-admin@example.com AXIOM_ADMIN_PASSWORD='bench admin password' \
AXIOM_UNPAID_ORDERS_PER_CUSTOMER=0 AXIOM_UNPAID_UNITS_PER_CUSTOMER=0 \
  "$BINARY" --port "$port" "${storage[@]}" --log-level warning \
  --smtp-host localhost --smtp-port "$smtp_port" --smtp-tls starttls --smtp-ca-file "$work/mail/ca.pem" \
  --mail-from shop@bench.test --mail-templates "$PWD/config/mail" >"$work/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; exec 9>&-; rm -rf "$work"' EXIT
for _ in $(seq 1 300); do curl -sf "http://127.0.0.1:$port/ready" >/dev/null && break; sleep 0.1; done
python3 scripts/mail_latency.py --port "$port" --mail-dir "$work/mail" --admin-email bench-admin@example.com \
  --admin-password 'bench admin password' --rate "$RATE" --duration "$SECONDS_"
echo "server CPU: $(ps -o times= -p $server) s in all"
