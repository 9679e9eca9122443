#!/usr/bin/env bash
# The whole test suite, as CI runs it. The build refuses any import of a
# target that is not a declared dependency (the architecture's first guard);
# then the Swift tests, then schemathesis against the running server and
# openapi.yaml, then headless Chromium against the server from another origin.
set -euo pipefail
cd "$(dirname "$0")/.."
# What the tests use (PostgreSQL, HAProxy, Chromium, promtool, schemathesis…),
# skipping what is installed already.
scripts/setup.sh --tests
swift build --build-tests --explicit-target-dependency-import-check error
# The webhook receiver the tests deliver to, and the cluster test's
# webhook checks, against a sender that signs with the reference library.
python3 scripts/webhook_selfcheck.py
# Serially: several suites start real servers and hash real passwords, and on
# a 2-core machine running them all at once starves the ones that wait on a
# socket. No assertion depends on time, but the hang guards (30 s per read)
# should never be what decides a run.
swift test --skip-build --no-parallel "$@"
# The fleet's recording and alert rules: valid, and each alert fires on the
# series its unit test feeds it and stays quiet on the others.
promtool check rules config/prometheus/axiom-rules.yml
promtool test rules config/prometheus/axiom-rules.test.yml
# The server tests again with every server on PostgreSQL, each on a fresh
# schema of the test cluster (.ci/run starts one; ServerDatabase says which
# tests are about the SQLite file and sit this pass out).
if [ -n "${AXIOM_TEST_DATABASE_URL:-}" ] && [ "$#" -eq 0 ]; then
  AXIOM_TEST_SERVER_BACKEND=postgres swift test --skip-build --no-parallel --filter AxiomServerTests
  # Three replicas on their own PostgreSQL behind HAProxy (scripts/cluster.sh):
  # every scale-out guarantee through the real processes, kill -9 included.
  scripts/cluster-test.sh
  # Again with PostgreSQL one network hop away, 1 ms round trip: the
  # guarantees must not lean on a database that answers in microseconds.
  CLUSTER_PG_DELAY=1ms scripts/cluster-test.sh
fi
# The API against its own document: schemathesis, every check, bounded.
scripts/schemathesis.sh 25
# A real browser on another origin: CORS, gzip, ETag revalidation, trace context.
scripts/browser-test.sh
