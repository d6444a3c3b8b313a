#!/usr/bin/env bash
# Baton's own limit inside an interleaved run of the peer harness: an external command
# (../shared/bench/peers/README.md, "Adding a system from another repository", contract 1) whose
# "system" is Baton's claim and completion SQL run raw by pgbench, so the ratio "Baton ÷ its own
# SQL" comes from one run, round by round, like the ratios to the peers. W1 only:
#
#   EXTERNAL_SYSTEMS="baton-sql=$PWD/baton-benchmarks/pgbench/harness.sh; ..." W1_SYSTEMS="... baton-sql"
#
# In the database the harness created (PG* from the harness): Baton's schema; a warm-up drain of
# W1_WARM jobs; W1_N jobs pre-filled by one INSERT ... SELECT (timed as bulk_insert_ms; psql's
# start included); then, between the BENCH_PHASE markers, pgbench drains them with
# BATON_SQL_VARIANT [complete_and_claim; or complete_and_claim_delete, claim_then_complete] on
# BATON_SQL_CLIENTS [2] clients, BATCH [100] jobs per claim, as run.sh does. total_ms = pgbench's transactions / tps (its connection set-up excluded).
# duplicates = jobs claimed more than once (attempt > 1); failed = jobs not completed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VARIANT=${BATON_SQL_VARIANT:-complete_and_claim}
CLIENTS=${BATON_SQL_CLIENTS:-2}
BATCH=${BATCH:-100}
DB=${PGDATABASE:?PGDATABASE: run by the peer harness, which sets it}
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -d "$DB")

fail() {
  printf 'BENCH_RESULT {"workload":"%s","round":%s,"ok":false,"error":"%s","info":{"version":"baton-sql","wakeup":"n/a"}}\n' \
    "${WORKLOAD:-?}" "${ROUND:-0}" "$1"
  exit 1
}
[[ ${WORKLOAD:-} == w1 ]] || fail "baton-sql measures W1 only (got WORKLOAD=${WORKLOAD:-<unset>})"
case $VARIANT in
  complete_and_claim|complete_and_claim_delete|claim_then_complete) ;;
  *) fail "BATON_SQL_VARIANT=$VARIANT: expected complete_and_claim, complete_and_claim_delete or claim_then_complete" ;;
esac

source "$HERE/lib.sh"
baton_bench_jar
baton_schema "$DB"
echo 'BENCH_VERIFY {"completed_sql":"SELECT ((SELECT count(*) FROM baton.job WHERE state = '"'"'completed'"'"') + (SELECT coalesce(sum(n), 0) FROM baton.job_completions))::bigint","pending_sql":"SELECT count(*) FROM baton.job WHERE state IN ('"'"'available'"'"', '"'"'running'"'"', '"'"'scheduled'"'"', '"'"'retryable'"'"')","failed_sql":"SELECT count(*) FROM baton.job WHERE state = '"'"'discarded'"'"'"}'

if (( W1_WARM > 0 )); then
  baton_prefill "$DB" "$W1_WARM"
  baton_pgbench "$DB" "$VARIANT" "$CLIENTS" "$W1_WARM"
fi
t0=$(date +%s%N)
baton_prefill "$DB" "$W1_N"
BULK_US=$(( ($(date +%s%N) - t0) / 1000 ))
echo "BENCH_PHASE measure_start"
baton_pgbench "$DB" "$VARIANT" "$CLIENTS" "$W1_N"
echo "BENCH_PHASE measure_end"
# completed = rows kept as completed + completions that deleted their row (the _delete variant,
# whose duplicates cannot be seen in rows that are gone: a second claim of a job needs its row)
read -r DONE DUPS < <("${PSQL[@]}" -At -F ' ' -c \
  "SELECT count(*) FILTER (WHERE state = 'completed') + (SELECT coalesce(sum(n), 0) FROM baton.job_completions),
   count(*) FILTER (WHERE attempt > 1) FROM baton.job")
PGB_VERSION=$(pgbench --version | awk '{print $3}')
awk -v n="$W1_N" -v warm="$W1_WARM" -v done="$DONE" -v dups="$DUPS" -v dur="$DUR_S" \
    -v bulk_us="$BULK_US" -v rnd="$ROUND" -v v="$VARIANT" -v c="$CLIENTS" -v b="$BATCH" \
    -v ver="$PGB_VERSION" -v lat="$LAT" -v failed="$FAILED" 'BEGIN {
  ms = dur * 1000; measured = done - warm
  printf "BENCH_RESULT {\"workload\":\"w1\",\"round\":%d,", rnd
  printf "\"info\":{\"name\":\"baton-sql (Baton'"'"'s claim and completion SQL run raw by pgbench)\","
  printf "\"version\":\"pgbench %s, -M prepared\",\"wakeup\":\"n/a (pre-filled)\",", ver
  printf "\"tuning\":{\"variant\":\"%s\",\"clients\":%d,\"batch\":%d,\"latency_avg_ms\":%s,\"failed_xacts\":%d}},", v, c, b, lat, failed
  printf "\"n\":%d,\"bulk_insert_ms\":%.3f,\"total_ms\":%.3f,\"jobs_per_s\":%.1f,", n, bulk_us / 1000, ms, n / dur
  printf "\"jobs_per_s_incl_start\":%.1f,\"duplicates\":%d,\"failed\":%d,", n / dur, dups, n - measured
  printf "\"warmup_jobs\":%d,\"ok\":%s}\n", warm, (measured == n ? "true" : "false")
}'
