# Sourced by scripts/bench-cluster.sh --before-after, after its seeding and
# helpers: two builds of the server side by side in one run, for a change
# to the cluster's write path.
#
# For each delay in BENCH_DELAYS (default "0 1ms": PostgreSQL on loopback,
# then one hop away with 1 ms of round trip added, scripts/cluster.sh's
# CLUSTER_PG_DELAY), for 1, 2 and 3 replicas behind HAProxy, for BEFORE
# ($AXIOM_BIN_BEFORE) then AFTER ($AXIOM_BIN), interleaved so the machine's
# noise falls on both: cart writes (bench/cart_put.lua) and checkouts
# (bench/checkout_keyed.lua), after a 2 s cart-write warm-up of the freshly
# started replicas. Each build has a database of its own in the one
# PostgreSQL (each runs its own migrations; the seeded rows copied into
# both), so either can be older or newer than the other, and each build's
# checkouts take buyers the build has not used yet. With 3 replicas, during
# the cart-write run, pg_locks and pg_stat_activity are sampled 4 times a
# second (advisory locks held and awaited, NOTIFY's lock on pg_database,
# what the busy backends wait on); then the change-feed lag under cart
# writes (bench/change_lag_probe.py, $PROBE_ROUNDS rounds). At the end:
# before -> after per route and replica count, the lag, the measured
# round trip per delay, the lock samples and the deadlocks.
delays=${BENCH_DELAYS:-0 1ms}
builds="before after"
binary_of() { if [ "$1" = before ]; then echo "$AXIOM_BIN_BEFORE"; else echo "$AXIOM_BIN"; fi; }
ALL_BUYERS=$AXIOM_BUYER_TOKENS
total_buyers=$(wc -l <"$ALL_BUYERS")
# The last buyer writes the lag probe's cart; no checkout takes it.
PROBE_TOKEN=$(tail -n 1 "$ALL_BUYERS")
declare -A next_buyer=([before]=1 [after]=1)
summary=$WORK/summary.txt lags=$WORK/lags.txt samples_report=$WORK/samples.txt round_trips=$WORK/round-trips.txt
: >"$summary"; : >"$lags"; : >"$samples_report"; : >"$round_trips"

echo "before: $AXIOM_BIN_BEFORE ($(sha256sum "$AXIOM_BIN_BEFORE" | cut -c1-12)); after: $AXIOM_BIN ($(sha256sum "$AXIOM_BIN" | cut -c1-12))"
echo "delays: $delays; wrk -t$WRK_THREADS -c$CONNECTIONS -d${DURATION}s; $total_buyers buyers per build; load at start $(cut -d' ' -f1-3 /proc/loadavg)"

# One database per build, on loopback: made, migrated by the build itself,
# then the seeded rows.
bench_stop_process
SERVER=
DATABASE_URL=$(CLUSTER_PG_DELAY=0 scripts/cluster.sh pg-up)
for build in $builds; do
  psql "$DATABASE_URL" -qc "CREATE DATABASE bench_$build" >/dev/null
  BENCH_BINARY=$(binary_of "$build") BENCH_STORAGE=(--database-url "${DATABASE_URL%/*}/bench_$build")
  bench_start_process
  bench_stop_process
  python3 bench/copy_to_postgres.py "$WORK/axiom.db" "${DATABASE_URL%/*}/bench_$build"
done
SERVER=

stop_cluster() {
  local n pid tries=0
  for n in 1 2 3; do scripts/cluster.sh kill "$n"; done
  if [ -f "$state/haproxy.pid" ]; then
    pid=$(cat "$state/haproxy.pid")
    kill "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null && [ "$tries" -lt 100 ]; do sleep 0.1; tries=$((tries + 1)); done
    rm -f "$state/haproxy.pid"
  fi
}

# pg_locks and pg_stat_activity of one database, 4 times a second on one
# connection, until killed: "sample|key|count" lines.
sample_locks() { # database-url output-file
  psql "$1" -AtX -F'|' >"$2" 2>/dev/null <<'EOF' &
SELECT to_char(statement_timestamp(), 'HH24:MI:SS.US'), key, n FROM (
  SELECT 'advisory lock ' || CASE WHEN granted THEN 'held' ELSE 'awaited' END AS key, count(*) AS n
    FROM pg_locks WHERE locktype = 'advisory' GROUP BY granted
  UNION ALL
  SELECT 'NOTIFY lock (pg_database) ' || CASE WHEN granted THEN 'held' ELSE 'awaited' END, count(*)
    FROM pg_locks WHERE locktype = 'object' AND classid = 'pg_database'::regclass GROUP BY granted
  UNION ALL
  SELECT 'busy backend waiting on ' || coalesce(wait_event_type || '/' || wait_event, 'nothing (on CPU)'), count(*)
    FROM pg_stat_activity
    WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend' AND state <> 'idle'
    GROUP BY 1
  UNION ALL
  SELECT 'sample', 1
) counts;
\watch 0.25
EOF
  SAMPLER=$!
}
# Per key: the mean count over the samples, the largest, and in how many
# samples it was there at all.
sample_summary() { # label file
  echo "$1: $(grep -c '|sample|' "$2") samples"
  awk -F'|' '
    $2 == "sample" { samples++; next }
    NF == 3 { sum[$2] += $3; if ($3 > max[$2]) max[$2] = $3; seen[$2]++ }
    END { for (k in sum) printf "  %-62s mean %5.2f  max %3d  in %d of %d samples\n", k, sum[k] / samples, max[k], seen[k], samples }
  ' "$2" | sort
}

