package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.internal.SettableTime;
import dev.baton.internal.cluster.Elector;
import dev.baton.internal.db.AdminStore;
import dev.baton.internal.db.ClaimedJob;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.Finish;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.held.NodeCounters;
import dev.baton.internal.maintenance.Cleaner;
import dev.baton.internal.maintenance.NodePruner;
import dev.baton.internal.maintenance.Rescuer;
import dev.baton.internal.maintenance.Scheduler;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;

/**
 * The rescuer, scheduler, cleaner and node pruner, each driven by {@code runOnce()} on a settable
 * clock: nothing happens a moment too early, everything due happens in one pass, and a job its
 * holder finished meanwhile is left alone. No sleeps.
 */
class MaintenancePassesTest {
  private static final Duration LEASE = Duration.ofSeconds(30);

  private final TestDatabase db = TestDatabase.get();
  private final DataSource ds = db.admin();
  private final String schema = db.newMigratedSchema();
  private final SchemaName name = SchemaName.of(schema);
  private final HolderStore jobs = new HolderStore(name);
  private final MaintenanceStore ms = new MaintenanceStore(name);
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
  private final NodeCounters counters = new NodeCounters();
  private final Rescuer rescuer = new Rescuer(ds, ms, counters, time, 2);

  private long insert(String queue, int maxAttempts) {
    return db.queryLong(
        "INSERT INTO "
            + schema
            + ".job (queue, kind, max_attempts) VALUES ('"
            + queue
            + "', 'k', "
            + maxAttempts
            + ") RETURNING id");
  }

  private ClaimedJob claim(String queue, String node) {
    List<ClaimedJob> got =
        jobs.claim(
            ds,
            new HolderStore.ClaimParams(
                queue, 1, node, LEASE, new String[0], new Long[0], Duration.ofMinutes(5)));
    assertThat(got).hasSize(1);
    return got.get(0);
  }

  private String state(long id) {
    return db.queryString("SELECT state FROM " + schema + ".job WHERE id = " + id);
  }

  @Test
  void rescuerReturnsAJobOnlyOnceItsLeaseRanOutAndSaysWhy() {
    long id = insert("r1", 5);
    claim("r1", "node-x");

    assertThat(rescuer.runOnce(lead)).isZero();
    time.advance(LEASE.minusSeconds(2)); // the database clock moved a little too; leave margin
    assertThat(rescuer.runOnce(lead)).as("lease not yet over").isZero();
    time.advance(Duration.ofSeconds(5));
    assertThat(rescuer.runOnce(lead)).isEqualTo(1);

    assertThat(state(id)).isEqualTo("retryable");
    assertThat(
            db.queryString("SELECT errors->0->>'message' FROM " + schema + ".job WHERE id = " + id))
        .startsWith("lease expired on node node-x");
    assertThat(
            db.queryLong(
                "SELECT (metadata->>'rescue_count')::int FROM " + schema + ".job WHERE id = " + id))
        .isEqualTo(1);
    assertThat(counters.rescued.sum()).isEqualTo(1);
  }

  @Test
  void rescuerDiscardsAtMaxAttemptsCancelsWhenAskedAndNamesAPassedDeadline() {
    long last = insert("r2", 1);
    claim("r2", "n");
    long cancelled = insert("r2", 5);
    claim("r2", "n");
    new AdminStore(name).cancel(ds, cancelled);
    long overran = insert("r2", 5);
    claim("r2", "n");
    // A holder that keeps heartbeating but overran: its lease is fresh, its deadline passed.
    db.execute(
        "UPDATE "
            + schema
            + ".job SET lease_expires_at = now() + interval '1 day' WHERE id = "
            + overran);

    time.advance(Duration.ofMinutes(10).plus(LEASE).plusSeconds(5));
    assertThat(rescuer.runOnce(lead)).as("three jobs, pages of two").isEqualTo(3);

    assertThat(state(last)).isEqualTo("discarded");
    assertThat(state(cancelled)).isEqualTo("cancelled");
    assertThat(state(overran)).isEqualTo("retryable");
    assertThat(
            db.queryString(
                "SELECT errors->0->>'error' FROM " + schema + ".job WHERE id = " + overran))
        .isEqualTo("deadline_exceeded");
  }

