#!/usr/bin/env bash
# Refreshes the dashboard's screenshots in docs/images (dashboard-overview.png,
# dashboard-failures.png, dashboard-job.png).
# Runs DashboardBrowserIT alone, which drives a headless Chromium over a seeded dashboard and saves
# them under baton-dashboard/target/screenshots (as it does in every `mvn verify`), then copies
# them to docs/images. Tests never write into the sources; this command is the one way the tracked
# images change. Needs Debian's chromium and chromedriver (apt-get install -y chromium
# chromium-driver), a JDK 17+ and Maven 3.8+; set BATON_TEST_DATABASE_URL to use a running
# PostgreSQL instead of the embedded one.
#
#   baton-dashboard/screenshots.sh
#   git diff --stat docs/images      # then commit the images that changed
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

for exe in /usr/bin/chromium /usr/bin/chromedriver; do
  if [[ ! -x "$exe" ]]; then
    echo "$exe is missing; install it with: apt-get install -y chromium chromium-driver" >&2
    exit 1
  fi
done

shots=baton-dashboard/target/screenshots
rm -rf "$shots"
echo "Running DashboardBrowserIT (mvn verify of baton-dashboard, its other tests skipped) ..." >&2
mvn -q -B -pl baton-dashboard -am verify \
  -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Dit.test=DashboardBrowserIT -Dfailsafe.failIfNoSpecifiedTests=false \
  -Dspotless.check.skip

for name in dashboard-overview.png dashboard-failures.png dashboard-job.png; do
  if [[ ! -s "$shots/$name" ]]; then
    echo "DashboardBrowserIT wrote no $shots/$name; docs/images left as they were" >&2
    exit 1
  fi
done
cp "$shots/dashboard-overview.png" "$shots/dashboard-failures.png" "$shots/dashboard-job.png" \
  docs/images/
echo "docs/images/dashboard-{overview,failures,job}.png refreshed" >&2
