#!/usr/bin/env bash
# The whole test suite, as CI runs it. The build refuses any import of a
# target that is not a declared dependency (the architecture's first guard);
# then the Swift tests, then schemathesis against the running server and
# openapi.yaml.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests --explicit-target-dependency-import-check error
swift test --skip-build "$@"
# The API against its own document: schemathesis, every check, bounded.
scripts/schemathesis.sh 25
