package dev.baton.internal.db;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Reads the {@code queue_stats} view (schema version 3): the figures behind the metrics binder's
 * queue gauges, and those of {@link dev.baton.admin.StatsAdmin}. Not public API.
 */
public final class StatsStore {

  // One row per queue with live jobs or jobs that ended in the last hour. The view reads partial
  // indexes only (see V003__stats.sql), so this stays cheap however large the finished history.
  // The limits of queues are read by QUEUE_LIMITS.
  private static final String QUEUE_STATS =
      """
      SELECT queue, available, scheduled, retryable, running, oldest_available_age_s,
             completed_5m, failed_5m, failure_share_5m, completed_1h, failed_1h, failure_share_1h
      FROM ${schema}.queue_stats
      ORDER BY queue""";

  // The view lists queues with live jobs or attempts that ended in the last hour; a queue whose
  // only jobs are older discarded ones is added by the full join, so dead letters always show.
  // Discarded rows are found through job_finalized_idx (state, finalized_at) WHERE finalized_at IS
  // NOT NULL, which a discarded row always matches (a check constraint); the condition is
  // repeated so the planner may use that partial index. The queue is read from each row.
  private static final String QUEUE_STATS_WITH_DISCARDED =
      """
      WITH discarded AS (
        SELECT queue, count(*) AS n FROM ${schema}.job
        WHERE state = 'discarded' AND finalized_at IS NOT NULL
        GROUP BY queue
      )
      SELECT coalesce(s.queue, d.queue) AS queue,
             coalesce(s.available, 0), coalesce(s.oldest_available_age_s, 0),
             coalesce(s.running, 0), coalesce(s.scheduled, 0), coalesce(s.retryable, 0),
             coalesce(d.n, 0),
             coalesce(s.completed_5m, 0), coalesce(s.failed_5m, 0),
             coalesce(s.failure_share_5m, 0),
             coalesce(s.completed_1h, 0), coalesce(s.failed_1h, 0),
             coalesce(s.failure_share_1h, 0)
      FROM ${schema}.queue_stats s
      FULL JOIN discarded d ON d.queue = s.queue
      ORDER BY 1""";

