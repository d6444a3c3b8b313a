# Shared by run.sh, harness.sh and scale.sh: what every pgbench measurement of Baton's SQL does the
# same way. Source it after setting HERE (this folder) and ROOT (the repository).

# The benchmark jar (for Migrator.print()), built when missing or older than a source, unless
# BATON_BENCH_JAR names one (../jar.sh).
# shellcheck source=../jar.sh
. "$ROOT/baton-benchmarks/jar.sh"
baton_bench_jar() {
  bench_jar pgbench
}

# Baton's schema (every migration, in schema "baton") in database $1.
baton_schema() {
  java -cp "$JAR" dev.baton.bench.pgbench.PrintSchema baton |
    psql -X -q -v ON_ERROR_STOP=1 -d "$1" -1 -f - >/dev/null
}

# Database $1 dropped (it must not be in use by anything that matters) and created again, with
# Baton's schema.
baton_fresh_db() {
  PGOPTIONS=--client-min-messages=warning psql -X -q -v ON_ERROR_STOP=1 -d postgres \
    -c "DROP DATABASE IF EXISTS $1 WITH (FORCE)" -c "CREATE DATABASE $1" >/dev/null
  baton_schema "$1"
}

# $2 available jobs in database $1, one INSERT ... SELECT, then ANALYZE (load.sql).
baton_prefill() {
  psql -X -q -v ON_ERROR_STOP=1 -d "$1" -v n="$2" -f "$HERE/load.sql" >/dev/null
}

# Drains $4 jobs of database $1 with script $2 on $3 pgbench clients, $BATCH jobs per claim.
# Sets XACTS, TPS, LAT (ms), FAILED from pgbench's report (which goes to stderr) and DUR_S, the
# time of the measured transactions (xacts / tps: pgbench excludes connection set-up).
baton_pgbench() {
  local db=$1 variant=$2 clients=$3 n=$4
  # enough script runs per client to drain n jobs, plus a quarter and 2 spare: clients do not
  # share the batches evenly, SKIP LOCKED may come back short at the very end while other clients
  # hold the last rows, and complete_and_claim completes a client's last batch in the transaction
  # after it, so a client must not end on a claim. A spare run on an empty queue is one cheap
  # statement (about 0.1 ms), counted in the elapsed time.
  local share=$(( (n + BATCH * clients - 1) / (BATCH * clients) ))
  local t=$(( share + share / 4 + 2 ))
  local threads=$(( clients < 2 ? clients : 2 ))
  local vars=(-D queue=default -D batch="$BATCH" -D node=pgbench -D lease_ms=30000
              -D 'timeout_kinds={}' -D 'timeout_ms={}' -D default_timeout_ms=300000
              -D 'ids={}' -D 'fences={}')
  local cmd=(pgbench -n -M prepared -c "$clients" -j "$threads" -t "$t" "${vars[@]}"
             -f "$HERE/$variant.sql" "$db")
  echo "[pgbench] ${cmd[*]}" >&2
  local out
  out=$("${cmd[@]}" 2>&1) || { echo "$out" >&2; return 1; }
  echo "$out" >&2
  XACTS=$(awk -F': ' '/number of transactions actually processed/ {split($2,a,"/"); print a[1]}' <<<"$out")
  TPS=$(awk '/^tps = / {print $3}' <<<"$out")
  LAT=$(awk '/^latency average = / {print $4}' <<<"$out")
  FAILED=$(awk -F': ' '/number of failed transactions/ {split($2,a," "); print a[1]}' <<<"$out")
  FAILED=${FAILED:-0}
  DUR_S=$(awk -v x="$XACTS" -v tps="$TPS" 'BEGIN { printf "%.6f", x / tps }')
}
