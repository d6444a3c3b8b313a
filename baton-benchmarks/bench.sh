#!/usr/bin/env bash
# Builds the benchmark jar (baton-core, baton-cli and baton-benchmarks, mvn package) from the
# repository root when it is older than a source, then runs a copy of it:
#   baton-benchmarks/bench.sh drain [--jobs 20000,100000] [--workers 64] [--database-url URL]
#   baton-benchmarks/bench.sh latency [--jobs 500] [--rate 50]
#   baton-benchmarks/bench.sh enqueue [--jobs 2000]
#   baton-benchmarks/bench.sh memory [--jobs 1000]
#   baton-benchmarks/bench.sh soak [--rate 2000] [--minutes 30] [--csv PATH]   (soak --help)
#   baton-benchmarks/bench.sh idle [--shapes 1x1,10x1,10x10,10x100]   (idle --help)
#   baton-benchmarks/bench.sh fleet [--nodes 1,5,20] [--queues 1,50]   (fleet --help)
#   baton-benchmarks/bench.sh sweep [--workers 1,2,4,8,16,32,64,128,256] [--jobs 20000] \
#       [--rounds 3] [--csv sweep.csv] [--png sweep.png]
#   baton-benchmarks/bench.sh plot --csv jdk17.csv,jdk25.csv --png sweep.png [--ref graphile=13288]
#   baton-benchmarks/bench.sh all \
#       --database-url 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres'
# Build output and progress go to stderr; the block of figures is printed last, on stdout.
# BENCH_SKIP_BUILD=1 runs the jar as it is; BATON_BENCH_JAR=PATH runs that jar (no build);
# BENCH_JAVA_OPTS adds JVM flags (default: none).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=jar.sh
. "$ROOT/baton-benchmarks/jar.sh"
if [[ ${BENCH_SKIP_BUILD:-0} == 1 ]]; then
  BATON_BENCH_JAR=${BATON_BENCH_JAR:-$ROOT/baton-benchmarks/target/baton-benchmarks.jar}
fi
bench_jar bench.sh
bench_run_jar
cd "$ROOT"
# shellcheck disable=SC2086  # BENCH_JAVA_OPTS is a list of flags
java ${BENCH_JAVA_OPTS:-} -jar "$RUN_JAR" "$@"
