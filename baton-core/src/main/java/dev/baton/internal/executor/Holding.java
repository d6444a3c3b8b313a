package dev.baton.internal.executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.internal.db.Db;
import dev.baton.internal.db.HolderStore;
import dev.baton.internal.held.RunningJob;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;

/**
 * What a handler's context does as its job's holder, on behalf of the executor running it: extend
 * the lease, complete the job in the handler's own transaction, move the attempt's deadline. Apart
 * from the executor so that a context depends on this and not on the executor that makes it. Not
 * public API.
 */
final class Holding {
  private final DataSource dataSource;
  private final HolderStore store;
  private final ObjectMapper mapper;
  private final String schema;
  private final Duration lease;
  private final TimeoutSweeper timeouts;

  Holding(
      DataSource dataSource,
      HolderStore store,
      ObjectMapper mapper,
      String schema,
      Duration lease,
      TimeoutSweeper timeouts) {
    this.dataSource = dataSource;
    this.store = store;
    this.mapper = mapper;
    this.schema = schema;
    this.lease = lease;
    this.timeouts = timeouts;
  }

  ObjectMapper mapper() {
    return mapper;
  }

  /** The schema the jobs live in, for their default idempotency keys. */
  String schema() {
    return schema;
  }

  Instant extendIfHeld(RunningJob rj, Duration extra) {
    return store.extendIfHeld(dataSource, rj.id(), rj.fence(), extra, lease);
  }

  boolean completeIfHeld(Connection c, RunningJob rj) {
    try {
      return store.completeIfHeld(c, rj.id(), rj.fence());
    } catch (SQLException e) {
      throw Db.wrap("cannot complete job (id=" + rj.id() + ") in the handler's transaction", e);
    }
  }

  /**
   * Sets the attempt's deadline ({@link System#nanoTime()} based) and makes sure a sweep interrupts
   * the handler at it ({@link TimeoutSweeper}).
   */
  void rescheduleTimeout(RunningJob rj, long deadlineNanos) {
    rj.deadlineNanos(deadlineNanos);
    rj.startTimeout();
    timeouts.arm(deadlineNanos);
  }

  /** {@code d} in nanoseconds, saturating instead of overflowing. */
  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException e) {
      return d.isNegative() ? Long.MIN_VALUE / 2 : Long.MAX_VALUE / 2;
    }
  }
}
