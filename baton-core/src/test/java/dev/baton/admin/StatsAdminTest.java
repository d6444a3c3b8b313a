package dev.baton.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.SchemaNotMigratedException;
import dev.baton.migrate.Migrator;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link StatsAdmin}: the view's figures plus the discarded jobs of every queue, read through
 * indexes however long the history, and a clear exception on a schema without the view. The CLI's
 * StatsCliTest checks every figure of a queue in each state.
 */
class StatsAdminTest {

  @Test
  void aQueueWithOnlyOldDiscardedJobsIsListedWithTheViewsQueues() {
    try (Fixture f = new Fixture()) {
      f.execute(
          "INSERT INTO %s.job (queue, kind, state, attempt, finalized_at) VALUES"
              + " ('live', 'k', 'completed', 1, now() - interval '1 minute'),"
              + " ('live', 'k', 'completed', 1, now() - interval '10 minutes'),"
              + " ('live', 'k', 'available', 0, NULL),"
              + " ('live', 'k', 'discarded', 5, now() - interval '2 days'),"
              + " ('dead', 'k', 'discarded', 5, now() - interval '3 days'),"
              + " ('dead', 'k', 'discarded', 5, now() - interval '4 days'),"
              + " ('gone', 'k', 'completed', 1, now() - interval '2 hours')");
      List<StatsAdmin.QueueStats> queues = new StatsAdmin(f.dataSource(), f.schema()).queues();
      assertThat(queues).extracting(StatsAdmin.QueueStats::queue).containsExactly("dead", "live");
      StatsAdmin.QueueStats dead = queues.get(0);
      assertThat(dead.discarded()).isEqualTo(2);
      assertThat(dead.available() + dead.running() + dead.completed1h()).isZero();
      StatsAdmin.QueueStats live = queues.get(1);
      assertThat(live.available()).isEqualTo(1);
      assertThat(live.discarded()).isEqualTo(1);
      assertThat(live.completed5m()).isEqualTo(1);
      assertThat(live.completed1h()).isEqualTo(2);
      assertThat(live.throughputPerSecond5m()).isEqualTo(1 / 300.0);
      assertThat(live.throughputPerSecond1h()).isEqualTo(2 / 3600.0);
    }
  }

  @Test
  void fewDiscardedJobsInALargeHistoryAreCountedThroughAnIndex() throws SQLException {
    try (Fixture f = new Fixture()) {
      // 50,000 finished jobs, 50 of them discarded (0.1%), every 1,000th.
      f.execute(
          "INSERT INTO %s.job (queue, kind, state, finalized_at, attempt, errors)"
              + " SELECT 'q' || (i % 4), 'k', CASE WHEN i % 1000 = 0 THEN 'discarded'"
              + " ELSE 'completed' END, now() - interval '3 hours' - i * interval '1 second', 1,"
              + " '[]' FROM generate_series(1, 50000) i");
      f.execute("ANALYZE %s.job");
      StatsAdmin admin = new StatsAdmin(f.dataSource(), f.schema());
      assertThat(explain(f, admin.sql(), ""))
          // (job_completions is small: a day of 10-second buckets per queue and node)
          .doesNotContain("Seq Scan on job ")
          .contains("job_finalized_idx");
      // an index path exists whatever the statistics (a large share of discarded jobs may make
      // the planner prefer reading the table, which is then cheaper)
      assertThat(explain(f, admin.sql(), "SET LOCAL enable_seqscan = off;"))
          .doesNotContain("Seq Scan");
      assertThat(admin.queues())
          .extracting(StatsAdmin.QueueStats::queue, StatsAdmin.QueueStats::discarded)
          .containsExactly(org.assertj.core.groups.Tuple.tuple("q0", 50L));
    }
  }

  @Test
  void aSchemaWithoutTheViewThrowsSchemaNotMigrated() {
    try (Fixture f = new Fixture()) {
      new Migrator(f.dataSource(), f.schema()).down(2);
      assertThatThrownBy(() -> new StatsAdmin(f.dataSource(), f.schema()).queues())
          .isInstanceOf(SchemaNotMigratedException.class)
          .hasMessageContaining("it is at version 2 and the queue_stats view needs version 3");
      String none = f.schema() + "_none";
      assertThatThrownBy(() -> new StatsAdmin(f.dataSource(), none).queues())
          .isInstanceOf(SchemaNotMigratedException.class)
          .hasMessageContaining("\"" + none + "\"")
          .hasMessageContaining("it has no Baton tables");
    }
  }

  private static String explain(Fixture f, String sql, String setting) throws SQLException {
    try (Connection c = f.dataSource().getConnection();
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      if (!setting.isEmpty()) {
        st.execute(setting);
      }
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = st.executeQuery("EXPLAIN " + sql)) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      c.rollback();
      return plan.toString();
    }
  }
}
