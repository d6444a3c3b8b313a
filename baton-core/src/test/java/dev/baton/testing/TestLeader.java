package dev.baton.testing;

import dev.baton.internal.SettableTime;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.maintenance.Rescuer;
import dev.baton.internal.maintenance.Scheduler;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * A test's own leader of a schema, on a settable clock: elected with a lease of a day, it runs the
 * rescuer and scheduler when told, so a test moves time past a lease instead of sleeping.
 */
public final class TestLeader {
  private final SettableTime time;
  private final Leadership lead;
  private final Rescuer rescuer;
  private final Scheduler scheduler;

  private TestLeader(DataSource ds, String schema, String nodeId) {
    SchemaName s = SchemaName.of(schema);
    this.time = new SettableTime(Instant.now());
    long term =
        new ClusterStore(s)
            .elect(ds, Leadership.MAINTENANCE, nodeId, Duration.ofDays(1), time.now());
    if (term < 0) {
      throw new IllegalStateException("another node leads schema " + schema);
    }
    this.lead = new Leadership(Leadership.MAINTENANCE, nodeId, term);
    MaintenanceStore ms = new MaintenanceStore(s);
    this.rescuer = new Rescuer(ds, ms, new NodeCounters(), time, 1_000);
    this.scheduler = new Scheduler(ds, ms, time, 1_000);
  }

  /** Elects a test leader of {@code schema}, its clock reading the JVM's now. */
  public static TestLeader elect(DataSource ds, String schema) {
    return new TestLeader(ds, schema, "test-leader");
  }

  /** Moves the leader's clock forward. */
  public void advance(Duration d) {
    time.advance(d);
  }

  /** One rescue pass. */
  public int rescue() {
    return rescuer.runOnce(lead);
  }

  /** One schedule pass. */
  public int schedule() {
    return scheduler.runOnce(lead);
  }
}
