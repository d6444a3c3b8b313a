package dev.baton.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.admin.BatonAdmin;
import dev.baton.admin.StatsAdmin;
import dev.baton.internal.SettableTime;
import dev.baton.internal.cluster.Elector;
import dev.baton.internal.db.ClusterStore;
import dev.baton.internal.db.Leadership;
import dev.baton.internal.db.MaintenanceStore;
import dev.baton.internal.db.NotLeaderException;
import dev.baton.internal.db.SchemaName;
import dev.baton.internal.maintenance.Tallier;
import dev.baton.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The tallier's history (job_stat_minute): every finished job counted once, in the minute it was
 * finalized, whatever passes repeat, overlap or change leader, and a job whose transaction
 * committed after a pass had covered its time counted by the next pass. Driven by {@code runOnce()}
 * on a settable clock; no sleeps.
 */
class TallierTest {
  private final TestDatabase db = TestDatabase.get();
  private final DataSource ds = db.admin();
  private final String schema = db.newMigratedSchema();
  private final SchemaName name = SchemaName.of(schema);
  private final MaintenanceStore ms = new MaintenanceStore(name);
  // a whole minute and 30 seconds, so "30 s ago" and "now" fall in known minutes
  private final Instant start = Instant.now().truncatedTo(ChronoUnit.MINUTES).plusSeconds(30);
  private final SettableTime time = new SettableTime(start);
  private final Tallier tallier = new Tallier(ds, ms, time);

  private Leadership elect(String node, Duration ttl) {
    return new Elector(ds, new ClusterStore(name), Leadership.MAINTENANCE, node, ttl, time)
        .runOnce();
  }

  /** Inserts {@code n} jobs of {@code queue} finished in {@code state} at {@code at}. */
  private void finished(String queue, String kind, String state, Instant at, int n) {
    db.execute(finishedSql(queue, kind, state, at, n, "[]"));
  }

  private String finishedSql(
      String queue, String kind, String state, Instant at, int n, String errors) {
    return "INSERT INTO "
        + schema
        + ".job (queue, kind, state, attempt, finalized_at, errors) SELECT '"
        + queue
        + "', '"
        + kind
        + "', '"
        + state
        + "', 1, '"
        + at
        + "'::timestamptz, '"
        + errors
        + "'::jsonb FROM generate_series(1, "
        + n
        + ")";
  }

  private long sum(String column, String where) {
    return db.queryLong(
        "SELECT coalesce(sum(" + column + "), 0) FROM " + schema + ".job_stat_minute " + where);
  }

  private long at(String column, String queue, Instant finalized) {
    return sum(
        column,
        "WHERE queue = '"
            + queue
            + "' AND minute = '"
            + finalized.truncatedTo(ChronoUnit.MINUTES)
            + "'::timestamptz");
  }

  @Test
  void countsEachFinishedJobOnceInItsMinuteHoweverOftenPassesRepeat() {
    Leadership lead = elect("a", Duration.ofDays(1));
    Instant earlier = start.minusSeconds(60);
    finished("q", "k", "completed", start.minusSeconds(20), 3);
    finished("q", "k", "completed", earlier, 2);
    finished("q", "k", "cancelled", earlier, 1);
    finished("q", "k2", "discarded", start.minusSeconds(10), 1);
    db.execute(
        finishedSql(
            "q",
            "k2",
            "discarded",
            start.minusSeconds(10),
            4,
            "[{\"attempt\": 1, \"error\": \"node_gone\"}]"));
    finished("q", "k", "available", start, 0);

    for (int pass = 0; pass < 3; pass++) {
      tallier.runOnce(lead);
      assertThat(at("completed", "q", start)).as("pass %d", pass).isEqualTo(3);
      assertThat(at("completed", "q", earlier)).isEqualTo(2);
      assertThat(at("cancelled", "q", earlier)).isEqualTo(1);
      assertThat(at("failed", "q", start)).isEqualTo(1);
      assertThat(at("rescued", "q", start)).as("discarded after a rescue").isEqualTo(4);
      assertThat(sum("completed + failed + rescued + cancelled", "")).isEqualTo(11);
    }

    // later passes count the new jobs only, the minutes before them unchanged
    time.advance(Duration.ofSeconds(40));
    finished("q", "k", "completed", time.now().minusSeconds(1), 5);
    tallier.runOnce(lead);
    time.advance(Duration.ofSeconds(50));
    tallier.runOnce(lead);
    assertThat(at("completed", "q", start)).isEqualTo(3);
    assertThat(at("completed", "q", start.plusSeconds(39))).isEqualTo(5);
    assertThat(sum("completed", "WHERE kind = 'k'")).isEqualTo(10);
  }

  @Test
  void aJobCommittedAfterAPassCoveredItsTimeIsCountedByTheNextPass() throws Exception {
    Leadership lead = elect("a", Duration.ofDays(1));
    Instant finalized = start.minusSeconds(90); // the minute before the pass's own
    try (Connection late = ds.getConnection()) {
      late.setAutoCommit(false);
      try (Statement st = late.createStatement()) {
        st.execute(finishedSql("late", "k", "completed", finalized, 2, "[]"));
      }
      finished("late", "k", "completed", finalized, 1);
      tallier.runOnce(lead);
      assertThat(at("completed", "late", finalized)).as("not yet committed").isEqualTo(1);
      late.commit();
    }
    time.advance(Duration.ofMinutes(1));
    tallier.runOnce(lead);
    assertThat(at("completed", "late", finalized)).isEqualTo(3);
  }

