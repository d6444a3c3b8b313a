#!/usr/bin/env bash
# Baton as an external system of the peer-queue benchmark (../shared/bench/peers, README "Adding a
# system from another repository (external command)"). The harness runs this once per measurement,
# with the database and the workload in the environment; dev.baton.bench.HarnessAdapter does the
# work and speaks the protocol on stdout. Register it with an absolute path, e.g. from the root of
# this repository:
#
#   EXTERNAL_SYSTEMS="baton=$PWD/baton-benchmarks/harness.sh; baton-client=env BATON_ENQUEUE_VIA=client $PWD/baton-benchmarks/harness.sh" \
#   W1_SYSTEMS="graphile pgboss baton raw" W2_SYSTEMS="graphile pgboss baton baton-client" \
#   W3_SYSTEMS="graphile pgboss baton raw" ../shared/bench/peers/run.sh
#
# stdout is the protocol channel: the build's output goes to stderr.
#   BATON_HARNESS_JAR=/path/baton-benchmarks.jar  run that jar as it is, no build (pin one build
#                                                 for a whole run while others build this tree;
#                                                 the jar must not change during the run)
#   otherwise the jar is built (mvn package -pl baton-benchmarks -am) when it is missing or older
#   than a source or pom of baton-core / baton-benchmarks.
#   BATON_JAVA_OPTS   extra JVM flags (default none: default JVM flags, as for the peers; the
#                     -c1 rows of docs/BENCHMARKS.md set -XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
#   JAVA_HOME         the JDK that runs it (default: java on the PATH); e.g. a JDK 21+ for
#                     virtual threads
#   BATON_CONCURRENCY, BATON_PREFETCH, BATON_POOL, BATON_ENQUEUE_VIA, BATON_BULK_CHUNK: see HarnessSettings.java
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
JAR=${BATON_HARNESS_JAR:-$ROOT/baton-benchmarks/target/baton-benchmarks.jar}
if [[ -z ${BATON_HARNESS_JAR:-} ]]; then
  if [[ ! -f $JAR || -n $(find "$ROOT/pom.xml" "$ROOT/baton-core/pom.xml" "$ROOT/baton-core/src/main" \
        "$ROOT/baton-benchmarks/pom.xml" "$ROOT/baton-benchmarks/src/main" -newer "$JAR" -print -quit) ]]; then
    echo "[baton harness.sh] building: mvn -q -B -DskipTests package -pl baton-benchmarks -am" >&2
    (cd "$ROOT" && mvn -q -B -Dstyle.color=never -DskipTests package -pl baton-benchmarks -am </dev/null) >&2
  fi
fi
if [[ ! -f $JAR ]]; then
  echo "[baton harness.sh] no jar at $JAR" >&2
  exit 1
fi
# Run a copy that no build touches: a build of this tree during the run rewrites target/ in place,
# and a JVM whose jar changes under it fails at its next class lookup. A pinned jar is used as it
# is; otherwise one copy per build (named by the jar's mtime and size) is kept under $TMPDIR and
# reused by every run, so nothing needs removing when the harness kills a run. exec: the JVM is
# the command itself, in the harness's process group (CPU accounting, kill on timeout).
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
# shellcheck disable=SC2086  # BATON_JAVA_OPTS is a list of flags
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" ${BATON_JAVA_OPTS:-} -cp "$RUN_JAR" dev.baton.bench.HarnessAdapter </dev/null