  /**
   * A job whose holders keep dying, its handler never failing: 25 rescues under maxAttempts(20)
   * leave it waiting with its attempt given back each time; the rescue limit, not the attempts,
   * discards a job that is rescued too often.
   */
  @Test
  void rescuesDoNotUseUpAttemptsAndObeyALimitOfTheirOwn() {
    Scheduler scheduler = new Scheduler(ds, ms, time, 10);
    Rescuer lenient =
        new Rescuer(
            ds,
            ms,
            counters,
            time,
            new Rescuer.Settings(10, 30, null)); // allows 29 rescues, discards at 30
    long kept = insert("r9", 20);
    for (int i = 1; i <= 25; i++) {
      ClaimedJob c = claimForADay("r9");
      assertThat(c.attempt()).as("claim %d", i).isEqualTo(1);
      time.advance(LEASE.plusSeconds(5));
      assertThat(lenient.runOnce(lead)).as("rescue %d", i).isEqualTo(1);
      assertThat(state(kept)).as("after rescue %d", i).isEqualTo("retryable");
      scheduler.runOnce(lead);
    }
    assertThat(db.queryLong("SELECT attempt FROM " + schema + ".job WHERE id = " + kept)).isZero();
    assertThat(
            db.queryLong(
                "SELECT (metadata->>'rescue_count')::int FROM "
                    + schema
                    + ".job WHERE id = "
                    + kept))
        .isEqualTo(25);

    Rescuer byDefault = new Rescuer(ds, ms, counters, time, 10); // maxRescues 20
    long limited = insert("r10", 20);
    for (int i = 1; i <= dev.baton.BatonConfig.DEFAULT_MAX_RESCUES; i++) {
      claimForADay("r10");
      time.advance(LEASE.plusSeconds(5));
      assertThat(byDefault.runOnce(lead)).as("rescue %d", i).isEqualTo(1);
      scheduler.runOnce(lead);
    }
    assertThat(state(limited)).isEqualTo("discarded");
    assertThat(db.queryLong("SELECT attempt FROM " + schema + ".job WHERE id = " + limited))
        .isZero();
  }

  private ClaimedJob claimForADay(String queue) {
    List<ClaimedJob> got =
        jobs.claim(
            ds,
            new HolderStore.ClaimParams(
                queue, 1, "crashing-node", LEASE, new String[0], new Long[0], Duration.ofDays(1)));
    assertThat(got).hasSize(1);
    return got.get(0);
  }

  @Test
  void rescuerLeavesAJobItsHolderFinishedMeanwhile() throws Exception {
    long id = insert("r3", 5);
    ClaimedJob c = claim("r3", "n");
    assertThat(jobs.finishIfHeld(ds, List.of(Finish.completed(id, c.fence())))).contains(c.fence());
    time.advance(LEASE.multipliedBy(2));
    assertThat(rescuer.runOnce(lead)).isZero();
    assertThat(state(id)).isEqualTo("completed");
  }

  @Test
  void schedulerMakesDueJobsAvailableAndNotifiesTheirQueue() throws Exception {
    long later =
        db.queryLong(
            "INSERT INTO "
                + schema
                + ".job (queue, kind, state, scheduled_at) VALUES ('s1', 'k', 'scheduled', now() +"
                + " interval '1 hour') RETURNING id");
    Scheduler scheduler = new Scheduler(ds, ms, time, 10);
    try (Connection listen = ds.getConnection()) {
      listen.setAutoCommit(true);
      try (Statement st = listen.createStatement()) {
        st.execute("LISTEN \"" + name.insertChannel() + "\"");
      }
      assertThat(scheduler.runOnce(lead)).isZero();
      time.advance(Duration.ofMinutes(59));
      assertThat(scheduler.runOnce(lead)).isZero();
      time.advance(Duration.ofMinutes(2));
      assertThat(scheduler.runOnce(lead)).isEqualTo(1);
      assertThat(state(later)).isEqualTo("available");
      PGNotification[] got = listen.unwrap(PGConnection.class).getNotifications(5_000);
      assertThat(got).isNotNull();
      assertThat(got[0].getParameter()).isEqualTo("s1");
    }
  }