  // Every queue with a limit (schema version 9: queue-wide, per key, rate), with what is in use:
  // its running and available jobs (job_running_idx, job_claim_idx); for a limit per key, the keys
  // with running jobs, those at their limit and the MAX_KEYS_LISTED busiest (a read of the queue's
  // running jobs, however many keys), the jobs
  // over their key's room among the first MAX_KEYED_SAMPLE available ones in claim order (so the
  // read is bounded however long the backlog); for a rate limit, the starts of its current window
  // (queue_start_idx, at most the limit's rows plus those not yet deleted), for a rate per key
  // (schema version 11) those of its busiest key, with the starts recorded without a key, which
  // count against every key. A lateral whose limit
  // is not set is cut off by its WHERE before it reads anything. Reads the queue table, which has
  // a row per paused, capped or limited queue only.
  private static final String QUEUE_LIMITS =
      """
      SELECT q.name, q.concurrency_limit, q.key_field, q.key_limit, q.rate_limit, q.rate_period_ms,
             (SELECT count(*) FROM ${schema}.job j WHERE j.state = 'running' AND j.queue = q.name),
             (SELECT count(*) FROM ${schema}.job j WHERE j.state = 'available' AND j.queue = q.name),
             coalesce(kr.keys_running, 0), coalesce(kr.keys_full, 0), coalesce(kw.waiting, 0),
             coalesce(rs.starts, 0), kr.busiest_keys, kr.busiest_running, q.rate_key_field
      FROM ${schema}.queue q
      LEFT JOIN LATERAL (
        SELECT count(*) AS keys_running, count(*) FILTER (WHERE r.n >= q.key_limit) AS keys_full,
               (array_agg(r.k ORDER BY r.n DESC, r.k))[1:?] AS busiest_keys,
               (array_agg(r.n ORDER BY r.n DESC, r.k))[1:?] AS busiest_running
        FROM (SELECT coalesce(j.args ->> q.key_field, '') AS k, count(*) AS n
              FROM ${schema}.job j
              WHERE j.state = 'running' AND j.queue = q.name AND q.key_field IS NOT NULL
              GROUP BY 1) r
      ) kr ON true
      LEFT JOIN LATERAL (
        SELECT sum(greatest(0, a.n - greatest(0, q.key_limit - coalesce(r.n, 0)))) AS waiting
        FROM (SELECT coalesce(x.args ->> q.key_field, '') AS k, count(*) AS n
              FROM (SELECT j.args FROM ${schema}.job j
                    WHERE j.state = 'available' AND j.queue = q.name AND q.key_field IS NOT NULL
                    ORDER BY j.priority, j.scheduled_at, j.id
                    LIMIT ?) x
              GROUP BY 1) a
        LEFT JOIN (SELECT coalesce(j.args ->> q.key_field, '') AS k, count(*) AS n
                   FROM ${schema}.job j
                   WHERE j.state = 'running' AND j.queue = q.name AND q.key_field IS NOT NULL
                   GROUP BY 1) r ON r.k = a.k
      ) kw ON true
      LEFT JOIN LATERAL (
        SELECT CASE WHEN q.rate_key_field IS NULL THEN sum(k.n)
                    ELSE coalesce(max(k.n) FILTER (WHERE k.key IS NOT NULL), 0)
                         + coalesce(sum(k.n) FILTER (WHERE k.key IS NULL), 0) END AS starts
        FROM (SELECT s.key, count(*) AS n FROM ${schema}.queue_start s
              WHERE s.queue = q.name AND q.rate_limit IS NOT NULL
                AND s.at > now() - q.rate_period_ms * interval '1 millisecond'
              GROUP BY s.key) k
      ) rs ON true
      WHERE q.concurrency_limit IS NOT NULL OR q.key_limit IS NOT NULL OR q.rate_limit IS NOT NULL
      ORDER BY q.name""";

  // Jobs of the given kinds waiting in queues that no live node works. The queues with available
  // jobs come from a loose scan of job_claim_idx (one index probe per queue, however many jobs);
  // of each queue no node with a fresh heartbeat lists, the first 1000 available jobs in claim
  // order are read for their kinds, so the check costs a bounded read however long the queue.
  private static final String STRANDED_KINDS =
      """
      WITH RECURSIVE queues(queue) AS (
        (SELECT queue FROM ${schema}.job WHERE state = 'available' ORDER BY queue LIMIT 1)
        UNION ALL
        SELECT (SELECT j.queue FROM ${schema}.job j
                WHERE j.state = 'available' AND j.queue > q.queue
                ORDER BY j.queue LIMIT 1)
        FROM queues q WHERE q.queue IS NOT NULL
      )
      SELECT q.queue, s.kind, count(*)
      FROM queues q
      CROSS JOIN LATERAL (
        SELECT j.kind FROM ${schema}.job j
        WHERE j.state = 'available' AND j.queue = q.queue
        ORDER BY j.priority, j.scheduled_at, j.id
        LIMIT 1000
      ) s
      WHERE q.queue IS NOT NULL
        AND s.kind = ANY (?)
        AND NOT EXISTS (
          SELECT 1 FROM ${schema}.node n
          WHERE q.queue = ANY (n.queues) AND n.heartbeat_at > now() - ? * interval '1 millisecond')
      GROUP BY q.queue, s.kind
      ORDER BY 1, 2""";

  /**
   * Jobs of some kinds waiting (available) in a queue that no live node works.
   *
   * @param queue the queue
   * @param kind the kind
   * @param seen how many of the queue's first 1000 available jobs are of the kind
   */
  public record StrandedKind(String queue, String kind, long seen) {}

  /** The figures of one queue, as of the read. */
  public record QueueStats(
      String queue,
      long available,
      long scheduled,
      long retryable,
      long running,
      double oldestAvailableAgeSeconds,
      long completed5m,
      long failed5m,
      double failureShare5m,
      long completed1h,
      long failed1h,
      double failureShare1h) {}

