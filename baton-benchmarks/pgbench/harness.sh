#!/usr/bin/env bash
# Baton's own limit inside an interleaved run of the peer harness: an external command
# (../shared/bench/peers/README.md, "Adding a system from another repository", contract 1) whose
# "system" is Baton's SQL run raw by pgbench, so the ratio "Baton ÷ its own SQL" comes from one
# run, round by round, like the ratios to the peers. W1 and W3:
#
#   EXTERNAL_SYSTEMS="baton-sql=$PWD/baton-benchmarks/pgbench/harness.sh; ..." W1_SYSTEMS="... baton-sql"
#
# W1, in the database the harness created (PG* from the harness): Baton's schema; a warm-up drain
# of W1_WARM jobs; W1_N jobs pre-filled by one INSERT ... SELECT (timed as bulk_insert_ms; psql's
# start included); then, between the BENCH_PHASE markers, pgbench drains them with
# BATON_SQL_VARIANT [complete_and_claim; or complete_and_claim_delete, claim_then_complete] on
# BATON_SQL_CLIENTS [2] clients, BATCH [100] jobs per claim, as run.sh does. total_ms = pgbench's
# transactions / tps (its connection set-up excluded). duplicates = jobs claimed more than once
# (attempt > 1); failed = jobs not completed.
#
# W3, as the harness's raw rows run theirs: one pgbench client, -M prepared; a warm-up of 200
# single enqueues (enqueue.sql, Baton's enqueue statement) and one bulk of 1,000; then W3_SINGLE
# single enqueues, their rate pgbench's tps and their p50 / p99 from its per-transaction log; then
# one bulk of W3_BULK jobs (enqueue_bulk.sql: the job table's share of a bulk enqueue, one
# INSERT ... SELECT), timed by pgbench.
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
[[ ${WORKLOAD:-} == w1 || ${WORKLOAD:-} == w3 ]] ||
  fail "baton-sql measures W1 and W3 only (got WORKLOAD=${WORKLOAD:-<unset>})"
case $VARIANT in
  complete_and_claim|complete_and_claim_delete|claim_then_complete) ;;
  *) fail "BATON_SQL_VARIANT=$VARIANT: expected complete_and_claim, complete_and_claim_delete or claim_then_complete" ;;
esac

source "$HERE/lib.sh"
baton_bench_jar
baton_schema "$DB"
echo 'BENCH_VERIFY {"completed_sql":"SELECT ((SELECT count(*) FROM baton.job WHERE state = '"'"'completed'"'"') + (SELECT coalesce(sum(n), 0) FROM baton.job_completions))::bigint","pending_sql":"SELECT count(*) FROM baton.job WHERE state IN ('"'"'available'"'"', '"'"'running'"'"', '"'"'scheduled'"'"', '"'"'retryable'"'"')","failed_sql":"SELECT count(*) FROM baton.job WHERE state = '"'"'discarded'"'"'"}'

PGB_VERSION=$(pgbench --version | awk '{print $3}')

if [[ $WORKLOAD == w3 ]]; then
  ENQ_VARS=(-D queue=default -D kind=bench_noop -D 'args={"i": 1}' -D priority=0 -D max_attempts=20
            -D run_at=none -D key=none -D 'metadata={}' -D channel=baton_insert)
  pgbench -n -M prepared -c 1 -j 1 -t 200 "${ENQ_VARS[@]}" -f "$HERE/enqueue.sql" "$DB" >/dev/null
  pgbench -n -M prepared -c 1 -j 1 -t 1 -D n=1000 -f "$HERE/enqueue_bulk.sql" "$DB" >/dev/null
  LOGS=$(mktemp -d)
  trap 'rm -rf "$LOGS"' EXIT
  OUT=$(pgbench -n -M prepared -c 1 -j 1 -t "$W3_SINGLE" "${ENQ_VARS[@]}" -l --log-prefix="$LOGS/single" \
        -f "$HERE/enqueue.sql" "$DB" 2>&1) || { echo "$OUT" >&2; fail "pgbench (single enqueues) failed"; }
  echo "$OUT" >&2
  S_TPS=$(awk '/^tps = / {print $3}' <<<"$OUT")
  # per-transaction log: client, transaction, latency (µs), ...; nearest-rank percentiles in ms
  read -r P50 P99 < <(cat "$LOGS"/single* | awk '{print $3}' | sort -n |
    awk '{v[NR] = $1} END {i50 = int((50 * NR + 99) / 100); i99 = int((99 * NR + 99) / 100);
         printf "%.3f %.3f\n", v[i50] / 1000, v[i99] / 1000}')
  OUT=$(pgbench -n -M prepared -c 1 -j 1 -t 1 -D n="$W3_BULK" -f "$HERE/enqueue_bulk.sql" "$DB" 2>&1) ||
    { echo "$OUT" >&2; fail "pgbench (bulk) failed"; }
  echo "$OUT" >&2
  B_MS=$(awk '/^latency average = / {print $4}' <<<"$OUT")
  awk -v n="$W3_SINGLE" -v tps="$S_TPS" -v p50="$P50" -v p99="$P99" -v bulk="$W3_BULK" -v bms="$B_MS" \
      -v rnd="$ROUND" -v ver="$PGB_VERSION" 'BEGIN {
    printf "BENCH_RESULT {\"workload\":\"w3\",\"round\":%d,", rnd
    printf "\"info\":{\"name\":\"baton-sql (Baton'"'"'s enqueue statement, and its job table for the bulk, run raw by pgbench)\","
    printf "\"version\":\"pgbench %s, -M prepared\",\"wakeup\":\"n/a\",", ver
    printf "\"tuning\":{\"single\":\"EnqueueStore.ENQUEUE\",\"bulk\":\"one INSERT ... SELECT into baton.job\"}},"
    printf "\"single_n\":%d,\"single_per_s\":%s,\"single_call_ms\":{\"p50\":%s,\"p99\":%s},", n, tps, p50, p99
    printf "\"bulk_n\":%d,\"bulk_ms\":%s,\"bulk_per_s\":%.1f,\"ok\":true}\n", bulk, bms, bulk / (bms / 1000)
  }'
  exit 0
fi

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
