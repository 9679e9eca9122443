#!/usr/bin/env bash
# A real browser against the API: headless Chromium (Debian chromium +
# chromium-driver, selenium from PyPI; scripts/setup.sh --tests installs them)
# loads a page from a second loopback origin and calls the server with
# fetch(): preflighted JSON POSTs, a gzip list, ETag revalidation (304),
# the cart changed with If-Match, an EventSource opened with a one-use
# ticket that sees a change made from another session, the rate-limit
# fields, traceparent, and an origin the server does not list (blocked).
# Debug build unless AXIOM_BIN is set. BROWSER_TEST_CORS_OFF=1 starts the
# server without the page's origin: the test must then fail.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
BIN=${AXIOM_BIN:-}
if [ -z "$BIN" ]; then
  swift build --product axiom-server >/dev/null
  BIN=$(swift build --show-bin-path)/axiom-server
fi
WORK=$(mktemp -d)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
PORT=$(free_port)
PAGE_PORT=$(free_port)
OTHER_PORT=$(free_port)
ADMIN_EMAIL=admin@browser.test
ADMIN_PASSWORD=browser-admin-1
ORIGINS="http://127.0.0.1:$PAGE_PORT"
[ "${BROWSER_TEST_CORS_OFF:-0}" = 1 ] && ORIGINS=""
"$BIN" --port "$PORT" --database "$WORK/axiom.db" --cors-allowed-origins "$ORIGINS" \
  --admin-email "$ADMIN_EMAIL" --admin-password "$ADMIN_PASSWORD" >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null && break; sleep 0.1; done
python3 scripts/browser_driver.py "http://127.0.0.1:$PORT" "$PAGE_PORT" "$OTHER_PORT" \
  "$ADMIN_EMAIL" "$ADMIN_PASSWORD" "$WORK/server.log"
kill -0 $SERVER  # the server must have survived
