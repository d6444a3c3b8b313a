#!/usr/bin/env bash
# Baton as an adapter of hardbyte/postgresql-job-queue-benchmarking (its CONTRIBUTING_ADAPTERS.md,
# "Runtime contract"): the long-running process its harness launches natively, with the settings
# in the environment (DATABASE_URL, SCENARIO=long_horizon, PRODUCER_MODE, PRODUCER_RATE,
# TARGET_DEPTH, WORKER_COUNT, JOB_PAYLOAD_BYTES, JOB_WORK_MS, SAMPLE_EVERY_S, ...; see
# dev.baton.bench.hardbyte.HardbyteSettings). stdout is the JSONL channel (a descriptor, then
# samples); the build's output and the logs go to stderr; stdin is left open for the harness's
# "ENQUEUE <n>" lines (PRODUCER_PACING=harness). SIGTERM: exits 0 within 5 s. By hand:
#
#   DATABASE_URL=postgres://bench:bench@127.0.0.1:5432/baton_bench SAMPLE_EVERY_S=1 \
#     baton-benchmarks/hardbyte/run.sh
#
#   BATON_HARNESS_JAR=/path/baton-benchmarks.jar  run that jar as it is, no build
#   otherwise the jar is built (mvn package -pl baton-benchmarks -am) when it is missing or older
#   than a source or pom of baton-core / baton-benchmarks, and a copy of it is run (a build during
#   the run rewrites target/ in place).
#   BATON_JAVA_OPTS   extra JVM flags (default none)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
JAR=${BATON_HARNESS_JAR:-$ROOT/baton-benchmarks/target/baton-benchmarks.jar}
if [[ -z ${BATON_HARNESS_JAR:-} ]]; then
  if [[ ! -f $JAR || -n $(find "$ROOT/pom.xml" "$ROOT/baton-core/pom.xml" "$ROOT/baton-core/src/main" \
        "$ROOT/baton-benchmarks/pom.xml" "$ROOT/baton-benchmarks/src/main" -newer "$JAR" -print -quit) ]]; then
    echo "[baton hardbyte/run.sh] building: mvn -q -B -DskipTests package -pl baton-benchmarks -am" >&2
    (cd "$ROOT" && mvn -q -B -Dstyle.color=never -DskipTests package -pl baton-benchmarks -am </dev/null) >&2
  fi
fi
if [[ ! -f $JAR ]]; then
  echo "[baton hardbyte/run.sh] no jar at $JAR" >&2
  exit 1
fi
if [[ -n ${BATON_HARNESS_JAR:-} ]]; then
  RUN_JAR=$JAR
else
  CACHE=${TMPDIR:-/tmp}/baton-harness-jars-$(id -u)
  mkdir -p "$CACHE"
  RUN_JAR=$CACHE/baton-benchmarks-$(stat -c '%Y-%s' "$JAR").jar
  if [[ ! -f $RUN_JAR ]]; then
    TMP=$(mktemp "$CACHE/.copy.XXXXXX")
    cp "$JAR" "$TMP" && mv -f "$TMP" "$RUN_JAR"
  fi
fi
# exec: the JVM is the process the harness signals.
# shellcheck disable=SC2086  # BATON_JAVA_OPTS is a list of flags
exec java ${BATON_JAVA_OPTS:-} -cp "$RUN_JAR" dev.baton.bench.BenchMain hardbyte
