package dev.baton;

import java.time.Instant;

/**
 * A queue as the cluster sees it: known because it has a control row, live jobs or a node working
 * it.
 *
 * @param name the queue's name
 * @param paused whether it is paused cluster-wide (no node claims its jobs)
 * @param pausedAt when it was paused, or null
 * @param pausedBy the node or user that paused it, or null
 * @param backlogCap the most jobs that may wait (available, scheduled, retryable) in the queue, an
 *     enqueue over it being refused ({@link BacklogCapExceededException}); null when it has no cap
 * @param concurrencyLimit the most of its jobs that run at once across the cluster, or null when it
 *     has no such limit (then only each node's own concurrency bounds it); see {@code
 *     BatonAdmin#limitConcurrency}
 */
public record QueueInfo(
    String name,
    boolean paused,
    Instant pausedAt,
    String pausedBy,
    Integer backlogCap,
    Integer concurrencyLimit) {

  /** A queue without a backlog cap or a cluster-wide concurrency limit. */
  public QueueInfo(String name, boolean paused, Instant pausedAt, String pausedBy) {
    this(name, paused, pausedAt, pausedBy, null, null);
  }
}
