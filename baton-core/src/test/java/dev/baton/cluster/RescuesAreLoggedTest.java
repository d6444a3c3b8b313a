package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.SettableTime;
import dev.baton.internal.cluster.Elector;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.maintenance.Rescuer;
import dev.baton.testing.CapturedLog;
import dev.baton.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** A rescue pass is a WARN naming the jobs it rescued and those it discarded, and their nodes. */
class RescuesAreLoggedTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final TestDatabase db = TestDatabase.get();
  private final DataSource ds = db.admin();
  private final String schema = db.newMigratedSchema();
  private final SchemaName name = SchemaName.of(schema);
  private final HolderStore jobs = new HolderStore(name);
  private final SettableTime time = new SettableTime(Instant.now());
  private final Leadership lead =
      new Elector(
              ds,
              new ClusterStore(name),
              Leadership.MAINTENANCE,
              "leader",
              Duration.ofDays(30),
              time)
          .runOnce();
  private final Rescuer rescuer =
      new Rescuer(ds, new MaintenanceStore(name), new NodeCounters(), time, 2);

  private long insertAndClaim(int maxRescuesLeft) {
    long id =
        db.queryLong(
            "INSERT INTO "
                + schema
                + ".job (queue, kind, metadata) VALUES ('q', 'k', '{\"rescue_count\": "
                + maxRescuesLeft
                + "}') RETURNING id");
    List<ClaimedJob> got =
        jobs.claim(
            ds,
            new HolderStore.ClaimParams(
                "q", 1, "node-x", LEASE, new String[0], new Long[0], Duration.ofMinutes(5)));
    assertThat(got).hasSize(1);
    return id;
  }

  @Test
  void aRescuePassIsAWarnNamingItsJobs() {
    long again = insertAndClaim(0);
    long last = insertAndClaim(19); // the default limit is 20 rescues
    long third = insertAndClaim(0);
    time.advance(LEASE.plusSeconds(5));
    try (CapturedLog log = new CapturedLog()) {
      assertThat(rescuer.runOnce(lead)).isEqualTo(3);
      assertThat(log.lines("WARN", Rescuer.class.getName()))
          .singleElement()
          .asString()
          .contains("rescued 3 jobs whose lease expired or deadline passed")
          .contains("2 to run again (jobs [" + again + ", " + third + "])")
          .contains("1 discarded at their last rescue (jobs [" + last + "])")
          .contains("held by nodes [node-x]");
    }
  }
}
