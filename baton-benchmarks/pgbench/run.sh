#!/usr/bin/env bash
# Baton's own limit: its claim and completion SQL (the scripts beside this file, checked against
# HolderStore by PgbenchScriptsTest) run raw by pgbench, the way the peer harness's pgbench driver
# (../shared/bench/peers/pgbench/run.sh) runs its raw-SQL variants. That driver takes its scripts
# only from its own folder, so this script repeats its procedure for Baton's scripts. One call = one
# measurement on a freshly created database. Prints one line "RESULT {json}" on stdout, with the
# fields of the driver's W1 rows; pgbench's own report goes to stderr.
#
#   baton-benchmarks/pgbench/run.sh w1 VARIANT CLIENTS [DB] [ROUND]
#     VARIANT: complete_and_claim | complete_and_claim_delete | claim_then_complete
#     DB:      database to DROP and re-create [baton_pgbench]; its name must contain "bench"
#
# Environment: W1_N [20000] jobs, BATCH [100] jobs per claim (pgbench variable :batch),
# PG* connection variables [127.0.0.1:5432, user bench, password bench, as the harness],
# BATON_BENCH_JAR [baton-benchmarks/target/baton-benchmarks.jar, built when missing or older than a
# source] for the schema (Migrator.print(), via dev.baton.bench.pgbench.PrintSchema).
#
# Procedure (the driver's): fresh database, CHECKPOINT; Baton's schema (all migrations, in schema
# "baton"); W1_N available jobs pre-filled by one INSERT ... SELECT, then ANALYZE; then
#   pgbench -n -M prepared -c CLIENTS -j min(CLIENTS,2) -t ceil(N/(BATCH*CLIENTS))+2 -f VARIANT.sql
# Time = pgbench's transactions / tps (connection set-up excluded); processed jobs are counted in
# the table afterwards (state 'completed'). -M prepared, unlike the driver's default simple
# protocol: Baton runs these statements as server-prepared statements (pgjdbc), and the scripts
# bind the claimed (id, fence) arrays as parameters.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
if [[ $# -lt 3 || $1 != w1 ]]; then
  sed -n '9,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
VARIANT=$2; CLIENTS=$3; DB=${4:-baton_pgbench}; ROUND=${5:-1}
case $VARIANT in
  complete_and_claim|complete_and_claim_delete|claim_then_complete) ;;
  *) echo "unknown variant $VARIANT (complete_and_claim | complete_and_claim_delete | claim_then_complete)" >&2; exit 2 ;;
esac
if [[ ! $DB =~ ^[a-z_][a-z0-9_]*$ || $DB != *bench* ]]; then
  echo "database name $DB: expected lower-case letters, digits and _, containing \"bench\"" \
       "(it is dropped and re-created)" >&2
  exit 2
fi
N=${W1_N:-20000}; BATCH=${BATCH:-100}
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-bench} PGPASSWORD=${PGPASSWORD:-bench}
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -d "$DB")

source "$HERE/lib.sh"
baton_bench_jar
PGB_VERSION=$(pgbench --version | awk '{print $3}')
LOAD0=$(cut -d' ' -f1 /proc/loadavg)

# a fresh database, as the harness's fresh_db
PGOPTIONS=--client-min-messages=warning psql -X -q -v ON_ERROR_STOP=1 -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" \
  -c "CREATE DATABASE $DB" >/dev/null
psql -X -q -d postgres -c "CHECKPOINT" >/dev/null 2>&1 || echo "[pgbench/run.sh] CHECKPOINT not allowed; going on" >&2
baton_schema "$DB"
baton_prefill "$DB" "$N"
# WAL written by the drain (the whole server's; nothing else should run): what the job table's
# writes cost, deterministic where the timing is not
WAL0=$("${PSQL[@]}" -At -c "SELECT pg_current_wal_lsn()")
baton_pgbench "$DB" "$VARIANT" "$CLIENTS" "$N"
WAL_BYTES=$("${PSQL[@]}" -At -c "SELECT pg_current_wal_lsn() - '$WAL0'::pg_lsn")
# completed = rows kept as completed + completions that deleted their row (the _delete variant)
read -r DONE RUNNING LEFT < <("${PSQL[@]}" -At -F ' ' -c "SELECT count(*) FILTER (WHERE state = 'completed')
  + (SELECT coalesce(sum(n), 0) FROM baton.job_completions),
  count(*) FILTER (WHERE state = 'running'), count(*) FILTER (WHERE state = 'available') FROM baton.job")
# elapsed time of the measured transactions = xacts / tps (pgbench excludes connection set-up)
awk -v v="$VARIANT" -v c="$CLIENTS" -v b="$BATCH" -v n="$N" -v done="$DONE" -v running="$RUNNING" \
    -v left="$LEFT" -v x="$XACTS" -v tps="$TPS" -v lat="$LAT" -v failed="$FAILED" -v rnd="$ROUND" \
    -v ver="$PGB_VERSION" -v load0="$LOAD0" -v wal="$WAL_BYTES" 'BEGIN {
  dur = x / tps
  printf "RESULT {\"system\":\"baton-sql\",\"variant\":\"%s\",\"workload\":\"w1\",\"round\":%d,", v, rnd
  printf "\"clients\":%d,\"batch\":%d,\"version\":\"pgbench %s, -M prepared\",", c, b, ver
  printf "\"wakeup\":\"n/a (pre-filled)\",\"n\":%d,\"processed\":%d,\"left_running\":%d,", n, done, running
  printf "\"left_available\":%d,\"xacts\":%d,\"pgbench_tps\":%s,\"latency_avg_ms\":%s,", left, x, tps, lat
  printf "\"duration_s\":%.6f,\"jobs_per_s\":%.1f,\"failed_xacts\":%d,", dur, done / dur, failed
  printf "\"wal_bytes_per_job\":%.0f,", (done > 0 ? wal / done : 0)
  printf "\"ok\":%s,\"loadavg_start\":%s}\n", (done == n ? "true" : "false"), load0
}'
