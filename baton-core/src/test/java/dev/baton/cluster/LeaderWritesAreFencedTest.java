package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.MissedRuns;
import dev.baton.internal.SettableTime;
import dev.baton.internal.cluster.Elector;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.EnqueueStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.db.NotLeaderException;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.maintenance.Cleaner;
import dev.baton.internal.maintenance.MaintenanceService;
import dev.baton.internal.maintenance.NodePruner;
import dev.baton.internal.maintenance.PeriodicEnqueuer;
import dev.baton.internal.maintenance.Rescuer;
import dev.baton.internal.maintenance.Scheduler;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * Invariant 8, maintenance half: a leader that was frozen past its lease, and wakes up believing it
 * still leads, changes nothing — every maintenance write checks the term under a share lock on the
 * leader row. The new leader's same passes do the work.
 */
class LeaderWritesAreFencedTest {
  private static final Duration TTL = Duration.ofSeconds(10);

  private final TestDatabase db = TestDatabase.get();
  private final DataSource ds = db.admin();
  private final String schema = db.newMigratedSchema();
  private final SchemaName name = SchemaName.of(schema);
  private final SettableTime time = new SettableTime(Instant.now());
  private final MaintenanceStore ms = new MaintenanceStore(name);

  @Test
  void everyPassOfAnOldLeaderChangesNothingAndTheNewLeadersPassesWork() {
    ClusterStore cs = new ClusterStore(name);
    Leadership old = new Elector(ds, cs, Leadership.MAINTENANCE, "old", TTL, time).runOnce();
    assertThat(old).isNotNull();

    // Work for every pass: an expired running job, a due retryable job, an old completed job, a
    // silent node, a periodic schedule that falls due.
    db.execute(
        "INSERT INTO "
            + schema
            + ".job (kind, state, attempt, attempted_by, lease_expires_at, fence) VALUES"
            + " ('k', 'running', 1, 'dead', now() + interval '30 seconds', 7)");
    db.execute(
        "INSERT INTO "
            + schema
            + ".job (kind, state, scheduled_at) VALUES ('k', 'retryable', now() + interval '20"
            + " seconds')");
    db.execute(
        "INSERT INTO "
            + schema
            + ".job (kind, state, finalized_at) VALUES ('k', 'completed', now() - interval '23"
            + " hours 59 minutes 50 seconds')");
    db.execute(
        "INSERT INTO "
            + schema
            + ".node (id, host, pid, version, started_at, heartbeat_at) VALUES ('silent', 'h', 1,"
            + " 'v', now(), now())");
    PeriodicEnqueuer.Schedule every10s = schedule();
    List<MaintenanceService> passes =
        List.of(
            new Rescuer(ds, ms, new NodeCounters(), time, 100),
            new Scheduler(ds, ms, time, 100),
            new Cleaner(
                ds,
                ms,
                time,
                new Cleaner.Settings(
                    Duration.ofHours(24),
                    Duration.ofDays(7),
                    Duration.ofDays(7),
                    100,
                    Cleaner.Expired.DELETED)),
            new NodePruner(ds, ms, time, Duration.ofSeconds(30)),
            new PeriodicEnqueuer(ds, ms, new EnqueueStore(name), time, List.of(every10s)));
    passes.get(4).runOnce(old); // registers the schedule while old still leads

    // old freezes; its lease runs out and "new" is elected. Everything is now due.
    time.advance(Duration.ofMinutes(1));
    Leadership fresh = new Elector(ds, cs, Leadership.MAINTENANCE, "new", TTL, time).runOnce();
    assertThat(fresh).isNotNull();
    String before = snapshot();

    for (MaintenanceService pass : passes) {
      assertThatThrownBy(() -> pass.runOnce(old))
          .as(pass.name() + " of the old term")
          .isInstanceOf(NotLeaderException.class);
    }
    assertThat(snapshot()).as("nothing changed").isEqualTo(before);

    assertThat(passes.get(0).runOnce(fresh)).as("rescued").isEqualTo(1);
    assertThat(passes.get(1).runOnce(fresh)).as("scheduled").isEqualTo(2); // + the rescued job
    assertThat(passes.get(2).runOnce(fresh)).as("cleaned").isEqualTo(1);
    assertThat(passes.get(3).runOnce(fresh)).as("pruned").isEqualTo(1);
    assertThat(passes.get(4).runOnce(fresh)).as("periodic runs").isGreaterThan(0);
  }

  @Test
  void aLeaderWhoseLeaseLapsedWithoutATakeoverStillChangesNothing() {
    ClusterStore cs = new ClusterStore(name);
    Leadership lead = new Elector(ds, cs, Leadership.MAINTENANCE, "solo", TTL, time).runOnce();
    db.execute(
        "INSERT INTO "
            + schema
            + ".job (kind, state, attempt, lease_expires_at, fence) VALUES ('k', 'running', 1,"
            + " now() - interval '1 second', 3)");
    time.advance(TTL);
    String before = snapshot();
    assertThatThrownBy(() -> new Rescuer(ds, ms, new NodeCounters(), time, 10).runOnce(lead))
        .isInstanceOf(NotLeaderException.class);
    assertThat(snapshot()).isEqualTo(before);
  }

  private PeriodicEnqueuer.Schedule schedule() {
    var cron =
        new com.cronutils.parser.CronParser(
                com.cronutils.model.definition.CronDefinitionBuilder.instanceDefinitionFor(
                    com.cronutils.model.CronType.SPRING))
            .parse("*/10 * * * * *");
    return new PeriodicEnqueuer.Schedule(
        "tick",
        new PeriodicEnqueuer.Cron(
            "*/10 * * * * *", com.cronutils.model.time.ExecutionTime.forCron(cron), ZoneOffset.UTC),
        MissedRuns.CATCH_UP_ONCE,
        Duration.ofMinutes(5),
        new EnqueueStore.NewJob("default", "k", "{}", 0, 5, null, null, "{}"));
  }

  private String snapshot() {
    StringBuilder sb = new StringBuilder();
    for (String table : List.of("job", "node", "periodic")) {
      sb.append(table)
          .append(':')
          .append(
              db.queryString(
                  "SELECT coalesce(string_agg(t::text, '|' ORDER BY t::text), '') FROM "
                      + schema
                      + "."
                      + table
                      + " t"))
          .append('\n');
    }
    return sb.toString();
  }
}
