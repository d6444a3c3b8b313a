package dev.baton.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.EnqueueOptions;
import dev.baton.JobArgs;
import dev.baton.JobState;
import dev.baton.RetryPolicy;
import dev.baton.testing.Fixture;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The {@code queue_stats} view returns what whole-table counts return, and reads indexes only. */
class QueueStatsViewTest {

  record Flaky(int failures) implements JobArgs {}

  private static final RetryPolicy FAST = (attempt, e) -> Duration.ofMillis(20);

  // The same figures by brute force: every row of the table, every error entry.
  private static final String DIRECT =
      """
      WITH queues AS (
        SELECT queue FROM %1$s.job UNION SELECT queue FROM %1$s.job_completions
      ), per_queue AS (
        SELECT q.queue,
               count(j.id) FILTER (WHERE j.state = 'available') AS available,
               count(j.id) FILTER (WHERE j.state = 'scheduled') AS scheduled,
               count(j.id) FILTER (WHERE j.state = 'retryable') AS retryable,
               count(j.id) FILTER (WHERE j.state = 'running') AS running,
               coalesce(extract(epoch FROM now() - min(j.scheduled_at) FILTER (
                   WHERE j.state = 'available'))::float8, 0) AS oldest_available_age_s,
               (count(j.id) FILTER (WHERE j.state = 'completed'
                                      AND j.finalized_at > now() - interval '5 minutes')
                + (SELECT coalesce(sum(n), 0) FROM %1$s.job_completions k
                   WHERE k.queue = q.queue AND k.bucket > now() - interval '5 minutes'))::bigint
                 AS completed_5m,
               (count(j.id) FILTER (WHERE j.state = 'completed'
                                      AND j.finalized_at > now() - interval '1 hour')
                + (SELECT coalesce(sum(n), 0) FROM %1$s.job_completions k
                   WHERE k.queue = q.queue AND k.bucket > now() - interval '1 hour'))::bigint
                 AS completed_1h
        FROM queues q LEFT JOIN %1$s.job j ON j.queue = q.queue
        GROUP BY q.queue
      ), failed AS (
        SELECT j.queue,
               count(*) FILTER (WHERE (e ->> 'at')::timestamptz > now() - interval '5 minutes')
                 AS failed_5m,
               count(*) FILTER (WHERE (e ->> 'at')::timestamptz > now() - interval '1 hour')
                 AS failed_1h
        FROM %1$s.job j, jsonb_array_elements(j.errors) e
        WHERE e ->> 'error' <> 'cancelled'
        GROUP BY j.queue
      )
      SELECT p.queue, available, scheduled, retryable, running, oldest_available_age_s,
             completed_5m, coalesce(failed_5m, 0) AS failed_5m,
             coalesce(failed_5m::float8 / nullif(coalesce(failed_5m, 0) + completed_5m, 0), 0)
               AS failure_share_5m,
             completed_1h, coalesce(failed_1h, 0) AS failed_1h,
             coalesce(failed_1h::float8 / nullif(coalesce(failed_1h, 0) + completed_1h, 0), 0)
               AS failure_share_1h
      FROM per_queue p LEFT JOIN failed f USING (queue)
      WHERE available + scheduled + retryable + running + completed_1h
            + coalesce(failed_1h, 0) > 0
      """;

  private static final String VIEW =
      """
      SELECT queue, available, scheduled, retryable, running, oldest_available_age_s,
             completed_5m, failed_5m, failure_share_5m, completed_1h, failed_1h, failure_share_1h
      FROM %1$s.queue_stats
      """;

