#!/usr/bin/env bash
# Installs the system packages the build and the scripts need (Debian/Ubuntu),
# skipping the ones already present. Safe to run again. haproxy is the
# balancer of scripts/cluster.sh; prometheus brings promtool, which checks
# config/prometheus's rules in scripts/test.sh.
set -euo pipefail
packages=(libsqlite3-dev libpq-dev postgresql-15 libsodium-dev zlib1g-dev wrk curl python3 chromium chromium-driver haproxy prometheus)
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
# schemathesis (PyPI) for the API conformance run in scripts/test.sh.
command -v schemathesis >/dev/null || python3 -m pip install -q schemathesis
# selenium (PyPI) drives headless Chromium in the browser test (scripts/browser-test.sh).
python3 -c 'import selenium' 2>/dev/null || python3 -m pip install -q selenium
# prometheus_client (PyPI): its text parser checks GET /metrics in the tests.
python3 -c 'import prometheus_client' 2>/dev/null || python3 -m pip install -q prometheus_client
