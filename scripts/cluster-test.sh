#!/usr/bin/env bash
# The cluster test: scripts/cluster.sh up (PostgreSQL, three replicas,
# HAProxy), then every guarantee of the scale-out design checked through the
# real processes (scripts/cluster_driver.py says which), then down, however
# the checks end. Extra arguments go to the driver, e.g. --only stock,kill.
#
#   scripts/cluster-test.sh            # ~2 minutes (the rolling restart ~50 s of it)
#   CLUSTER_PG_DELAY=1ms scripts/cluster-test.sh   # PostgreSQL one hop away, 1 ms round trip (scripts/cluster.sh)
#
# It runs the debug build scripts/test.sh has just made (a correctness
# test: no release build in CI); AXIOM_BIN picks another binary.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
export AXIOM_BIN=${AXIOM_BIN:-$(swift build --show-bin-path)/axiom-server}
export AXIOM_CLUSTER_STATE=${AXIOM_CLUSTER_STATE:-/tmp/axiom-cluster-test-$(id -u)}
export CLUSTER_PORT=${CLUSTER_PORT:-18090}
export CLUSTER_PG_PORT=${CLUSTER_PG_PORT:-54349}
export AXIOM_ADMIN_EMAIL=cluster-admin@example.com
export AXIOM_ADMIN_PASSWORD="cluster test admin password"
# Short enough that the stream and storage checks see their effects soon;
# the sweeps and probes are what a replica's recovery waits on.
export AXIOM_STORAGE_PROBE_INTERVAL=1
# Load-test settings: the driver's shoppers leave many orders unpaid.
export AXIOM_UNPAID_ORDERS_PER_CUSTOMER=0 AXIOM_UNPAID_UNITS_PER_CUSTOMER=0
export AXIOM_LOG_LEVEL=warning
# Mail on, through a real SMTP server (STARTTLS on a CA it makes) that
# refuses its first messages with 451: the driver's last check reads what
# it accepted. Stopped by closing its stdin (fd 9) when this script ends.
mail_dir=$AXIOM_CLUSTER_STATE.mail
rm -rf "$mail_dir" && mkdir -p "$mail_dir"
exec 9> >(exec python3 scripts/smtp_sink.py --dir "$mail_dir" --tls starttls --cert-host localhost --defer 5 \
  --lifetime 3600 > "$mail_dir/sink.json")
for _ in $(seq 1 100); do [ -s "$mail_dir/sink.json" ] && break; sleep 0.1; done
smtp_port=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["port"])' "$mail_dir/sink.json")
export AXIOM_SMTP_HOST=localhost AXIOM_SMTP_PORT=$smtp_port AXIOM_SMTP_TLS=starttls
export AXIOM_SMTP_CA_FILE=$mail_dir/ca.pem AXIOM_MAIL_FROM=shop@axiom.test AXIOM_MAIL_TEMPLATES=$PWD/config/mail
# A killed replica's jobs are taken over within seconds, not a minute.
export AXIOM_JOBS_LEASE=5
# Webhooks on, to a real receiver (HTTPS on a CA it makes, every delivery
# verified with the standardwebhooks library) on loopback, which the
# settings allow; retries within seconds, not hours. The driver makes its
# endpoints first and reads what arrived last. Stopped by closing fd 8.
hooks_dir=$AXIOM_CLUSTER_STATE.webhooks
rm -rf "$hooks_dir" && mkdir -p "$hooks_dir"
exec 8> >(exec python3 scripts/webhook_receiver.py --dir "$hooks_dir" --lifetime 3600 > "$hooks_dir/ready.json")
for _ in $(seq 1 100); do [ -s "$hooks_dir/port" ] && break; sleep 0.1; done
[ -s "$hooks_dir/port" ] || { echo "cluster-test.sh: the webhook receiver did not start (scripts/setup.sh --tests)" >&2; exit 1; }
export AXIOM_WEBHOOKS_ALLOW_PRIVATE=1 AXIOM_WEBHOOKS_CA_FILE=$hooks_dir/ca.pem
export AXIOM_WEBHOOKS_RETRY_SCHEDULE=0,0.2,0.5,1,2 AXIOM_WEBHOOKS_TIMEOUT=2
trap 'exec 9>&- 8>&-; scripts/cluster.sh down' EXIT
scripts/cluster.sh down
scripts/cluster.sh up >/dev/null
ports=$(for n in 1 2 3; do echo $((CLUSTER_PORT + n)); done | paste -sd,)
python3 scripts/cluster_driver.py --ports "$ports" \
  --admin-email "$AXIOM_ADMIN_EMAIL" --admin-password "$AXIOM_ADMIN_PASSWORD" \
  --webhook-secret "$(cat "$AXIOM_CLUSTER_STATE/webhook-secret")" --mail-dir "$mail_dir" \
  --webhook-dir "$hooks_dir" "$@"