  /**
   * The figures of one queue with its discarded jobs still kept, as of the read (one statement, so
   * every figure is of the same snapshot).
   */
  public record QueueStatsWithDiscarded(
      String queue,
      long available,
      double oldestAvailableAgeSeconds,
      long running,
      long scheduled,
      long retryable,
      long discarded,
      long completed5m,
      long failed5m,
      double failureShare5m,
      long completed1h,
      long failed1h,
      double failureShare1h) {}

  /**
   * Most available jobs of a queue limited per key that {@link #queueLimits} reads, in claim order,
   * to count those over their key's room: 10,000.
   */
  public static final int MAX_KEYED_SAMPLE = 10_000;

  /** Most keys of a queue limited per key that {@link #queueLimits} names, busiest first: 5. */
  public static final int MAX_KEYS_LISTED = 5;

  /**
   * A queue with a limit of any kind, as of the read (one statement, so every figure is of the same
   * snapshot); a limit it does not have is null.
   *
   * @param queue the queue
   * @param concurrencyLimit its queue-wide limit
   * @param keyField the args field of its limit per key
   * @param keyLimit its limit per key
   * @param rateLimit its rate limit, starts per period
   * @param ratePeriodMillis the period of its rate limit
   * @param running its running jobs, on any node
   * @param available its available jobs
   * @param keysRunning keys with running jobs (0 without a limit per key)
   * @param keysAtLimit keys with as many running jobs as the limit per key, or more
   * @param overKeyRoom available jobs, of the first {@link #MAX_KEYED_SAMPLE} in claim order, over
   *     their key's room
   * @param starts starts in the rate limit's current window (0 without one)
   * @param busiestKeys the keys with the most running jobs, at most {@link #MAX_KEYS_LISTED}, most
   *     first (ties by key); empty without a limit per key
   * @param busiestRunning their running jobs, in the same order
   */
  public record QueueLimit(
      String queue,
      Integer concurrencyLimit,
      String keyField,
      Integer keyLimit,
      Integer rateLimit,
      Integer ratePeriodMillis,
      long running,
      long available,
      long keysRunning,
      long keysAtLimit,
      long overKeyRoom,
      long starts,
      List<String> busiestKeys,
      List<Long> busiestRunning,
      String rateKeyField) {

    /**
     * Available jobs that the queue's limits do not let a claim take now: the available jobs less
     * the fewest any of its limits admits (the queue-wide limit's free room, the rate limit's
     * starts left in the window, the jobs within their key's room), at least 0.
     */
    public long waitingForLimits() {
      long admits = available;
      if (concurrencyLimit != null) {
        admits = Math.min(admits, Math.max(0, concurrencyLimit - running));
      }
      if (rateLimit != null && rateKeyField == null) { // a rate per key leaves other keys room
        admits = Math.min(admits, Math.max(0, rateLimit - starts));
      }
      if (keyLimit != null) {
        admits = Math.min(admits, Math.max(0, available - overKeyRoom));
      }
      return available - admits;
    }
  }

  private final String queueStats;
  private final String queueStatsWithDiscarded;
  private final String strandedKinds;
  private final String queueLimits;

  /** A store for {@code schema}. */
  public StatsStore(SchemaName schema) {
    this.queueStats = schema.expand(QUEUE_STATS);
    this.queueStatsWithDiscarded = schema.expand(QUEUE_STATS_WITH_DISCARDED);
    this.strandedKinds = schema.expand(STRANDED_KINDS);
    this.queueLimits = schema.expand(QUEUE_LIMITS);
  }