  @Test
  void viewReturnsTheSameNumbersAsWholeTableCounts() throws Exception {
    try (Fixture f = new Fixture()) {
      insertHistory(f);
      // and rows written by a real client: failed attempts that were retried, a discard
      f.start(
          f.config().queue("d", 4).retryPolicy(FAST).build(),
          b ->
              b.handler(
                  Flaky.class,
                  (ctx, a) -> {
                    if (ctx.attempt() <= a.failures()) {
                      throw new IllegalStateException("boom " + ctx.attempt());
                    }
                  }));
      List<Long> ids = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        ids.add(
            f.reader()
                .enqueue(new Flaky(i), EnqueueOptions.builder().queue("d").maxAttempts(2).build())
                .job()
                .id());
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .until(
              () ->
                  ids.stream()
                      .allMatch(
                          id ->
                              f.job(id).state() == JobState.COMPLETED
                                  || f.job(id).state() == JobState.DISCARDED));

      Map<String, Map<String, Object>> view;
      Map<String, Map<String, Object>> direct;
      try (Connection c = f.dataSource().getConnection()) {
        c.setAutoCommit(false);
        c.setTransactionIsolation(
            Connection.TRANSACTION_REPEATABLE_READ); // one snapshot, one now()
        view = rows(c, VIEW.formatted(f.schema()));
        direct = rows(c, DIRECT.formatted(f.schema()));
        c.rollback();
      }
      assertThat(view.keySet()).containsExactlyInAnyOrder("a", "c", "d", "e");
      assertThat(view).isEqualTo(direct);
      // spot checks of the hand-made history (see insertHistory)
      Map<String, Object> a = view.get("a");
      assertThat(a.get("available")).isEqualTo(3L);
      assertThat(a.get("scheduled")).isEqualTo(2L);
      assertThat(a.get("retryable")).isEqualTo(1L);
      assertThat(a.get("running")).isEqualTo(1L);
      assertThat((double) a.get("oldest_available_age_s")).isBetween(119.0, 200.0);
      assertThat(a.get("completed_5m")).isEqualTo(4L + 7L);
      assertThat(a.get("completed_1h")).isEqualTo(6L + 7L + 3L);
      assertThat(view.get("e").get("completed_5m")).isEqualTo(7L);
      assertThat(view.get("e").get("available")).isEqualTo(0L);
      assertThat(a.get("failed_5m")).isEqualTo(4L);
      assertThat(a.get("failed_1h")).isEqualTo(9L);
      assertThat(view.get("d").get("failed_1h")).isEqualTo(1L + 2L + 2L);
      assertThat(view.get("d").get("completed_1h")).isEqualTo(2L);
    }
  }

  @Test
  void viewReadsIndexesOnlyWhenTheHistoryIsLarge() throws Exception {
    try (Fixture f = new Fixture()) {
      f.execute(
          "INSERT INTO %s.job (queue, kind, state, finalized_at, attempt, errors)"
              + " SELECT 'q' || (i % 4), 'k', CASE WHEN i % 10 = 0 THEN 'discarded'"
              + " ELSE 'completed' END, now() - interval '3 hours' - i * interval '1 second', 1,"
              + " '[]' FROM generate_series(1, 50000) i");
      insertHistory(f);
      f.execute("ANALYZE %s.job");
      String plan = explain(f, "");
      // (job_completions is small: a day of 10-second buckets per queue and node)
      assertThat(plan).doesNotContain("Seq Scan on job ");
      assertThat(plan)
          .contains("job_claim_idx", "job_running_idx", "job_waiting_idx", "job_finalized_idx");
      // every part has an index path, whatever the statistics
      String forced = explain(f, "SET LOCAL enable_seqscan = off;");
      assertThat(forced).doesNotContain("Seq Scan");
    }
  }

  private static String explain(Fixture f, String setting) throws SQLException {
    try (Connection c = f.dataSource().getConnection();
        Statement st = c.createStatement()) {
      c.setAutoCommit(false);
      if (!setting.isEmpty()) {
        st.execute(setting);
      }
      StringBuilder plan = new StringBuilder();
      try (ResultSet rs = st.executeQuery("EXPLAIN SELECT * FROM " + f.schema() + ".queue_stats")) {
        while (rs.next()) {
          plan.append(rs.getString(1)).append('\n');
        }
      }
      c.rollback();
      return plan.toString();
    }
  }

