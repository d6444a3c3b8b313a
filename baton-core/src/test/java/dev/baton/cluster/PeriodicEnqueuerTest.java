package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.cronutils.model.CronType;
import com.cronutils.model.definition.CronDefinitionBuilder;
import com.cronutils.model.time.ExecutionTime;
import com.cronutils.parser.CronParser;
import dev.baton.InvalidConfigException;
import dev.baton.JobArgs;
import dev.baton.MissedRuns;
import dev.baton.PeriodicJob;
import dev.baton.internal.SettableTime;
import dev.baton.internal.cluster.Elector;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.maintenance.PeriodicEnqueuer;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Periodic jobs on a settable clock: one job per due time, keyed by it; nothing before it is due;
 * runs missed while no leader was up follow the schedule's policy; a pass repeated after its
 * progress was lost enqueues nothing twice. No sleeps.
 */
class PeriodicEnqueuerTest {
  private static final CronParser WITH_SECONDS =
      new CronParser(CronDefinitionBuilder.instanceDefinitionFor(CronType.SPRING));

  private final TestDatabase db = TestDatabase.get();
  private final DataSource ds = db.admin();
  private final String schema = db.newMigratedSchema();
  private final SchemaName name = SchemaName.of(schema);
  // 12:00:03 UTC on a fixed day: due times of "*/10 * * * * *" are :10, :20, ...
  private final SettableTime time = new SettableTime(Instant.parse("2030-01-01T12:00:03Z"));
  private final Leadership lead =
      new Elector(
              ds, new ClusterStore(name), Leadership.MAINTENANCE, "l", Duration.ofDays(30), time)
          .runOnce();

  private PeriodicEnqueuer enqueuer(String expr, MissedRuns missed, ZoneId zone) {
    PeriodicEnqueuer.Schedule s =
        new PeriodicEnqueuer.Schedule(
            "report",
            new PeriodicEnqueuer.Cron(expr, ExecutionTime.forCron(WITH_SECONDS.parse(expr)), zone),
            missed,
            Duration.ofMinutes(1),
            new EnqueueStore.NewJob("q", "report", "{\"n\":1}", 0, 3, null, null, "{}"));
    return new PeriodicEnqueuer(
        ds, new MaintenanceStore(name), new EnqueueStore(name), time, List.of(s));
  }

  private List<String> keys() {
    String all =
        db.queryString(
            "SELECT coalesce(string_agg(idempotency_key, ',' ORDER BY idempotency_key), '') FROM "
                + schema
                + ".job");
    return all.isEmpty() ? List.of() : List.of(all.split(","));
  }

  @Test
  void eachDueTimeEnqueuesOneJobKeyedByItAndNothingBeforeItIsDue() {
    PeriodicEnqueuer p = enqueuer("*/10 * * * * *", MissedRuns.CATCH_UP_ONCE, ZoneOffset.UTC);
    assertThat(p.runOnce(lead)).as("first sight registers, fires nothing").isZero();
    time.advance(Duration.ofSeconds(6)); // 12:00:09
    assertThat(p.runOnce(lead)).isZero();
    time.advance(Duration.ofSeconds(1)); // 12:00:10
    assertThat(p.runOnce(lead)).isEqualTo(1);
    assertThat(p.runOnce(lead)).as("same due time again").isZero();
    time.advance(Duration.ofSeconds(25)); // 12:00:35: :20 and :30
    assertThat(p.runOnce(lead)).isEqualTo(2);
    assertThat(keys())
        .containsExactly(
            "baton:periodic:report:2030-01-01T12:00:10Z",
            "baton:periodic:report:2030-01-01T12:00:20Z",
            "baton:periodic:report:2030-01-01T12:00:30Z");
    assertThat(
            db.queryString(
                "SELECT metadata->>'due_at' || ' ' || state || ' ' || queue || ' ' || args::text"
                    + " FROM "
                    + schema
                    + ".job ORDER BY id LIMIT 1"))
        .isEqualTo("2030-01-01T12:00:10Z available q {\"n\": 1}");
  }

