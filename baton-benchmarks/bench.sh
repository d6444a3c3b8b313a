#!/usr/bin/env bash
# Builds the benchmark jar (and the core it uses) from the repository root, then runs it:
#   baton-benchmarks/bench.sh drain [--jobs 20000,100000] [--workers 64] [--database-url URL]
#   baton-benchmarks/bench.sh latency [--jobs 500] [--rate 50]
#   baton-benchmarks/bench.sh enqueue [--jobs 2000]
#   baton-benchmarks/bench.sh sweep [--workers 1,2,4,8,16,32,64,128,256] [--jobs 20000] \
#       [--rounds 3] [--csv sweep.csv] [--png sweep.png]
#   baton-benchmarks/bench.sh plot --csv jdk17.csv,jdk25.csv --png sweep.png [--ref graphile=13288]
#   baton-benchmarks/bench.sh all \
#       --database-url 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres'
# Build output and progress go to stderr; the block of figures is printed last, on stdout.
# BENCH_SKIP_BUILD=1 runs the jar as it is; BENCH_JAVA_OPTS adds JVM flags (default: none).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAR=$ROOT/baton-benchmarks/target/baton-benchmarks.jar
if [[ ${BENCH_SKIP_BUILD:-0} != 1 ]]; then
  echo "[bench.sh] building: mvn -q -B -DskipTests install -pl baton-benchmarks -am" >&2
  (cd "$ROOT" && mvn -q -B -DskipTests install -pl baton-benchmarks -am) >&2
fi
# Run a private copy: a build of the reactor during the run rewrites target/ in place, and a JVM
# whose jar changes under it fails at its next class or service lookup.
RUN_JAR=$(mktemp "${TMPDIR:-/tmp}/baton-benchmarks.XXXXXX.jar")
trap 'rm -f "$RUN_JAR"' EXIT
cp "$JAR" "$RUN_JAR"
cd "$ROOT"
java ${BENCH_JAVA_OPTS:-} -jar "$RUN_JAR" "$@"
