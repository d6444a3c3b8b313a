package dev.baton.internal.db;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Which queues an enqueue must admit through their backlog cap ({@link BacklogCapStore#admit}).
 * Answering false for a queue makes its enqueue run exactly the statements of a queue without a
 * cap; answering true for a queue without one costs one check that admits.
 *
 * <p>Not public API.
 */
@FunctionalInterface
public interface CappedQueues {

  /** No queue is checked: the enqueues of the leader's periodic runs, and tests. */
  CappedQueues NONE = (c, queue) -> false;

  /**
   * Whether {@code queue} may have a cap. May read the caps on {@code c} (in its transaction) when
   * the answer it holds is too old.
   */
  boolean mayBeCapped(Connection c, String queue) throws SQLException;
}