  /**
   * Rows as the real writers leave them: a live row's scheduled_at is never before its latest
   * error, a finished row's errors are no later than its finalized_at.
   */
  static void insertHistory(Fixture f) {
    String err =
        "jsonb_build_object('attempt', 1, 'error', '%s', 'message', 'm', 'at', now() - %s)";
    f.execute(
        ("INSERT INTO %s.job (queue, kind, state, scheduled_at, attempt, errors) VALUES"
                + " ('a', 'k', 'available', now() - interval '120 seconds', 0, '[]'),"
                + " ('a', 'k', 'available', now() - interval '10 seconds', 0, '[]'),"
                // retried 3 min ago, due 2 min ago
                + " ('a', 'k', 'available', now() - interval '100 seconds', 1, jsonb_build_array("
                + err.formatted("x", "interval '3 minutes'")
                + ")),"
                + " ('a', 'k', 'scheduled', now() + interval '1 hour', 0, '[]'),"
                // failed 10 min ago, then snoozed
                + " ('a', 'k', 'scheduled', now() + interval '5 minutes', 1, jsonb_build_array("
                + err.formatted("x", "interval '10 minutes'")
                + ")),"
                + " ('a', 'k', 'retryable', now() + interval '1 minute', 1, jsonb_build_array("
                + err.formatted("x", "interval '1 minute'")
                + "))")
            .replace("%s.job", f.schema() + ".job"));
    f.execute(
        ("INSERT INTO %s.job (queue, kind, state, scheduled_at, attempt, attempted_at,"
                + " lease_expires_at, errors) VALUES"
                + " ('a', 'k', 'running', now() - interval '20 seconds', 3, now() - interval '10"
                + " seconds', now() + interval '20 seconds', jsonb_build_array("
                + err.formatted("lease_expired", "interval '30 minutes'")
                + ", "
                + err.formatted("x", "interval '50 minutes'")
                + ")),"
                + " ('c', 'k', 'running', now(), 1, now(), now() + interval '30 seconds', '[]')")
            .replace("%s.job", f.schema() + ".job"));
    f.execute(
        ("INSERT INTO %s.job (queue, kind, state, attempt, finalized_at, errors) VALUES"
                + " ('a', 'k', 'completed', 1, now() - interval '1 minute', '[]'),"
                + " ('a', 'k', 'completed', 1, now() - interval '1 minute', '[]'),"
                + " ('a', 'k', 'completed', 1, now() - interval '1 minute', '[]'),"
                + " ('a', 'k', 'completed', 2, now() - interval '1 minute', jsonb_build_array("
                + err.formatted("x", "interval '2 minutes'")
                + ")),"
                + " ('a', 'k', 'completed', 1, now() - interval '30 minutes', '[]'),"
                + " ('a', 'k', 'completed', 1, now() - interval '30 minutes', '[]'),"
                + " ('a', 'k', 'completed', 2, now() - interval '2 hours', jsonb_build_array("
                + err.formatted("x", "interval '121 minutes'")
                + ")),"
                + " ('a', 'k', 'discarded', 2, now() - interval '10 minutes', jsonb_build_array("
                + err.formatted("x", "interval '20 minutes'")
                + ", "
                + err.formatted("timeout", "interval '10 minutes'")
                + ")),"
                + " ('a', 'k', 'discarded', 2, now() - interval '3 hours', jsonb_build_array("
                + err.formatted("x", "interval '4 hours'")
                + ")),"
                + " ('a', 'k', 'cancelled', 2, now() - interval '2 minutes', jsonb_build_array("
                + err.formatted("x", "interval '4 minutes'")
                + ", "
                + err.formatted("cancelled", "interval '2 minutes'")
                + ")),"
                + " ('a', 'k', 'cancelled', 1, now() - interval '3 minutes', jsonb_build_array("
                + err.formatted("cancelled", "interval '3 minutes'")
                + ")),"
                + " ('b', 'k', 'completed', 1, now() - interval '2 hours', '[]'),"
                + " ('b', 'k', 'discarded', 1, now() - interval '2 hours', jsonb_build_array("
                + err.formatted("x", "interval '2 hours'")
                + "))")
            .replace("%s.job", f.schema() + ".job"));
    // completions that deleted their row (completedRetention zero), by bucket, queue and node
    f.execute(
        "INSERT INTO %s.job_completions (bucket, queue, node, pid, n) VALUES"
            + " (now() - interval '1 minute', 'a', 'x', 1, 4),"
            + " (now() - interval '1 minute', 'a', 'x', 2, 1),"
            + " (now() - interval '1 minute', 'a', 'y', 1, 2),"
            + " (now() - interval '30 minutes', 'a', 'x', 1, 3),"
            + " (now() - interval '2 hours', 'a', 'x', 1, 100),"
            + " (now() - interval '20 seconds', 'e', 'x', 1, 7)");
  }

  /** Seconds and shares to the microsecond, whatever numeric type the SQL gave them. */
  private static Object rounded(Number n) {
    return Math.round(n.doubleValue() * 1e6) / 1e6;
  }

  private static Map<String, Map<String, Object>> rows(Connection c, String sql)
      throws SQLException {
    Map<String, Map<String, Object>> out = new TreeMap<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      ResultSetMetaData md = rs.getMetaData();
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>();
        for (int i = 2; i <= md.getColumnCount(); i++) {
          Object v = rs.getObject(i);
          // the same number, whatever type the SQL gave it
          String label = md.getColumnLabel(i);
          boolean fraction = label.endsWith("_s") || label.startsWith("failure");
          row.put(label, !(v instanceof Number n) ? v : fraction ? rounded(n) : n.longValue());
        }
        out.put(rs.getString(1), row);
      }
    }
    return out;
  }
}
