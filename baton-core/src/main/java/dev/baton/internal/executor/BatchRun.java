package dev.baton.internal.executor;

import dev.baton.internal.held.BatchCall;
import dev.baton.internal.held.StopReason;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One call of a batch handler, as its jobs' stops see it: the call's thread is interrupted when the
 * call must end for all of its jobs (the timeout, this client stopping) or once every job of it was
 * told to stop; a stop of only some of them leaves the call running. Not public API.
 */
final class BatchRun implements BatchCall {
  private final Thread thread;
  private final int size;
  private final Runnable overdue;
  private final AtomicInteger stopped = new AtomicInteger();
  private final AtomicReference<StopReason> endedFor = new AtomicReference<>(); // set once

  /** A call of {@code size} jobs on {@code thread}; {@code overdue} runs once, at its timeout. */
  BatchRun(Thread thread, int size, Runnable overdue) {
    this.thread = thread;
    this.size = size;
    this.overdue = overdue;
  }

  @Override
  public void stopped(boolean first, StopReason reason) {
    int n = first ? stopped.incrementAndGet() : stopped.get();
    if (reason == StopReason.TIMED_OUT || reason == StopReason.SHUTDOWN) {
      // Under the lock of one job only: two jobs may race to end the call, and one of them wins.
      boolean firstEnd = endedFor.compareAndSet(null, reason);
      thread.interrupt();
      if (firstEnd && reason == StopReason.TIMED_OUT) {
        overdue.run();
      }
    } else if (n >= size) {
      thread.interrupt();
    }
  }

  /**
   * The timeout or stop that interrupted the whole call, or null: every job of the call that was
   * not told to stop yet is to be treated as stopped for it, as a job alone on its thread would.
   */
  StopReason endedFor() {
    return endedFor.get();
  }
}
