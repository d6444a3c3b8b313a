package dev.baton.internal.db;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Reads the {@code queue_stats} view (schema version 3), the figures behind the metrics binder's
 * queue gauges. Not public API.
 */
public final class StatsStore {

  // One row per queue with live jobs or jobs that ended in the last hour. The view reads partial
  // indexes only (see V003__stats.sql), so this stays cheap however large the finished history.
  private static final String QUEUE_STATS =
      """
      SELECT queue, available, scheduled, retryable, running, oldest_available_age_s,
             completed_5m, failed_5m, failure_share_5m, completed_1h, failed_1h, failure_share_1h
      FROM %1$s.queue_stats
      ORDER BY queue""";

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

  private final String queueStats;

  /** A store for {@code schema}. */
  public StatsStore(SchemaName schema) {
    this.queueStats = QUEUE_STATS.formatted(schema.quoted());
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
}
