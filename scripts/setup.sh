#!/usr/bin/env bash
# Installs the system packages the build needs (Debian/Ubuntu), skipping the
# ones already present; with --tests, also what the tests and benchmarks use.
# Safe to run again.
#   scripts/setup.sh           libsqlite3, libpq, libsodium, zlib, libssl: enough to build and run the server
#   scripts/setup.sh --tests   and PostgreSQL 15, HAProxy (scripts/cluster.sh's balancer), Chromium with
#                              chromedriver, promtool (prometheus), aiosmtpd (a real SMTP server), nginx (the webhook
#                              benchmark's receiver), wrk, curl and the PyPI tools below
set -euo pipefail
tests=false
case "${1:-}" in
  --tests) tests=true ;;
  "") ;;
  *) echo "usage: scripts/setup.sh [--tests]" >&2; exit 2 ;;
esac
packages=(libsqlite3-dev libpq-dev libsodium-dev zlib1g-dev libssl-dev python3)
if $tests; then
  packages+=(postgresql-15 wrk curl chromium chromium-driver haproxy prometheus python3-aiosmtpd nginx-light)
fi
missing=()
for package in "${packages[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
$tests || exit 0
# schemathesis (PyPI) for the API conformance run in scripts/test.sh.
command -v schemathesis >/dev/null || python3 -m pip install -q schemathesis
# selenium (PyPI) drives headless Chromium in the browser test (scripts/browser-test.sh).
python3 -c 'import selenium' 2>/dev/null || python3 -m pip install -q selenium
# prometheus_client (PyPI): its text parser checks GET /metrics in the tests.
python3 -c 'import prometheus_client' 2>/dev/null || python3 -m pip install -q prometheus_client
# aiosmtpd (PyPI too): Debian's package serves only the system python3, which may not be the one on PATH.
python3 -c 'import aiosmtpd' 2>/dev/null || python3 -m pip install -q aiosmtpd
# trustme (PyPI) makes the test CA and certificates the SMTP and TLS tests serve.
python3 -c 'import trustme' 2>/dev/null || python3 -m pip install -q trustme
# standardwebhooks (PyPI), the specification's reference verifier: the webhook receiver checks every delivery with it.
python3 -c 'import standardwebhooks' 2>/dev/null || python3 -m pip install -q standardwebhooks
