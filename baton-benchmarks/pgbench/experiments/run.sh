#!/usr/bin/env bash
# Experiments on Baton's hot-path SQL (eighth session), beside the shipped scripts of ../:
#   experiments/run.sh VARIANT [RUNNING] [ROUND]
# drains W1_N (default 100,000) jobs with pgbench (-M prepared, CLIENTS clients, default 2, BATCH
# jobs per statement, default 500), while RUNNING (default 0) other jobs of another queue are held
# running by another node with leases an hour long, as long-running jobs of other nodes would be.
# VARIANT: current (../complete_and_claim_delete.sql), literal_state (the same before the eighth
# session) or ready_table (a model, not Baton: the current script with its claim taken from a
# narrow table of ready jobs (queue, priority, scheduled_at, id) by deleting its rows, job's claim
# index gone; the script is derived from the shipped one at each run, so it follows it; what the
# table would cost elsewhere, a write at every move into or out of "available", is not modelled).
# Prints one line: variant, running, processed, jobs/s. Database baton_experiment (dropped and
# re-created).
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
VARIANT=${1:?usage: experiments/run.sh current|literal_state|ready_table [RUNNING] [ROUND]}
RUNNING=${2:-0}; ROUND=${3:-1}
N=${W1_N:-100000}; BATCH=${BATCH:-500}; CLIENTS=${CLIENTS:-2}; DB=baton_experiment
case $VARIANT in
  current) SCRIPT=$HERE/complete_and_claim_delete.sql ;;
  literal_state) SCRIPT=$HERE/experiments/$VARIANT.sql ;;
  ready_table)
    TMPD=$(mktemp -d); trap 'rm -rf "$TMPD"' EXIT
    SCRIPT=$TMPD/ready_table.sql
    # the claim's pick reads job_ready and deletes the rows it took; the update marks those ids
    perl -0pe 's/  SELECT id FROM "baton".job\n  WHERE state = \x27available\x27 AND queue = :queue\n/  SELECT r.ctid AS rid FROM "baton".job_ready r\n  WHERE r.queue = :queue\n/;
               s/  ORDER BY priority, scheduled_at, id\n/  ORDER BY r.priority, r.scheduled_at, r.id\n/;
               s/(  FOR UPDATE SKIP LOCKED\n\),\n)(claimed AS)/$1unready AS (\nDELETE FROM "baton".job_ready r WHERE r.ctid = ANY (ARRAY(SELECT rid FROM picked)) RETURNING r.id\n),\n$2/;
               s/ARRAY\(SELECT id FROM picked\)\)\n/ARRAY(SELECT id FROM unready))\n/' \
      "$HERE/complete_and_claim_delete.sql" >"$SCRIPT"
    if [[ $(grep -c 'job_ready\|FROM unready' "$SCRIPT") -ne 3 ]]; then
      echo "ready_table: complete_and_claim_delete.sql no longer has the claim this model rewrites" >&2
      exit 1
    fi ;;
  *) echo "unknown variant $VARIANT (current | literal_state | ready_table)" >&2; exit 2 ;;
esac
[[ $RUNNING =~ ^[0-9]+$ ]] || { echo "RUNNING: expected a count of jobs, got $RUNNING" >&2; exit 2; }
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-bench} PGPASSWORD=${PGPASSWORD:-bench}
PSQL=(psql -X -q -v ON_ERROR_STOP=1 -d "$DB")
source "$HERE/lib.sh"
baton_bench_jar

baton_fresh_db "$DB"
"${PSQL[@]}" -c "INSERT INTO baton.job (queue, kind, args, state, attempt, attempted_at, attempted_by,
    lease_expires_at, deadline_at, fence)
  SELECT 'other', 'long', '{}', 'running', 1, now(), 'other-node', now() + interval '1 hour',
         now() + interval '2 hours', nextval('baton.job_fence_seq')
  FROM generate_series(1, $RUNNING)"
baton_prefill "$DB" "$N"   # ANALYZE: the statistics see the other node's running jobs
if [[ $VARIANT == ready_table ]]; then
  "${PSQL[@]}" -c "CREATE TABLE baton.job_ready (queue text NOT NULL, priority smallint NOT NULL,
      scheduled_at timestamptz NOT NULL, id bigint NOT NULL)" \
    -c "INSERT INTO baton.job_ready SELECT queue, priority, scheduled_at, id FROM baton.job
        WHERE state = 'available'" \
    -c "CREATE INDEX job_ready_idx ON baton.job_ready (queue, priority, scheduled_at, id)" \
    -c "DROP INDEX baton.job_claim_idx" -c "ANALYZE baton.job_ready"
fi
psql -X -q -d postgres -c "CHECKPOINT" >/dev/null 2>&1 || true
# baton_pgbench reads the script $HERE/<name>.sql
SHIPPED=$HERE; HERE=$(dirname "$SCRIPT")
LOG=$(mktemp)
baton_pgbench "$DB" "$(basename "$SCRIPT" .sql)" "$CLIENTS" "$N" 2>"$LOG" || { cat "$LOG" >&2; exit 1; }
rm -f "$LOG"
HERE=$SHIPPED
DONE=$("${PSQL[@]}" -At -c "SELECT coalesce(sum(n), 0) FROM baton.job_completions")
awk -v v="$VARIANT" -v r="$RUNNING" -v d="$DONE" -v dur="$DUR_S" -v rnd="$ROUND" -v n="$N" 'BEGIN {
  printf "%s running=%d round=%d processed=%d/%d jobs/s=%.0f\n", v, r, rnd, d, n, d / dur }'
