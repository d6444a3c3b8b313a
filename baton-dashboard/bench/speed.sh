#!/usr/bin/env bash
# How fast the dashboard's job list and detail answer on a table of 1,000,000 jobs (or JOBS):
# builds the module's test classes, then runs dev.baton.dashboard.bench.DashboardSpeed against
# JDBC_URL (default $BATON_TEST_DATABASE_URL), in a schema dashboard_speed that it drops and fills.
# Prints the server time per page (median, p95, max of 30 requests) and each statement's plan.
# A third argument `reuse` keeps the schema an earlier run filled (with the same JOBS) instead of
# filling it again, which takes minutes; the schema is only migrated to the current version.
#   bash baton-dashboard/bench/speed.sh 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres'
#   bash baton-dashboard/bench/speed.sh 'jdbc:postgresql://127.0.0.1:5432/test?user=postgres' 1000000 reuse
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
url="${1:-${BATON_TEST_DATABASE_URL:?pass a JDBC URL or set BATON_TEST_DATABASE_URL}}"
jobs="${2:-1000000}"
reuse="${3:-}"
cd "$root"
mvn -q -B -pl baton-dashboard -am -DskipTests -Dspotless.check.skip=true test-compile \
  dependency:build-classpath -Dmdep.outputFile=target/speed.classpath -Dmdep.includeScope=test
cp="baton-dashboard/target/test-classes:baton-dashboard/target/classes"
cp="$cp:baton-core/target/test-classes:baton-core/target/classes:$(cat baton-dashboard/target/speed.classpath)"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
exec "$java" -cp "$cp" dev.baton.dashboard.bench.DashboardSpeed "$url" "$jobs" $reuse
