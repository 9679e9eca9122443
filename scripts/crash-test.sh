#!/usr/bin/env bash
# The kill -9 crash test: builds the release binary, then RUNS times (default
# 5) starts it on a fresh database, runs concurrent writers (registrations,
# sign-ins and sign-outs, cart changes, checkouts with an Idempotency-Key,
# payments, declines, refunds, cancellations), kills it with SIGKILL after a
# random 1-4 s, restarts it on the same file and checks that every write
# answered 2xx is there and that stock, orders, carts and the money ledger
# agree (scripts/crash_driver.py says exactly what is checked).
# Prints "acknowledged X, lost 0" per kind of write and the ledger's totals
# for each run; exits
# non-zero if any run lost or mixed up anything (its database and server log
# are kept and named).
#
# usage: scripts/crash-test.sh [--database-url URL] [--mail] [RUNS]
#   --database-url: the server on PostgreSQL (each run on a fresh schema of
#   that server, e.g. URL from scripts/postgres.sh start), not a SQLite file.
#   --mail: mail on, through a real SMTP server that refuses its first
#   messages with 451; every order's mails must arrive (scripts/mail_check.py).
#   CRASH_SHOPPERS / CRASH_REGISTRARS change the number of writer threads.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
options=()
if [ "${1:-}" = "--database-url" ]; then
  [ -n "${2:-}" ] || { echo "usage: $0 [--database-url URL] [--mail] [RUNS]" >&2; exit 2; }
  options=(--database-url "$2")
  shift 2
fi
if [ "${1:-}" = "--mail" ]; then
  options+=(--mail)
  shift
fi
RUNS=${1:-5}
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || { echo "usage: $0 [--database-url URL] [--mail] [RUNS]" >&2; exit 2; }

swift build -c release --product axiom-server >/dev/null
BINARY=$(swift build -c release --show-bin-path)/axiom-server

failed=0
for run in $(seq 1 "$RUNS"); do
  python3 scripts/crash_driver.py --binary "$BINARY" --run "$run" \
    --shoppers "${CRASH_SHOPPERS:-12}" --registrars "${CRASH_REGISTRARS:-3}" "${options[@]}" || failed=$((failed + 1))
done
if [ "$failed" -gt 0 ]; then
  echo "crash test: $failed of $RUNS runs FAILED"
  exit 1
fi
echo "crash test: $RUNS of $RUNS runs passed, nothing lost"
