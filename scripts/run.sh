#!/usr/bin/env bash
# Sets up a fresh machine and runs the service on its defaults
# (127.0.0.1:8080). Extra arguments go to axiom-server, e.g. --port 9000.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
swift build -c release --product axiom-server
exec .build/release/axiom-server "$@"