warm_up() { wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d2s -s bench/cart_put.lua "$BALANCER" >/dev/null; }

run_build() { # delay replicas build
  local delay=$1 n=$2 build=$3 label buyers=$WORK/buyers-run.txt database_url first
  export CLUSTER_PG_DATABASE=bench_$build
  stop_cluster
  AXIOM_BIN=$(binary_of "$build") cluster_with "$n"
  warm_up
  label="$delay, $n, $build"
  database_url=$(scripts/cluster.sh database-url)
  if [ "$n" = 3 ]; then sample_locks "$database_url" "$WORK/samples-$build-$delay.txt"; fi
  measure "$label" cart_put "$BALANCER" $(replica_pids "$n")
  echo "$delay|$n|$build|cart_put|$MEASURED_RPS" >>"$summary"
  if [ "$n" = 3 ]; then
    kill "$SAMPLER" 2>/dev/null || true
    wait "$SAMPLER" 2>/dev/null || true
    sample_summary "delay $delay, 3 replicas, $build, during the cart-write run" "$WORK/samples-$build-$delay.txt" >>"$samples_report"
  fi
  first=${next_buyer[$build]}
  tail -n +"$first" "$ALL_BUYERS" | head -n -1 >"$buyers"
  AXIOM_BUYER_TOKENS=$buyers measure "$label" checkout_keyed "$BALANCER" $(replica_pids "$n")
  echo "$delay|$n|$build|checkout_keyed|$MEASURED_RPS" >>"$summary"
  # bench/checkout_keyed.lua says how far its threads went, requests left
  # in flight at the end included.
  next_buyer[$build]=$((first + $(echo "$MEASURED_OUTPUT" | awk '/^buyers used:/ {print $3}')))
  if [ "$n" = 3 ]; then
    lag_loaded >"$WORK/lag.txt"
    echo "$delay|$build|$LAG_WRK_RPS|$(cat "$WORK/lag.txt")" >>"$lags"
  fi
}

table_header
for delay in $delays; do
  # PostgreSQL moved to this delay on the same data: stopped, then started
  # on loopback or in the hop's namespace.
  stop_cluster
  scripts/cluster.sh pg-stop
  export CLUSTER_PG_DELAY=$delay
  scripts/cluster.sh pg-start
  echo "$delay: $(scripts/cluster.sh round-trip)" >>"$round_trips"
  for n in 1 2 3; do
    for build in $builds; do run_build "$delay" "$n" "$build"; done
  done
done
stop_cluster

echo
echo "req/s, before -> after (x after/before):"
echo "| delay | route | 1 replica | 2 replicas | 3 replicas | 3 replicas / 1 replica, after |"
echo "|---|---|---|---|---|---|"
awk -F'|' '
  { rps[$1 "|" $4 "|" $2 "|" $3] = $5; if (!($1 "|" $4 in seen)) { seen[$1 "|" $4] = 1; order[++rows] = $1 "|" $4 } }
  END {
    for (i = 1; i <= rows; i++) {
      split(order[i], key, "|")
      line = "| " key[1] " | " key[2]
      for (n = 1; n <= 3; n++) {
        b = rps[order[i] "|" n "|before"]; a = rps[order[i] "|" n "|after"]
        line = line sprintf(" | %s -> %s (x%.2f)", b, a, b > 0 ? a / b : 0)
      }
      one = rps[order[i] "|1|after"]; three = rps[order[i] "|3|after"]
      print line sprintf(" | x%.2f |", one > 0 ? three / one : 0)
    }
  }' "$summary"

echo
echo "change-feed lag under cart writes, 3 replicas (ack on replica 1 -> cart.updated on replica 2):"
echo "| delay | build | wrk cart writes/s meanwhile | probe |"
echo "|---|---|---|---|"
awk -F'|' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$lags"

echo
echo "PostgreSQL round trip per delay (SELECT 1 through psql, median of 100, before the runs):"
cat "$round_trips"

echo
echo "pg_locks / pg_stat_activity during the 3-replica cart-write runs:"
cat "$samples_report"
echo "deadlocks PostgreSQL logged in the whole run: $(deadlocks)"
echo "buyers used: before $((next_buyer[before] - 1)), after $((next_buyer[after] - 1)) of $((total_buyers - 1)) each; $SECONDS s since the script started"
