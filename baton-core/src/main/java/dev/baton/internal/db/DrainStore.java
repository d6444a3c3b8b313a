package dev.baton.internal.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * The statements of a drain, which works one queue's jobs on a test's thread by a clock of the
 * test's own ({@link dev.baton.Baton#drain}): due jobs are those whose run-at time has passed by
 * that clock, and a finish counts its delay from it. No leader is involved; nothing here runs in a
 * started client.
 *
 * <p>Not public API.
 */
public final class DrainStore {

  // The queue's waiting jobs that are due by the drain's clock become available; returns how many
  // of the queue's jobs are available then (the main query reads the table as it was before the
  // update, so the moved ones are added). Binds: queue, now, queue.
  private static final String MAKE_DUE =
      """
      WITH upd AS (
        UPDATE ${schema}.job SET state = 'available'
        WHERE queue = ? AND state IN ('scheduled', 'retryable') AND scheduled_at <= ?
        RETURNING id
      )
      SELECT (SELECT count(*) FROM upd)
           + (SELECT count(*) FROM ${schema}.job WHERE queue = ? AND state = 'available')
      """;

  // The run-at time by the drain's clock instead of the database's: finishIfHeld's second
  // statement,
  // in the finish's transaction, and setRunAt's. Binds: run-at, id, fence.
  private static final String SET_RUN_AT =
      """
      UPDATE ${schema}.job SET scheduled_at = ? WHERE id = ? AND fence = ?
      """;

  private final HolderStore holder;
  private final String makeDue;
  private final String setRunAt;

  /** The drain statements for the schema of {@code holder}, whose finishes they write. */
  public DrainStore(HolderStore holder) {
    this.holder = holder;
    this.makeDue = holder.schema().expand(MAKE_DUE);
    this.setRunAt = holder.schema().expand(SET_RUN_AT);
  }

  /**
   * Makes the jobs of {@code queue} waiting for a time at or before {@code now} available, and
   * returns how many of the queue's jobs are available then.
   */
  public long makeDue(DataSource ds, String queue, Instant now) {
    return Db.inTransaction(
        ds,
        "cannot make due jobs available (queue=" + queue + ")",
        c -> {
          try (PreparedStatement ps = c.prepareStatement(makeDue)) {
            ps.setString(1, queue);
            Timestamps.setInstant(ps, 2, now);
            ps.setString(3, queue);
            try (ResultSet rs = ps.executeQuery()) {
              rs.next();
              return rs.getLong(1);
            }
          }
        });
  }

  /**
   * Writes {@code finish} as {@link HolderStore#finishIfHeld} does, with its delay counted from
   * {@code now} instead of the database's clock. Returns whether it was written.
   */
  public boolean finishIfHeld(DataSource ds, Finish finish, Instant now) {
    return Db.inExplicitTransaction(
        ds,
        "cannot record finished job (id=" + finish.id() + ")",
        c -> {
          boolean written = holder.finishIfHeld(c, finish);
          if (written && finish.delayMillis() != null) {
            setRunAt(c, finish.id(), finish.fence(), now.plusMillis(finish.delayMillis()));
          }
          return written;
        });
  }

  /**
   * Sets the run-at time of the job {@code id} as its claim of {@code fence} left it (a retry
   * written outside the drain's finishes, by the database's clock).
   */
  public void setRunAt(DataSource ds, long id, long fence, Instant runAt) {
    Db.inTransaction(
        ds,
        "cannot set the run-at time of job (id=" + id + ")",
        c -> {
          setRunAt(c, id, fence, runAt);
          return null;
        });
  }

  private void setRunAt(Connection c, long id, long fence, Instant runAt) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(setRunAt)) {
      Timestamps.setInstant(ps, 1, runAt);
      ps.setLong(2, id);
      ps.setLong(3, fence);
      ps.executeUpdate();
    }
  }
}