  @Test
  void cleanerDeletesTheDependencyEdgesOfTheJobsItDeletesAndKeepsThoseOfLiveDependents() {
    long a =
        db.queryLong(
            "INSERT INTO "
                + schema
                + ".job (kind, state, finalized_at) VALUES ('k', 'completed', now()) RETURNING id");
    long b =
        db.queryLong(
            "INSERT INTO "
                + schema
                + ".job (kind, state, finalized_at) VALUES ('k', 'completed', now()) RETURNING id");
    long c = db.queryLong("INSERT INTO " + schema + ".job (kind) VALUES ('k') RETURNING id");
    db.execute(
        "INSERT INTO "
            + schema
            + ".job_dependency (job_id, depends_on, state) VALUES ("
            + b
            + ", "
            + a
            + ", 'completed'), ("
            + c
            + ", "
            + a
            + ", 'completed')");
    Cleaner cleaner =
        new Cleaner(
            ds,
            ms,
            time,
            new Cleaner.Settings(
                Duration.ofHours(1),
                Duration.ofDays(7),
                Duration.ofDays(7),
                10,
                Cleaner.Expired.DELETED));
    time.advance(Duration.ofHours(2));
    assertThat(cleaner.runOnce(lead)).isEqualTo(2);
    assertThat(
            db.queryLong("SELECT count(*) FROM " + schema + ".job_dependency WHERE job_id = " + b))
        .isZero();
    assertThat(
            db.queryLong("SELECT count(*) FROM " + schema + ".job_dependency WHERE job_id = " + c))
        .as("the edge of a live dependent keeps its cleaned dependency's state")
        .isEqualTo(1);
  }

  @Test
  void cleanerDeletesEachFinishedStateAfterItsOwnRetentionInBoundedBatches() {
    db.execute(
        "INSERT INTO "
            + schema
            + ".job (kind, state, finalized_at) SELECT 'k', 'completed', now() FROM"
            + " generate_series(1, 25)");
    db.execute(
        "INSERT INTO "
            + schema
            + ".job (kind, state, finalized_at) VALUES ('k', 'discarded', now()), ('k',"
            + " 'cancelled', now())");
    long live = insert("c1", 5);
    Cleaner cleaner =
        new Cleaner(
            ds,
            ms,
            time,
            new Cleaner.Settings(
                Duration.ofHours(24),
                Duration.ofDays(7),
                Duration.ofDays(7),
                10,
                Cleaner.Expired.DELETED));

    assertThat(cleaner.runOnce(lead)).isZero();
    time.advance(Duration.ofHours(24).plusMinutes(1));
    assertThat(cleaner.runOnce(lead)).as("25 completed, in batches of 10").isEqualTo(25);
    assertThat(db.queryLong("SELECT count(*) FROM " + schema + ".job")).isEqualTo(3);
    time.advance(Duration.ofDays(7));
    assertThat(cleaner.runOnce(lead)).isEqualTo(2);
    assertThat(db.queryLong("SELECT count(*) FROM " + schema + ".job")).isEqualTo(1);
    assertThat(state(live)).isEqualTo("available");
  }

