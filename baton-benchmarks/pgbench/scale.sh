#!/usr/bin/env bash
# Claim latency against table size: Baton's hot path (complete_and_claim.sql, one pgbench client,
# batches of 10) with 0, 1M and 10M finished (completed) rows already in baton.job, as a table
# looks when its completed retention keeps days of history. The same database grows from one step
# to the next; before each step: the finished rows added in one INSERT ... SELECT, VACUUM ANALYZE,
# 20,000 available jobs (load.sql), CHECKPOINT; then pgbench drains them and reports its latency.
#
# usage: baton-benchmarks/pgbench/scale.sh ["0 1000000 10000000"] [DB]
# PG* as for run.sh [127.0.0.1:5432, user bench, password bench]; DB [baton_scale_bench] must
# contain "bench" (it is dropped and re-created). Prints one RESULT {json} line per step.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
STEPS=${1:-"0 1000000 10000000"}; DB=${2:-baton_scale_bench}
if [[ ! $DB =~ ^[a-z_][a-z0-9_]*$ || $DB != *bench* ]]; then
  echo "database name $DB: expected lower-case letters, digits and _, containing \"bench\"" >&2
  exit 2
fi
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-bench} PGPASSWORD=${PGPASSWORD:-bench}
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -d "$DB")
source "$HERE/lib.sh"
baton_bench_jar

baton_fresh_db "$DB"

BATCH=10; JOBS=20000
have=0
for target in $STEPS; do
  add=$(( target > have ? target - have : 0 ))
  if (( add > 0 )); then
    echo "[pgbench/scale.sh] adding $add finished rows (to $target) ..." >&2
    "${PSQL[@]}" -v n="$add" <<'SQL'
INSERT INTO "baton".job (queue, kind, args, state, priority, max_attempts, attempt, attempted_at,
                         attempted_by, finalized_at, scheduled_at, created_at)
SELECT 'default', 'bench_noop', jsonb_build_object('i', g), 'completed', 0, 20, 1,
       now() - (g % 86400) * interval '1 second', 'history',
       now() - (g % 86400) * interval '1 second', now() - (g % 86400) * interval '1 second',
       now() - (g % 86400) * interval '1 second'
FROM generate_series(1, :n) AS g;
SQL
    have=$target
  fi
  "${PSQL[@]}" -c 'VACUUM ANALYZE "baton".job' >/dev/null
  baton_prefill "$DB" "$JOBS"
  psql -X -q -d postgres -c "CHECKPOINT" >/dev/null 2>&1 || true
  SIZE=$("${PSQL[@]}" -At -c "SELECT pg_total_relation_size('\"baton\".job')")
  baton_pgbench "$DB" complete_and_claim 1 "$JOBS"
  LEFT=$("${PSQL[@]}" -At -c "SELECT count(*) FROM \"baton\".job WHERE state IN ('available', 'running')")
  printf 'RESULT {"system":"baton-sql","variant":"complete_and_claim","workload":"scale","finished_rows":%d,"table_bytes":%d,"clients":1,"batch":%d,"jobs":%d,"latency_avg_ms":%s,"tps":%s,"left":%d}\n' \
    "$target" "$SIZE" "$BATCH" "$JOBS" "$LAT" "$TPS" "$LEFT"
done
