#!/usr/bin/env bash
# How long the dashboard's bulk retry and bulk delete of 10,000 jobs take (server time), three
# rounds; see BulkSpeed. Needs a PostgreSQL to fill a schema "dashboard_bulk" in.
#
#   bash baton-dashboard/bench/bulk.sh [JDBC_URL]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
url="${1:-${BATON_TEST_DATABASE_URL:?pass a JDBC URL or set BATON_TEST_DATABASE_URL}}"
cd "$root"
mvn -q -B -pl baton-dashboard -am -DskipTests -Dspotless.check.skip=true test-compile \
  dependency:build-classpath -Dmdep.outputFile=target/bulk.classpath -Dmdep.includeScope=test
cp="baton-dashboard/target/test-classes:baton-dashboard/target/classes"
cp="$cp:baton-core/target/test-classes:baton-core/target/classes:$(cat baton-dashboard/target/bulk.classpath)"
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"
exec "$java" -cp "$cp" dev.baton.dashboard.bench.BulkSpeed "$url"