  @Test
  void aNewLeaderCountsFromWhereTheOldOneStoppedAndTheOldOneCanNoLongerWrite() {
    Leadership a = elect("a", Duration.ofMinutes(1));
    finished("fo", "k", "completed", start.minusSeconds(5), 2);
    tallier.runOnce(a);
    // a is gone: for ten minutes no pass runs while jobs finish
    for (int m = 1; m <= 9; m++) {
      finished("fo", "k", "completed", start.plus(Duration.ofMinutes(m)), m);
    }
    time.advance(Duration.ofMinutes(10));
    Leadership b = elect("b", Duration.ofMinutes(1));
    assertThat(b.term()).isGreaterThan(a.term());
    assertThatThrownBy(() -> tallier.runOnce(a)).isInstanceOf(NotLeaderException.class);
    tallier.runOnce(b);
    tallier.runOnce(b);
    assertThat(at("completed", "fo", start)).isEqualTo(2);
    for (int m = 1; m <= 9; m++) {
      assertThat(at("completed", "fo", start.plus(Duration.ofMinutes(m)))).isEqualTo(m);
    }
    assertThat(sum("completed", "WHERE queue = 'fo'")).isEqualTo(2 + 45);
  }

  @Test
  void completionsThatDeletedTheirRowAreCountedWithoutAKind() {
    Leadership lead = elect("a", Duration.ofDays(1));
    db.execute(
        "INSERT INTO "
            + schema
            + ".job_completions (bucket, queue, node, pid, n) VALUES ('"
            + start.minusSeconds(20)
            + "', 'del', 'n1', 1, 5), ('"
            + start.minusSeconds(10)
            + "', 'del', 'n2', 2, 7)");
    tallier.runOnce(lead);
    tallier.runOnce(lead);
    assertThat(sum("completed", "WHERE queue = 'del' AND kind = ''")).isEqualTo(12);
  }

  @Test
  void aFirstPassCountsTheFinishedJobsStillKeptAndMinutesPastSevenDaysArePruned() {
    Leadership lead = elect("a", Duration.ofDays(1));
    finished("old", "k", "discarded", start.minus(Duration.ofDays(3)), 4);
    finished("old", "k", "discarded", start.minus(Duration.ofDays(8)), 9);
    db.execute(
        "INSERT INTO "
            + schema
            + ".job_stat_minute (minute, queue, kind, completed) VALUES ('"
            + start.minus(Duration.ofDays(7)).minusSeconds(120).truncatedTo(ChronoUnit.MINUTES)
            + "', 'old', 'k', 1), ('"
            + start.minus(Duration.ofDays(6)).truncatedTo(ChronoUnit.MINUTES)
            + "', 'old', 'k', 1)");
    for (int pass = 0; pass < 3; pass++) {
      tallier.runOnce(lead);
    }
    assertThat(sum("failed", "WHERE queue = 'old'")).as("3 days ago, not 8").isEqualTo(4);
    assertThat(sum("completed", "WHERE queue = 'old'")).as("6 days ago, not 7").isEqualTo(1);
    assertThat(db.queryLong("SELECT count(*) FROM " + schema + ".job_stat_minute")).isEqualTo(2);
  }

  @Test
  void historyCutsTheRangeIntoBucketsEndingWithTheCurrentMinute() {
    db.execute(
        "INSERT INTO "
            + schema
            + ".job_stat_minute (minute, queue, kind, completed, failed, rescued, cancelled)"
            + " SELECT to_timestamp(floor(extract(epoch FROM now()) / 60) * 60)"
            + " - m * interval '1 minute', q, k, c, f, r, x FROM (VALUES"
            + " (0, 'h', 'a', 1, 2, 0, 0), (0, 'h', 'b', 10, 0, 0, 0), (4, 'h', 'a', 100, 0, 3, 0),"
            + " (5, 'h', 'a', 1000, 0, 0, 1), (59, 'h', 'a', 7, 0, 0, 0), (60, 'h', 'a', 5000, 0, 0, 0),"
            + " (3, 'g', '', 4, 0, 0, 0)) v(m, q, k, c, f, r, x)");
    BatonAdmin admin = new BatonAdmin(ds, schema);

    List<StatsAdmin.QueueHistory> h = admin.history(Duration.ofHours(1), Duration.ofMinutes(5));

    assertThat(h).extracting(StatsAdmin.QueueHistory::queue).containsExactly("g", "h");
    StatsAdmin.QueueHistory q = h.get(1);
    assertThat(q.completed()).hasSize(12);
    assertThat(q.completed().get(11)).as("minutes 0-4 ago").isEqualTo(111);
    assertThat(q.completed().get(10)).as("minutes 5-9 ago").isEqualTo(1000);
    assertThat(q.completed().get(0)).as("minute 59 ago; 60 is out").isEqualTo(7);
    assertThat(q.failed().get(11)).isEqualTo(2);
    assertThat(q.rescued().get(11)).isEqualTo(3);
    assertThat(q.cancelled().get(10)).isEqualTo(1);
    assertThat(q.end()).isAfter(Instant.now().minusSeconds(60));
    assertThat(h.get(0).completed().get(11)).isEqualTo(4);
    assertThat(admin.kinds("h")).containsExactly("a", "b");
    assertThat(admin.kinds(null)).containsExactly("a", "b");

    assertThatThrownBy(() -> admin.history(Duration.ofDays(8), Duration.ofHours(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("1 minute to 7 days");
    assertThatThrownBy(() -> admin.history(Duration.ofHours(1), Duration.ofSeconds(90)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
