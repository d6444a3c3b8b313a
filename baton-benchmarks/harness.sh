#!/usr/bin/env bash
# Baton as an external system of the peer-queue benchmark (../shared/bench/peers, README "Adding a
# system from another repository (external command)"). The harness runs this once per measurement,
# with the database and the workload in the environment; dev.baton.bench.HarnessAdapter does the
# work and speaks the protocol on stdout. With no BATON_* tuning it runs the default configuration:
# BatonConfig defaults, default JVM flags, and the queue concurrency the harness gives
# graphile-worker (GW_CONCURRENCY, else 24). Any BATON_* tuning below (or BATON_JAVA_OPTS) makes it
# a tuned run, reported as such in its info line; give those labels of their own. Register it with
# an absolute path, e.g. from the root of this repository:
#
#   EXTERNAL_SYSTEMS="baton=$PWD/baton-benchmarks/harness.sh; baton-client=env BATON_ENQUEUE_VIA=client $PWD/baton-benchmarks/harness.sh; baton-tuned=env BATON_CONCURRENCY=64 BATON_PREFETCH=2048 BATON_KEEP_COMPLETED=false $PWD/baton-benchmarks/harness.sh" \
#   W1_SYSTEMS="graphile pgboss baton baton-tuned raw" W2_SYSTEMS="graphile pgboss baton baton-client" \
#   W3_SYSTEMS="graphile pgboss baton raw" ../shared/bench/peers/run.sh
#
# stdout is the protocol channel: the build's output goes to stderr.
#   BATON_HARNESS_JAR=/path/baton-benchmarks.jar  run that jar as it is, no build (pin one build
#                     for a whole run while others build this tree; see jar.sh); otherwise the jar
#                     is built when it is missing or older than a source or pom it contains
#   BATON_JAVA_OPTS   extra JVM flags (default none: default JVM flags, as for the peers; the
#                     -c1 rows of docs/BENCHMARKS.md set -XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
#   JAVA_HOME         the JDK that runs it (default: java on the PATH); e.g. a JDK 21+ for
#                     virtual threads
#   BATON_CONCURRENCY, BATON_PREFETCH, BATON_POOL, BATON_ENQUEUE_VIA, BATON_BULK_CHUNK,
#   BATON_BATCH_HANDLER (W1 with a batch handler of up to n jobs a call): see HarnessSettings.java
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=jar.sh
. "$ROOT/baton-benchmarks/jar.sh"
bench_jar "baton harness.sh"
bench_run_jar
# exec: the JVM is the command itself, in the harness's process group (CPU accounting, kill on
# timeout).
# shellcheck disable=SC2086  # BATON_JAVA_OPTS is a list of flags
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" ${BATON_JAVA_OPTS:-} -cp "$RUN_JAR" dev.baton.bench.HarnessAdapter </dev/null