  @Test
  void runsMissedWhileNoLeaderWasUpAreCaughtUpOnceAndRecentOnesEachRun() {
    PeriodicEnqueuer p = enqueuer("*/10 * * * * *", MissedRuns.CATCH_UP_ONCE, ZoneOffset.UTC);
    p.runOnce(lead);
    time.advance(Duration.ofMinutes(10)); // 12:10:03; tolerance 1 min: 12:09:10 .. 12:10:00 on time
    assertThat(p.runOnce(lead)).isEqualTo(1 + 6);
    assertThat(keys())
        .first()
        .as("the latest missed due time stands for all missed")
        .isEqualTo("baton:periodic:report:2030-01-01T12:09:00Z");
    assertThat(keys()).last().isEqualTo("baton:periodic:report:2030-01-01T12:10:00Z");
  }

  @Test
  void skipPolicyDropsMissedRunsButKeepsRecentOnes() {
    PeriodicEnqueuer p = enqueuer("*/10 * * * * *", MissedRuns.SKIP, ZoneOffset.UTC);
    p.runOnce(lead);
    time.advance(Duration.ofMinutes(10));
    assertThat(p.runOnce(lead)).isEqualTo(6);
    assertThat(keys()).first().isEqualTo("baton:periodic:report:2030-01-01T12:09:10Z");
  }

  @Test
  void aPassRepeatedAfterItsProgressWasLostEnqueuesNothingTwice() {
    PeriodicEnqueuer p = enqueuer("*/10 * * * * *", MissedRuns.CATCH_UP_ONCE, ZoneOffset.UTC);
    p.runOnce(lead);
    time.advance(Duration.ofSeconds(30));
    assertThat(p.runOnce(lead)).isEqualTo(3);
    // As if the pass had committed but its caller never heard: a new leader starts from the old
    // progress and tries the same due times again.
    db.execute(
        "UPDATE "
            + schema
            + ".periodic SET last_due_at = '2030-01-01T12:00:03Z' WHERE name = 'report'");
    p.runOnce(lead);
    assertThat(db.queryLong("SELECT count(*) FROM " + schema + ".job")).isEqualTo(3);
  }

  @Test
  void theExpressionIsEvaluatedInTheSchedulesZone() {
    // 03:00 in Kathmandu (+05:45) is 21:15 UTC the day before.
    PeriodicEnqueuer p =
        enqueuer("0 0 3 * * *", MissedRuns.CATCH_UP_ONCE, ZoneId.of("Asia/Kathmandu"));
    p.runOnce(lead);
    time.advance(Duration.between(time.now(), Instant.parse("2030-01-01T21:15:00Z")));
    assertThat(p.runOnce(lead)).isEqualTo(1);
    assertThat(keys()).containsExactly("baton:periodic:report:2030-01-01T21:15:00Z");
  }

  @Test
  void dueTimesFallOnWholeSecondsWhateverTheFractionOfTheFirstPass() {
    time.advance(Duration.ofMillis(606)); // 12:00:03.606
    PeriodicEnqueuer p = enqueuer("* * * * * *", MissedRuns.CATCH_UP_ONCE, ZoneOffset.UTC);
    p.runOnce(lead);
    time.advance(Duration.ofMillis(2_500)); // 12:00:06.106
    assertThat(p.runOnce(lead)).isEqualTo(3);
    assertThat(keys())
        .containsExactly(
            "baton:periodic:report:2030-01-01T12:00:04Z",
            "baton:periodic:report:2030-01-01T12:00:05Z",
            "baton:periodic:report:2030-01-01T12:00:06Z");
    time.advance(Duration.ofMillis(900)); // 12:00:07.006
    assertThat(p.runOnce(lead)).isEqualTo(1);
    assertThat(keys()).last().isEqualTo("baton:periodic:report:2030-01-01T12:00:07Z");
  }

  record Report(int n) implements JobArgs {}

  @Test
  void badSchedulesAreRefusedWithTheExpectedFormat() {
    assertThatThrownBy(() -> PeriodicJob.cron("r", "every day", new Report(1)))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("schedule of periodic job r")
        .hasMessageContaining("5 fields");
    assertThatThrownBy(() -> PeriodicJob.cron("r", "61 * * * *", new Report(1)))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("61 * * * *");
    assertThatThrownBy(() -> PeriodicJob.cron("bad name!", "* * * * *", new Report(1)))
        .isInstanceOf(InvalidConfigException.class)
        .hasMessageContaining("periodic job name");
    assertThat(PeriodicJob.cron("ok", "*/5 * * * * *", new Report(1)).expression())
        .isEqualTo("*/5 * * * * *");
  }
}
