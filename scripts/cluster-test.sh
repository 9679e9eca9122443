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
trap 'scripts/cluster.sh down' EXIT
scripts/cluster.sh down
scripts/cluster.sh up >/dev/null
ports=$(for n in 1 2 3; do echo $((CLUSTER_PORT + n)); done | paste -sd,)
python3 scripts/cluster_driver.py --ports "$ports" \
  --admin-email "$AXIOM_ADMIN_EMAIL" --admin-password "$AXIOM_ADMIN_PASSWORD" \
  --webhook-secret "$(cat "$AXIOM_CLUSTER_STATE/webhook-secret")" "$@"
