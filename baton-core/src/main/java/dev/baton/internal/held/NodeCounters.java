package dev.baton.internal.held;

import java.util.concurrent.atomic.LongAdder;

/**
 * Outcome counters of one node, written from many threads, and the optional {@link JobListener} of
 * its executor. Not public API.
 */
public final class NodeCounters {
  public final LongAdder claimed = new LongAdder();
  public final LongAdder completed = new LongAdder();
  public final LongAdder retried = new LongAdder();
  public final LongAdder discarded = new LongAdder();
  public final LongAdder cancelled = new LongAdder();
  public final LongAdder snoozed = new LongAdder();
  public final LongAdder fenced = new LongAdder();
  public final LongAdder leasesLost = new LongAdder();
  public final LongAdder rescued = new LongAdder();
  public final LongAdder handedBack = new LongAdder();

  /** Enqueue calls of this client refused by a queue's backlog cap. */
  public final LongAdder refusedEnqueues = new LongAdder();

  /** Told of every handler's start and return; null (the default) for none. */
  public volatile JobListener listener;
}
