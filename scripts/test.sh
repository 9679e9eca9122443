#!/usr/bin/env bash
# The whole test suite, as CI runs it. The build refuses any import of a
# target that is not a declared dependency (the architecture's first guard).
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --build-tests --explicit-target-dependency-import-check error
swift test --skip-build "$@"
