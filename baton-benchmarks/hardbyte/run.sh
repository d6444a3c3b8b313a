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
#   than a source or pom it contains, and a copy of it is run (see ../jar.sh).
#   BATON_JAVA_OPTS   extra JVM flags (default none)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../jar.sh
. "$ROOT/baton-benchmarks/jar.sh"
bench_jar "baton hardbyte/run.sh"
bench_run_jar
# exec: the JVM is the process the harness signals.
# shellcheck disable=SC2086  # BATON_JAVA_OPTS is a list of flags
exec java ${BATON_JAVA_OPTS:-} -cp "$RUN_JAR" dev.baton.bench.BenchMain hardbyte