  @Test
  void cleanerDeletesCompletionCountsOlderThanADay() {
    db.execute(
        "INSERT INTO "
            + schema
            + ".job_completions (bucket, queue, node, pid, n) VALUES (now(), 'q', 'a', 1, 5),"
            + " (now() - interval '12 hours', 'q', 'a', 1, 3)");
    Cleaner cleaner =
        new Cleaner(
            ds,
            ms,
            time,
            new Cleaner.Settings(
                Duration.ofHours(24),
                Duration.ofDays(7),
                Duration.ofDays(7),
                10,
                Cleaner.Expired.DELETED));
    cleaner.runOnce(lead);
    assertThat(db.queryLong("SELECT sum(n) FROM " + schema + ".job_completions")).isEqualTo(8);
    time.advance(Duration.ofHours(12).plusMinutes(1));
    cleaner.runOnce(lead);
    assertThat(db.queryLong("SELECT sum(n) FROM " + schema + ".job_completions")).isEqualTo(5);
    time.advance(Duration.ofHours(12));
    cleaner.runOnce(lead);
    assertThat(db.queryLong("SELECT count(*) FROM " + schema + ".job_completions")).isZero();
  }

  @Test
  void cleanerWithArchiveMovesRowsWhole() {
    long id =
        db.queryLong(
            "INSERT INTO "
                + schema
                + ".job (kind, args, state, finalized_at, idempotency_key) VALUES ('k',"
                + " '{\"a\":1}', 'completed', now(), 'key-1') RETURNING id");
    db.execute(
        "UPDATE "
            + schema
            + ".job SET output = '{\"o\":1}', steps = '{}', progress = '{\"fraction\":1}'"
            + " WHERE id = "
            + id);
    String columns =
        "(id, queue, kind, args, state, priority, attempt, max_attempts, scheduled_at,"
            + " attempted_at, attempted_by, lease_expires_at, deadline_at, fence,"
            + " idempotency_key, errors, metadata, created_at, finalized_at, output, steps,"
            + " progress, deps_waiting, has_dependents)::text";
    String before =
        db.queryString("SELECT " + columns + " FROM " + schema + ".job WHERE id = " + id);
    Cleaner cleaner =
        new Cleaner(
            ds,
            ms,
            time,
            new Cleaner.Settings(
                Duration.ofHours(1),
                Duration.ofDays(7),
                Duration.ofDays(7),
                10,
                Cleaner.Expired.ARCHIVED));
    time.advance(Duration.ofHours(2));
    assertThat(cleaner.runOnce(lead)).isEqualTo(1);
    assertThat(db.queryLong("SELECT count(*) FROM " + schema + ".job")).isZero();
    String archived =
        db.queryString("SELECT " + columns + " FROM " + schema + ".job_archive WHERE id = " + id);
    assertThat(archived).isEqualTo(before);
    assertThat(
            db.queryLong(
                "SELECT count(*) FROM " + schema + ".job_archive WHERE archived_at IS NOT NULL"))
        .isEqualTo(1);
  }

  @Test
  void prunerRemovesOnlyNodesSilentForLongerThanTheTtl() {
    ClusterStore cs = new ClusterStore(name);
    cs.register(
        ds,
        new ClusterStore.NodeRow("quiet", "h", 1, List.of("q"), "v", time.now(), time.now(), false),
        time.now());
    time.advance(Duration.ofSeconds(50));
    cs.register(
        ds,
        new ClusterStore.NodeRow("alive", "h", 2, List.of("q"), "v", time.now(), time.now(), false),
        time.now());
    NodePruner pruner = new NodePruner(ds, ms, time, Duration.ofSeconds(60));
    assertThat(pruner.runOnce(lead)).isZero();
    time.advance(Duration.ofSeconds(11));
    assertThat(pruner.runOnce(lead)).isEqualTo(1);
    assertThat(cs.nodes(ds)).extracting(ClusterStore.NodeRow::id).containsExactly("alive");
    // a pruned node that was only paused registers again on its next beat
    assertThat(cs.beat(ds, "quiet", time.now())).isFalse();
  }
}