  /** Every queue with a limit of any kind, by name, in one autocommit statement. */
  public List<QueueLimit> queueLimits(DataSource ds, Duration timeout) {
    return Db.inTransaction(
        ds,
        "cannot read queue limits",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(queueLimits)) {
            ps.setQueryTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toSeconds())));
            ps.setInt(1, MAX_KEYS_LISTED);
            ps.setInt(2, MAX_KEYS_LISTED);
            ps.setInt(3, MAX_KEYED_SAMPLE);
            List<QueueLimit> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(
                    new QueueLimit(
                        rs.getString(1),
                        (Integer) rs.getObject(2),
                        rs.getString(3),
                        (Integer) rs.getObject(4),
                        (Integer) rs.getObject(5),
                        (Integer) rs.getObject(6),
                        rs.getLong(7),
                        rs.getLong(8),
                        rs.getLong(9),
                        rs.getLong(10),
                        rs.getLong(11),
                        rs.getLong(12),
                        textArray(rs.getArray(13)),
                        longArray(rs.getArray(14)),
                        rs.getString(15)));
              }
            }
            return out;
          }
        });
  }

  private static List<String> textArray(java.sql.Array a) throws java.sql.SQLException {
    return a == null ? List.of() : List.of((String[]) a.getArray());
  }

  private static List<Long> longArray(java.sql.Array a) throws java.sql.SQLException {
    return a == null ? List.of() : List.of((Long[]) a.getArray());
  }

  /** The statement {@link #queueLimits} runs (for tests that check its plan). */
  public String queueLimitsSql() {
    return queueLimits;
  }

  /** The statement {@link #queueStatsWithDiscarded} runs (for tests that check its plan). */
  public String queueStatsWithDiscardedSql() {
    return queueStatsWithDiscarded;
  }

  /**
   * Every row of the view and every queue with discarded jobs still kept, by queue, in one
   * autocommit statement.
   */
  public List<QueueStatsWithDiscarded> queueStatsWithDiscarded(DataSource ds, String what) {
    return Db.inTransaction(
        ds,
        what,
        c -> {
          List<QueueStatsWithDiscarded> out = new ArrayList<>();
          try (PreparedStatement ps = c.prepareStatement(queueStatsWithDiscarded);
              ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              out.add(
                  new QueueStatsWithDiscarded(
                      rs.getString(1),
                      rs.getLong(2),
                      rs.getDouble(3),
                      rs.getLong(4),
                      rs.getLong(5),
                      rs.getLong(6),
                      rs.getLong(7),
                      rs.getLong(8),
                      rs.getLong(9),
                      rs.getDouble(10),
                      rs.getLong(11),
                      rs.getLong(12),
                      rs.getDouble(13)));
            }
          }
          return out;
        });
  }

  /**
   * Every row of the view, by queue, in one autocommit statement that gives up after {@code
   * timeout}.
   */
  public List<QueueStats> queueStats(DataSource ds, Duration timeout) {
    return Db.inTransaction(
        ds,
        "cannot read queue statistics",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(queueStats)) {
            ps.setQueryTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toSeconds())));
            List<QueueStats> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(
                    new QueueStats(
                        rs.getString(1),
                        rs.getLong(2),
                        rs.getLong(3),
                        rs.getLong(4),
                        rs.getLong(5),
                        rs.getDouble(6),
                        rs.getLong(7),
                        rs.getLong(8),
                        rs.getDouble(9),
                        rs.getLong(10),
                        rs.getLong(11),
                        rs.getDouble(12)));
              }
            }
            return out;
          }
        });
  }

  /**
   * The jobs of {@code kinds} available in queues that no node with a heartbeat newer than {@code
   * nodeTtl} works, by queue and kind, in one autocommit statement that gives up after {@code
   * timeout}.
   */
  public List<StrandedKind> strandedKinds(
      DataSource ds, List<String> kinds, Duration nodeTtl, Duration timeout) {
    return Db.inTransaction(
        ds,
        "cannot look for jobs waiting in queues no node works",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(strandedKinds)) {
            ps.setQueryTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toSeconds())));
            ps.setArray(1, c.createArrayOf("text", kinds.toArray()));
            ps.setLong(2, nodeTtl.toMillis());
            List<StrandedKind> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) {
                out.add(new StrandedKind(rs.getString(1), rs.getString(2), rs.getLong(3)));
              }
            }
            return out;
          }
        });
  }
}
